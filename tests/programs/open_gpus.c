// SPDX-License-Identifier: MIT
/*
 * A process that holds GPU device files open and then calls a CUDA
 * runtime, for the device of calls whose thread never said
 * (test_device_fallback.py).
 *
 *   open_gpus LIBCUDART OP...
 *     open:PATH   hold PATH open (O_PATH: a device node with no driver
 *                 behind it opens all the same)
 *     set:N       cudaSetDevice(N)
 *     memset      cudaMemsetAsync(0x1000, 0, 64, 0)
 *     sleep:MS    sleep (the tracer reads its descriptors while it lives)
 *
 * With the real libcudart and no GPU the calls fail; the stand-in
 * (tests/programs/fakegpu) succeeds.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int (*set_device)(int);
	int (*memset_async)(void *, int, size_t, void *);
	void *rt;

	if (argc < 2) {
		fprintf(stderr, "usage: open_gpus LIBCUDART [open:PATH|set:N|memset|sleep:MS]...\n");
		return 2;
	}
	rt = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!rt) {
		fprintf(stderr, "open_gpus: %s\n", dlerror());
		return 2;
	}
	set_device = (int (*)(int))dlsym(rt, "cudaSetDevice");
	memset_async = (int (*)(void *, int, size_t, void *))dlsym(rt, "cudaMemsetAsync");
	if (!set_device || !memset_async) {
		fprintf(stderr, "open_gpus: %s lacks cudaSetDevice or cudaMemsetAsync\n", argv[1]);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "open:", 5)) {
			if (open(argv[i] + 5, O_PATH | O_CLOEXEC) < 0) {
				perror(argv[i] + 5);
				return 2;
			}
		} else if (!strncmp(argv[i], "set:", 4)) {
			set_device(atoi(argv[i] + 4));
		} else if (!strncmp(argv[i], "sleep:", 6)) {
			usleep((useconds_t)atoi(argv[i] + 6) * 1000);
		} else if (!strcmp(argv[i], "memset")) {
			memset_async((void *)(uintptr_t)0x1000, 0, 64, NULL);
		} else {
			fprintf(stderr, "open_gpus: unknown op %s\n", argv[i]);
			return 2;
		}
	}
	return 0;
}
