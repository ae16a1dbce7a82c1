// SPDX-License-Identifier: MIT
/*
 * Every allocation family of the CUDA runtime and driver, once each, on the
 * stand-ins of this folder, through the toolkit's own declarations (so the
 * compiler lays out the arguments: a cudaExtent by value on the stack).
 * Each allocation is freed by its own family's free, but for the leaks
 * test_alloc_families.py expects: a cudaMalloc of 7777 bytes, a pitched
 * 100 x 3 (1536 bytes), a driver array of 10 x 10 bytes and a 4 MiB
 * physical allocation never released.
 */
#include <stdlib.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#define MiB (1u << 20)

static void runtime_families(void *host)
{
	struct cudaChannelFormatDesc float4 = { 32, 32, 32, 32, cudaChannelFormatKindFloat };
	struct cudaChannelFormatDesc byte = { 8, 0, 0, 0, cudaChannelFormatKindUnsigned };
	struct cudaChannelFormatDesc short2 = { 16, 16, 0, 0, cudaChannelFormatKindSigned };
	struct cudaChannelFormatDesc float1 = { 32, 0, 0, 0, cudaChannelFormatKindFloat };
	cudaMemPool_t pool = (cudaMemPool_t)0x5151;
	struct cudaPitchedPtr pp;
	cudaMipmappedArray_t mip;
	cudaArray_t arr;
	size_t pitch;
	void *p;

	cudaMalloc(&p, 1000);
	cudaFree(p);
	cudaMallocHost(&p, 2000);
	cudaFreeHost(p);
	cudaHostAlloc(&p, 3000, cudaHostAllocDefault);
	cudaFreeHost(p);
	cudaMallocManaged(&p, 4000, cudaMemAttachGlobal);
	cudaFree(p);
	cudaMallocAsync(&p, 5000, 0);
	cudaFreeAsync(p, 0);
	cudaMallocFromPoolAsync(&p, 6000, pool, 0);
	cudaFreeAsync(p, 0);
	cudaMallocPitch(&p, &pitch, 1000, 30);                   /* 1024 x 30 */
	cudaFree(p);
	cudaMalloc3D(&pp, (struct cudaExtent){ 1000, 20, 5 });         /* 1024 x 20 x 5 */
	cudaFree(pp.ptr);
	cudaMallocArray(&arr, &float4, 100, 50, 0);              /* 100 x 50 x 16 */
	cudaFreeArray(arr);
	cudaMallocArray(&arr, &byte, 300, 0, 0);                 /* 1D: 300 x 1 */
	cudaFreeArray(arr);
	cudaMalloc3DArray(&arr, &short2, (struct cudaExtent){ 64, 32, 0 }, 0); /* 2D: 64 x 32 x 4 */
	cudaFreeArray(arr);
	/* 64 x 16 floats, levels down to 1 x 1 (7 of the 10 asked): 1367 x 4 */
	cudaMallocMipmappedArray(&mip, &float1, (struct cudaExtent){ 64, 16, 0 }, 10, 0);
	cudaFreeMipmappedArray(mip);
	cudaHostRegister(host, 8192, cudaHostRegisterDefault);
	cudaHostUnregister(host);
	cudaMalloc(&p, 7777);                                    /* leaked */
	cudaMallocPitch(&p, &pitch, 100, 3);                     /* leaked: 512 x 3 */
}

static void driver_families(void *host)
{
	CUDA_ARRAY_DESCRIPTOR float2 = { .Width = 100, .Height = 0, .Format = CU_AD_FORMAT_FLOAT,
					 .NumChannels = 2 };
	CUDA_ARRAY_DESCRIPTOR bytes = { .Width = 10, .Height = 10, .Format = CU_AD_FORMAT_UNSIGNED_INT8,
					.NumChannels = 1 };
	CUDA_ARRAY3D_DESCRIPTOR short4 = { .Width = 64, .Height = 8, .Depth = 4,
					   .Format = CU_AD_FORMAT_UNSIGNED_INT16, .NumChannels = 4 };
	CUmemAllocationProp prop = { .type = CU_MEM_ALLOCATION_TYPE_PINNED,
				     .location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 } };
	CUmemoryPool pool = (CUmemoryPool)0x5252;
	CUmemGenericAllocationHandle h;
	CUdeviceptr d, va;
	CUarray arr;
	CUmipmappedArray mip;
	size_t pitch;
	void *p;

	cuMemAlloc(&d, 1100);
	cuMemFree(d);
	cuMemAllocPitch(&d, &pitch, 1000, 10, 4);                /* 1024 x 10 */
	cuMemFree(d);
	cuMemAllocManaged(&d, 1300, CU_MEM_ATTACH_GLOBAL);
	cuMemFree(d);
	cuMemAllocHost(&p, 1400);
	cuMemFreeHost(p);
	cuMemHostAlloc(&p, 1500, 0);
	cuMemFreeHost(p);
	cuMemAllocAsync(&d, 1600, 0);
	cuMemFreeAsync(d, 0);
	cuMemAllocFromPoolAsync(&d, 1700, pool, 0);
	cuMemFreeAsync(d, 0);
	cuMemHostRegister(host, 4096, 0);
	cuMemHostUnregister(host);
	cuArrayCreate(&arr, &float2);                            /* 1D: 100 x 2 x 4 */
	cuArrayDestroy(arr);
	cuArray3DCreate(&arr, &short4);                          /* 64 x 8 x 4 x 4 x 2 */
	cuArrayDestroy(arr);
	cuMipmappedArrayCreate(&mip, &short4, 2);                /* (64 x 8 x 4 + 32 x 4 x 2) x 4 x 2 */
	cuMipmappedArrayDestroy(mip);
	/* Expandable segments: physical memory by handle, mapped into a reserved range. */
	cuMemCreate(&h, 2 * MiB, &prop, 0);
	cuMemAddressReserve(&va, 4 * MiB, 0, 0, 0);
	cuMemMap(va, 2 * MiB, 0, h, 0);
	cuMemRelease(h); /* the mapping keeps it; the books count it released */
	cuMemUnmap(va, 2 * MiB);
	cuMemAddressFree(va, 4 * MiB);
	cuArrayCreate(&arr, &bytes);                             /* leaked: 100 */
	cuMemCreate(&h, 4 * MiB, &prop, 0);                      /* leaked */
}

int main(void)
{
	void *host = aligned_alloc(4096, 8192);

	if (!host)
		return 1;
	runtime_families(host);
	driver_families(host);
	free(host);
	return 0;
}
