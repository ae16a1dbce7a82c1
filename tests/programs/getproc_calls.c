// SPDX-License-Identifier: MIT
/*
 * Driver functions found the ways libcudart finds them, for --engine
 * inproc against the eBPF engine: the real libcudart's cudaGetDeviceCount
 * (it dlopens libcuda.so.1, dlsyms cuGetProcAddress_v2, asks it for
 * cuInit, then for "cuGetProcAddress" itself, and gets the rest through
 * what that gave), then the same steps by hand on the stand-in driver
 * (fake_getproc_cuda.c, loaded first from its path so that libcudart's
 * dlopen finds it): versioned names, a per-thread variant, an untraced
 * function, an unexported one, an unknown name, and one name asked for by
 * several threads at once. Prints what each call returned, never a
 * pointer: its output must read the same traced and not.
 *
 *     getproc_calls LIBCUDA LIBCUDART
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

typedef int (*gp1_fn)(const char *, void **, int, uint64_t);
typedef int (*gp2_fn)(const char *, void **, int, uint64_t, int *);
#define THREADS 8

static gp2_fn gp2;
static void *from_thread[THREADS];

static void *thread_main(void *arg)
{
	long k = (long)arg;
	int (*set)(void *) = NULL;

	if (!gp2("cuCtxSetCurrent", (void **)&from_thread[k], 4000, 0, NULL))
		set = (int (*)(void *))from_thread[k];
	return (void *)(long)(set ? set((void *)(0xc000 + k)) : -1);
}

int main(int argc, char **argv)
{
	void *drv, *rt, *p = NULL, *ret;
	int (*count)(int *), n = -1, st = -1, dev = -1, err;
	gp1_fn gp1 = NULL;
	gp2_fn first;
	pthread_t th[THREADS];
	uint64_t d64 = 0;
	uint32_t d32 = 0;

	if (argc < 3 || !(drv = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL)) || !(rt = dlopen(argv[2], RTLD_NOW))) {
		fprintf(stderr, "usage: getproc_calls LIBCUDA LIBCUDART (%s)\n", dlerror());
		return 2;
	}
	count = (int (*)(int *))dlsym(rt, "cudaGetDeviceCount");
	printf("cudaGetDeviceCount: %d\n", count(&n));

	first = (gp2_fn)dlsym(drv, "cuGetProcAddress_v2");
	printf("getproc v2: %d\n", first("cuGetProcAddress", (void **)&gp2, 12000, 0, &st));
	printf("getproc v1: %d\n", first("cuGetProcAddress", (void **)&gp1, 11030, 0, NULL));
	if (!gp2("cuMemAlloc", &p, 3020, 0, &st)) {
		err = ((int (*)(uint64_t *, size_t))p)(&d64, 4096);
		printf("cuMemAlloc at 3020: %d %#llx\n", err, (unsigned long long)d64);
	}
	if (!gp1("cuMemAlloc", &p, 2000, 0)) {
		err = ((int (*)(uint32_t *, uint32_t))p)(&d32, 1024);
		printf("cuMemAlloc at 2000: %d %#x\n", err, d32);
	}
	if (!gp2("cuLaunchKernel", &p, 7000, 2, NULL))
		printf("cuLaunchKernel per thread: %d\n",
		       ((int (*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
				 void **, void **))p)((void *)0xf00, 3, 2, 1, 64, 1, 5, 0, NULL, NULL, (void **)7));
	if (!gp2("cuDeviceGet", &p, 2000, 0, NULL)) {
		err = ((int (*)(int *, int))p)(&dev, 2);
		printf("cuDeviceGet: %d %d, untouched %d\n", err, dev, p == dlsym(drv, "cuDeviceGet"));
	}
	if (!gp2("cuFlushGPUDirectRDMAWrites", &p, 11030, 0, NULL))
		printf("unexported: %d\n", ((int (*)(int, int))p)(4, 2));
	p = (void *)1;
	err = gp2("cuNoSuchFunction", &p, 13000, 0, &st);
	printf("unknown: %d status %d null %d\n", err, st, p == NULL);
	for (long k = 0; k < THREADS; k++)
		pthread_create(&th[k], NULL, thread_main, (void *)k);
	err = 0;
	for (long k = 0; k < THREADS; k++) {
		pthread_join(th[k], &ret);
		err |= (int)(long)ret;
	}
	for (long k = 1; k < THREADS; k++)
		err |= from_thread[k] != from_thread[0];
	printf("threads: %d\n", err);
	return 0;
}
