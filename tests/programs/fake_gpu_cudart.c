// SPDX-License-Identifier: MIT
/*
 * A stand-in libcudart for the device and GPU activity tests: the calls
 * that set or use the current device, succeeding (the real runtime without
 * a GPU fails them all). Built as libcudart.so.98 in a folder of its own.
 */
#include <stddef.h>

static __thread int current;

int cudaSetDevice(int d)
{
	current = d;
	return 0;
}

int cudaGetDevice(int *d)
{
	*d = current;
	return 0;
}

int cudaLaunchKernel(const void *func, unsigned long grid_xy, unsigned grid_z, unsigned long block_xy,
		     unsigned block_z, void **args, size_t shared, void *stream)
{
	return 0;
}

int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream)
{
	return 0;
}

int cudaMemsetAsync(void *p, int v, size_t n, void *stream)
{
	return 0;
}
