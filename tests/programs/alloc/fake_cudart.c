// SPDX-License-Identifier: MIT
/*
 * A stand-in libcudart whose allocation calls succeed and write their
 * out-parameters (the real one without a GPU fails them), for the memory
 * sink's test of every allocation family (test_alloc_families.py). Built
 * from the toolkit's own declarations, as libcudart.so.97 in alloc/lib.
 */
#include <cuda_runtime_api.h>
#include "bump.h"

#define NEW(type) ((type)bump(0x7a0000000000))

cudaError_t cudaMalloc(void **p, size_t size) { *p = NEW(void *); return cudaSuccess; }
cudaError_t cudaMallocHost(void **p, size_t size) { *p = NEW(void *); return cudaSuccess; }
cudaError_t cudaHostAlloc(void **p, size_t size, unsigned int flags) { *p = NEW(void *); return cudaSuccess; }
cudaError_t cudaMallocManaged(void **p, size_t size, unsigned int flags)
{
	*p = NEW(void *);
	return cudaSuccess;
}

cudaError_t cudaMallocAsync(void **p, size_t size, cudaStream_t s) { *p = NEW(void *); return cudaSuccess; }
cudaError_t cudaMallocFromPoolAsync(void **p, size_t size, cudaMemPool_t pool, cudaStream_t s)
{
	*p = NEW(void *);
	return cudaSuccess;
}

cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height)
{
	*p = NEW(void *);
	*pitch = pitch_of(width);
	return cudaSuccess;
}

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pp, struct cudaExtent e)
{
	*pp = (struct cudaPitchedPtr){ NEW(void *), pitch_of(e.width), e.width, e.height };
	return cudaSuccess;
}

cudaError_t cudaMallocArray(cudaArray_t *a, const struct cudaChannelFormatDesc *d, size_t w, size_t h,
			    unsigned int flags)
{
	*a = NEW(cudaArray_t);
	return cudaSuccess;
}

cudaError_t cudaMalloc3DArray(cudaArray_t *a, const struct cudaChannelFormatDesc *d, struct cudaExtent e,
			      unsigned int flags)
{
	*a = NEW(cudaArray_t);
	return cudaSuccess;
}

cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *m, const struct cudaChannelFormatDesc *d,
				     struct cudaExtent e, unsigned int levels, unsigned int flags)
{
	*m = NEW(cudaMipmappedArray_t);
	return cudaSuccess;
}

cudaError_t cudaHostRegister(void *p, size_t size, unsigned int flags) { return cudaSuccess; }
cudaError_t cudaHostUnregister(void *p) { return cudaSuccess; }
cudaError_t cudaFree(void *p) { return cudaSuccess; }
cudaError_t cudaFreeHost(void *p) { return cudaSuccess; }
cudaError_t cudaFreeAsync(void *p, cudaStream_t s) { return cudaSuccess; }
cudaError_t cudaFreeArray(cudaArray_t a) { return cudaSuccess; }
cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t m) { return cudaSuccess; }
