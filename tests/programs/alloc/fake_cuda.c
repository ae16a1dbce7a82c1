// SPDX-License-Identifier: MIT
/*
 * A stand-in libcuda.so.1 whose allocation calls succeed (see
 * fake_cudart.c). cuda.h renames the calls to their current symbols
 * (cuMemAlloc -> cuMemAlloc_v2 ...), which are what this defines.
 */
#include <cuda.h>
#include "bump.h"

#define NEW(type) ((type)bump(0x7b0000000000))

CUresult cuMemAlloc(CUdeviceptr *d, size_t n) { *d = NEW(CUdeviceptr); return CUDA_SUCCESS; }
CUresult cuMemAllocPitch(CUdeviceptr *d, size_t *pitch, size_t w, size_t h, unsigned int elem)
{
	*d = NEW(CUdeviceptr);
	*pitch = pitch_of(w);
	return CUDA_SUCCESS;
}

CUresult cuMemAllocManaged(CUdeviceptr *d, size_t n, unsigned int f) { *d = NEW(CUdeviceptr); return CUDA_SUCCESS; }
CUresult cuMemAllocHost(void **p, size_t n) { *p = NEW(void *); return CUDA_SUCCESS; }
CUresult cuMemHostAlloc(void **p, size_t n, unsigned int f) { *p = NEW(void *); return CUDA_SUCCESS; }
CUresult cuMemAllocAsync(CUdeviceptr *d, size_t n, CUstream s) { *d = NEW(CUdeviceptr); return CUDA_SUCCESS; }
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *d, size_t n, CUmemoryPool pool, CUstream s)
{
	*d = NEW(CUdeviceptr);
	return CUDA_SUCCESS;
}

CUresult cuArrayCreate(CUarray *a, const CUDA_ARRAY_DESCRIPTOR *d) { *a = NEW(CUarray); return CUDA_SUCCESS; }
CUresult cuArray3DCreate(CUarray *a, const CUDA_ARRAY3D_DESCRIPTOR *d) { *a = NEW(CUarray); return CUDA_SUCCESS; }
CUresult cuMipmappedArrayCreate(CUmipmappedArray *m, const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned int levels)
{
	*m = NEW(CUmipmappedArray);
	return CUDA_SUCCESS;
}
CUresult cuMipmappedArrayDestroy(CUmipmappedArray m) { return CUDA_SUCCESS; }
CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t n, const CUmemAllocationProp *p,
		     unsigned long long f)
{
	*h = NEW(CUmemGenericAllocationHandle);
	return CUDA_SUCCESS;
}

CUresult cuMemAddressReserve(CUdeviceptr *d, size_t n, size_t align, CUdeviceptr addr, unsigned long long f)
{
	*d = NEW(CUdeviceptr);
	return CUDA_SUCCESS;
}

CUresult cuMemMap(CUdeviceptr d, size_t n, size_t off, CUmemGenericAllocationHandle h, unsigned long long f)
{
	return CUDA_SUCCESS;
}

CUresult cuMemUnmap(CUdeviceptr d, size_t n) { return CUDA_SUCCESS; }
CUresult cuMemAddressFree(CUdeviceptr d, size_t n) { return CUDA_SUCCESS; }
CUresult cuMemRelease(CUmemGenericAllocationHandle h) { return CUDA_SUCCESS; }
CUresult cuMemHostRegister(void *p, size_t n, unsigned int f) { return CUDA_SUCCESS; }
CUresult cuMemHostUnregister(void *p) { return CUDA_SUCCESS; }
CUresult cuMemFree(CUdeviceptr d) { return CUDA_SUCCESS; }
CUresult cuMemFreeHost(void *p) { return CUDA_SUCCESS; }
CUresult cuMemFreeAsync(CUdeviceptr d, CUstream s) { return CUDA_SUCCESS; }
CUresult cuArrayDestroy(CUarray a) { return CUDA_SUCCESS; }
