// SPDX-License-Identifier: MIT
/*
 * A kernel launched once, then, once a tracer has attached (`wait`, ready.h),
 * COUNT more times, through the stand-in runtime of FAKE_DIR
 * (fake_launch_cudart.c), whose cudaLaunchKernel calls the stand-in
 * driver's cuLaunchKernel with a handle made at the first launch:
 *     kname_attach FAKE_DIR COUNT [wait]
 * With `wait` it also waits for a second line before it exits.
 * The kernel's host stub is a function under a C++ mangled name, as nvcc
 * emits: my_kern(float*).
 */
#include "fake_libs.h"
#include <stdio.h>
#include <stdlib.h>
#include "ready.h"

typedef int (*launch_fn)(const void *func, unsigned long grid_xy, unsigned grid_z, unsigned long block_xy,
			 unsigned block_z, void **args, size_t shared, void *stream);

int main(int argc, char **argv)
{
	float *p = NULL;
	void *args[] = { &p };
	launch_fn launch;
	int count;

	if (argc < 3) {
		fprintf(stderr, "usage: kname_attach FAKE_DIR COUNT [wait]\n");
		return 2;
	}
	count = atoi(argv[2]);
	/* The driver first and global: the runtime finds cuLaunchKernel in it. */
	if (!open_lib(argv[1], "libcuda.so.1", RTLD_NOW | RTLD_GLOBAL))
		return 1;
	launch = (launch_fn)dlsym(open_lib(argv[1], "libcudart.so.97", RTLD_NOW), "cudaLaunchKernel");
	if (!launch)
		return 1;
	if (launch((const void *)_Z7my_kernPf, 1ul | 1ul << 32, 1, 32ul | 1ul << 32, 1, args, 0, NULL))
		return 1;
	if (!ready_wait(argc, argv, 3))
		return 1;
	for (int i = 0; i < count; i++)
		if (launch((const void *)_Z7my_kernPf, 2ul | 1ul << 32, 1, 64ul | 1ul << 32, 1, args, 0, NULL))
			return 1;
	printf("launched %d\n", count + 1);
	fflush(stdout);
	/* Waiting, it stays until told: its maps are there while the tracer
	 * names the stubs of its last calls. */
	return ready_wait(argc, argv, 3) ? 0 : 1;
}
