// SPDX-License-Identifier: MIT
/*
 * A stand-in libcudart for the device and GPU activity tests: the calls
 * that set or use the current device, succeeding (the real runtime without
 * a GPU fails them all). Built as libcudart.so.98 in a folder of its own.
 */
#include <stddef.h>

static __thread int current;

/* While a stream is captured (fake_cudart_capture): what a launch or a set adds to the graph. */
static void (*capture_hook)(void);
static void (*instantiate_hook)(void);

void fake_cudart_capture(void (*on_capture)(void), void (*on_instantiate)(void))
{
	capture_hook = on_capture;
	instantiate_hook = on_instantiate;
}

int cudaGraphInstantiate(void **exec, void *graph, unsigned long long flags)
{
	if (instantiate_hook)
		instantiate_hook();
	*exec = graph;
	return 0;
}

int cudaGraphLaunch(void *exec, void *stream)
{
	return 0;
}

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
	if (capture_hook)
		capture_hook();
	return 0;
}

int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream)
{
	return 0;
}

int cudaMemsetAsync(void *p, int v, size_t n, void *stream)
{
	if (capture_hook)
		capture_hook();
	return 0;
}
