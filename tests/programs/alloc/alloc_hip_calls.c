// SPDX-License-Identifier: MIT
/*
 * Every allocation family of HIP, once each, on the stand-in of this
 * folder; freed by their own family's free, but for a hipMalloc of 2700
 * bytes (see alloc_cuda.c).
 */
#include <stdlib.h>
#include <hip/hip_runtime_api.h>

int main(void)
{
	hipChannelFormatDesc uchar4 = { 8, 8, 8, 8, hipChannelFormatKindUnsigned };
	hipChannelFormatDesc float1 = { 32, 0, 0, 0, hipChannelFormatKindFloat };
	HIP_ARRAY_DESCRIPTOR half2 = { .Width = 100, .Height = 3, .Format = HIP_AD_FORMAT_HALF, .NumChannels = 2 };
	HIP_ARRAY3D_DESCRIPTOR int1 = { .Width = 16, .Height = 8, .Depth = 2, .Format = HIP_AD_FORMAT_SIGNED_INT32,
					.NumChannels = 1 };
	hipMipmappedArray_t mip;
	hipMemGenericAllocationHandle_t vmm;
	hipMemAllocationProp prop = { .type = hipMemAllocationTypePinned };
	hipPitchedPtr pp;
	void *host = aligned_alloc(4096, 4096), *p;
	hipArray *arr;
	size_t pitch;

	if (!host)
		return 1;
	hipMalloc(&p, 2100);
	hipFree(p);
	hipMallocPitch(&p, &pitch, 1000, 7);                     /* 1024 x 7 */
	hipFree(p);
	hipHostMalloc(&p, 2300, 0);
	hipHostFree(p);
	hipMallocManaged(&p, 2400, hipMemAttachGlobal);
	hipFree(p);
	hipMallocAsync(&p, 2500, 0);
	hipFreeAsync(p, 0);
	hipExtMallocWithFlags(&p, 2600, 0);
	hipFree(p);
	hipMallocArray(&arr, &uchar4, 32, 16, 0);                /* 32 x 16 x 4 */
	hipFreeArray(arr);
	hipMalloc3D(&pp, (hipExtent){ 600, 4, 3 });              /* 1024 x 4 x 3 */
	hipFree(pp.ptr);
	hipMalloc3DArray(&arr, &uchar4, (hipExtent){ 16, 16, 2 }, 0); /* 16 x 16 x 2 x 4 */
	hipFreeArray(arr);
	hipMallocMipmappedArray(&mip, &float1, (hipExtent){ 32, 8, 0 }, 3, 0); /* (256 + 64 + 16) x 4 */
	hipFreeMipmappedArray(mip);
	hipArrayCreate(&arr, &half2);                            /* 100 x 3 x 2 x 2 */
	hipArrayDestroy(arr);
	hipArray3DCreate(&arr, &int1);                           /* 16 x 8 x 2 x 4 */
	hipArrayDestroy(arr);
	hipMemCreate(&vmm, 2 << 20, &prop, 0);                   /* physical memory, by handle */
	hipMemRelease(vmm);
	hipHostRegister(host, 4096, 0);
	hipHostUnregister(host);
	hipMalloc(&p, 2700);                                     /* leaked */
	free(host);
	return 0;
}
