// SPDX-License-Identifier: MIT
/*
 * A stand-in libcudart whose calls succeed and write their out-parameters
 * (the real one without a GPU fails them, writing nothing), for --engine
 * inproc's reads at return: a successful call's out-parameter is read
 * without a system call. cudaMalloc of 0 bytes fails and writes nothing.
 * Built as libcudart.so.95 in outparams/lib.
 */
#include <stddef.h>
#include <stdint.h>

int cudaGetDeviceCount(int *n)
{
	*n = 3;
	return 0;
}

int cudaMalloc(void **p, size_t size)
{
	if (!size)
		return 2; /* cudaErrorMemoryAllocation */
	*p = (void *)(uintptr_t)(0xabc000u + size);
	return 0;
}
