// SPDX-License-Identifier: MIT
/*
 * A stand-in libcudart that succeeds: it defines only a few symbols (so
 * that the tracer's "this runtime lacks X" path is exercised) and writes
 * known values to out-parameters, which the real library without a GPU
 * never does. Built as libcudart.so.99 in its own folder, pip-style.
 */
#include <stddef.h>
#include <stdint.h>

int cudaMalloc(void **p, size_t size)
{
	*p = (void *)(uintptr_t)(0xdead0000u + size);
	return 0;
}

int cudaFree(void *p)
{
	return p ? 0 : 1; /* cudaErrorInvalidValue for NULL, as a known error */
}

int cudaGetDeviceCount(int *n)
{
	*n = 4;
	return 0;
}
