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
	hipHostRegister(host, 4096, 0);
	hipHostUnregister(host);
	hipMalloc(&p, 2700);                                     /* leaked */
	free(host);
	return 0;
}
