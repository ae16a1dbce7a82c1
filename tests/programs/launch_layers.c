// SPDX-License-Identifier: MIT
/*
 * Launches in both layers, through the stand-in runtime and driver of
 * FAKE_DIR (fake_launch_cudart.c, fake_gpu_cuda.c):
 *     launch_layers FAKE_DIR [N]
 * three runtime launches that succeed, one the driver refuses (a grid of
 * no blocks: CUDA_ERROR_INVALID_VALUE, which the runtime returns), one
 * driver launch made directly, and one cudaLaunchKernelExC, which makes
 * the context current after its driver launch. Prints each call's result.
 * With N (bench/), instead: N runtime launches, and the median ns per
 * launch of blocks of 1000, as JSON.
 */
#include "fake_libs.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int (*rt_launch_fn)(const void *func, unsigned long grid_xy, unsigned grid_z, unsigned long block_xy,
			    unsigned block_z, void **args, size_t shared, void *stream);
typedef int (*drv_launch_fn)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
			     unsigned shared, void *stream, void **params, void **extra);
struct launch_config {
	unsigned grid[3], block[3];
	size_t shared;
	void *stream;
};
typedef int (*rt_launch_ex_fn)(const struct launch_config *c, const void *func, void **args);

static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int bench(rt_launch_fn launch, long n)
{
	long blocks = n / 1000 > 0 ? n / 1000 : 1;
	unsigned long long *ns = calloc(blocks, sizeof(*ns));
	void *args[] = { NULL };

	if (!ns)
		return 1;
	for (long b = 0; b < blocks; b++) {
		unsigned long long t0 = now_ns();

		for (int i = 0; i < 1000; i++)
			launch((const void *)_Z7my_kernPf, 2ul | 1ul << 32, 1, 64ul | 1ul << 32, 1, args, 0, NULL);
		ns[b] = now_ns() - t0;
	}
	qsort(ns, blocks, sizeof(*ns), cmp_u64);
	printf("{\"ns_per_launch\": %.1f}\n", ns[blocks / 2] / 1000.0);
	free(ns);
	return 0;
}

int main(int argc, char **argv)
{
	struct launch_config cfg = { { 4, 1, 1 }, { 128, 1, 1 }, 0, NULL };
	float *p = NULL;
	void *args[] = { &p }, *drv, *rt;
	rt_launch_fn launch;
	rt_launch_ex_fn launch_ex;
	drv_launch_fn cu_launch;

	if (argc < 2) {
		fprintf(stderr, "usage: launch_layers FAKE_DIR\n");
		return 2;
	}
	/* The driver first and global: the runtime finds cuLaunchKernel in it. */
	drv = open_lib(argv[1], "libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	rt = drv ? open_lib(argv[1], "libcudart.so.97", RTLD_NOW) : NULL;
	if (!rt)
		return 1;
	launch = (rt_launch_fn)dlsym(rt, "cudaLaunchKernel");
	launch_ex = (rt_launch_ex_fn)dlsym(rt, "cudaLaunchKernelExC");
	cu_launch = (drv_launch_fn)dlsym(drv, "cuLaunchKernel");
	if (!launch || !launch_ex || !cu_launch)
		return 1;
	if (argc > 2)
		return bench(launch, strtol(argv[2], NULL, 10));
	for (int i = 0; i < 3; i++)
		printf("%d ", launch((const void *)_Z7my_kernPf, 2ul | 1ul << 32, 1, 64ul | 1ul << 32, 1, args, 0, NULL));
	printf("%d ", launch((const void *)_Z7my_kernPf, 0ul | 1ul << 32, 1, 64ul | 1ul << 32, 1, args, 0, NULL));
	printf("%d ", cu_launch((void *)0x4b001, 8, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
	printf("%d\n", launch_ex(&cfg, (const void *)_Z7my_kernPf, args));
	return 0;
}
