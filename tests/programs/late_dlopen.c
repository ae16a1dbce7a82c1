// SPDX-License-Identifier: MIT
/* Loads a CUDA runtime with dlopen only after starting (as PyTorch does
 * with its own libcudart) and calls it at once: the tracer must catch the
 * very first call. argv[1]: the library's path. With "wait", waits for a
 * line on stdin before loading (for -p). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ready.h"

typedef int (*count_fn)(int *);
typedef int (*malloc_fn)(void **, size_t);

int main(int argc, char **argv)
{
	void *h, *p = NULL;
	int n = -1;

	if (argc < 2)
		return 2;
	if (!ready_wait(argc, argv, 2))
		return 2;
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "late_dlopen: %s\n", dlerror());
		return 3;
	}
	((count_fn)dlsym(h, "cudaGetDeviceCount"))(&n);
	((malloc_fn)dlsym(h, "cudaMalloc"))(&p, 777);
	printf("late_dlopen: done\n");
	return 0;
}
