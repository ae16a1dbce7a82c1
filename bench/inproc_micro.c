// SPDX-License-Identifier: MIT
/*
 * What --engine inproc adds to a call, against a stand-in runtime
 * (inproc_standin.c) whose functions return at once:
 *
 *     inproc_micro N [LOOP,...]  tight loops of N calls each, timed in blocks
 *                              of 1024 by CLOCK_MONOTONIC; one JSON object
 *                              of ns per call (the median block's)
 *     inproc_micro parts       what the hook path's pieces cost on this
 *                              machine, each alone in a loop (ns)
 *
 * Loops: cudaGetDevice (an int out-parameter on the caller's stack, read
 * at return), cudaGetDevice_global (the out-parameter in the executable's
 * data: not on the stack), cudaMemsetAsync (no memory read). Run it under
 * cudatracer --engine inproc --profile full (cudaGetDevice is a hot
 * getter) and alone: bench/inproc_micro.py does both, rotating.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

int cudaGetDevice(int *d);
int cudaMemsetAsync(void *p, int v, size_t n, void *stream);

static int g_device;
static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void call_getdevice(void)
{
	int d;

	cudaGetDevice(&d);
}

static void call_getdevice_global(void)
{
	cudaGetDevice(&g_device);
}

static void call_memset(void)
{
	cudaMemsetAsync((void *)0x1000, 0, 256, NULL);
}

/* Whether `name` is one of the comma-separated names in `list`. */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

static const struct {
	const char *name;
	void (*fn)(void);
} loops[] = {
	{ "cudaGetDevice", call_getdevice },
	{ "cudaGetDevice_global", call_getdevice_global },
	{ "cudaMemsetAsync", call_memset },
};

/* Each piece alone, best of 20 runs of 100 000. */
#define PART(name, ...)                                                              \
	do {                                                                         \
		double best = 1e9;                                                   \
		for (int r = 0; r < 20; r++) {                                       \
			double t0 = now();                                           \
			for (int i = 0; i < 100000; i++) {                           \
				__VA_ARGS__;                                         \
			}                                                            \
			double d = (now() - t0) / 100000;                            \
			best = d < best ? d : best;                                  \
		}                                                                    \
		printf("%s\"%s\": %.1f", first ? "" : ", ", name, best);           \
		first = 0;                                                           \
	} while (0)

static void parts(void)
{
	static uint64_t line[8] __attribute__((aligned(64)));
	pid_t pid = getpid();
	int x = 5, y, first = 1;

	printf("{");
	PART("loop", __asm__ volatile(""));
#if defined(__x86_64__)
	PART("rdtsc", sink = __rdtsc());
#endif
	PART("clock_gettime", {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sink = (uint64_t)ts.tv_nsec;
	});
	PART("cas", {
		uint64_t p = line[0];
		__atomic_compare_exchange_n(&line[0], &p, p + 1, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
	});
	PART("process_vm_readv_4B", {
		struct iovec l = { &y, 4 }, r = { &x, 4 };
		process_vm_readv(pid, &l, 1, &r, 1, 0);
	});
	printf("}\n");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	const char *only = argc > 2 ? argv[2] : NULL;
	static double block_ns[1 << 14];
	int first = 1;

	if (argc > 1 && !strcmp(argv[1], "parts")) {
		parts();
		return 0;
	}
	printf("{");
	for (size_t a = 0; a < sizeof(loops) / sizeof(loops[0]); a++) {
		long nb = 0;

		if (only && !listed(only, loops[a].name))
			continue;
		for (int i = 0; i < 1000; i++) /* the first calls bind the stubs, map the ring */
			loops[a].fn();
		for (long done = 0; done < n && nb < (1 << 14); nb++, done += 1024) {
			double t0 = now();

			for (int i = 0; i < 1024; i++)
				loops[a].fn();
			block_ns[nb] = (now() - t0) / 1024;
		}
		qsort(block_ns, (size_t)nb, sizeof(double), cmp);
		printf("%s\"%s\": %.1f", first ? "" : ", ", loops[a].name, block_ns[nb / 2]);
		first = 0;
	}
	printf("}\n");
	return 0;
}
