// SPDX-License-Identifier: MIT
/*
 * The benchmark workload: for each API, a tight loop of N calls, timed
 * with CLOCK_MONOTONIC in blocks of 1024; prints one JSON object of ns per
 * call (the median block's). Arguments
 * are made-up values that the runtime rejects or that do real work on a
 * GPU: on a machine without one every call fails fast with error 35.
 *   workload N [api,api,...|all] [wait]
 *   workload N [api,api,...|all] rounds R
 * rounds: R times the loops, each after a line on stdin ("ready" printed
 * before it), one JSON object each: for a driver that changes the tracer
 * between rounds of one process (bench/inproc_rounds.py).
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <time.h>
#include <unistd.h>
#include <cuda_runtime.h>
#include "../tests/programs/ready.h"

__global__ void empty_kernel() {}

static void *dev, *host;
static cudaStream_t stream;

static double now()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void call_getdevice() { int d; cudaGetDevice(&d); }
static void call_launch() { void *args[1] = { nullptr }; cudaLaunchKernel((const void *)empty_kernel, dim3(1), dim3(32), args, 0, stream); }
static void call_memcpy() { cudaMemcpyAsync(dev, host, 256, cudaMemcpyHostToDevice, stream); }
static void call_malloc() { void *p = nullptr; if (cudaMalloc(&p, 256) == cudaSuccess) cudaFree(p); }
static void call_memset() { cudaMemsetAsync(dev, 0, 256, stream); }

static const struct {
	const char *name;
	void (*fn)();
} apis[] = {
	{ "cudaGetDevice", call_getdevice },
	{ "cudaLaunchKernel", call_launch },
	{ "cudaMemcpyAsync", call_memcpy },
	{ "cudaMalloc+cudaFree", call_malloc },
	{ "cudaMemsetAsync", call_memset },
};

/* One round: each API's loop, one JSON object of ns per call. */
static void measure(long n, const char *only)
{
	bool first = true;

	printf("{");
	for (size_t a = 0; a < sizeof(apis) / sizeof(apis[0]); a++) {
		static double block_ns[1 << 16];
		long nb = 0;

		if (only && !strstr(only, apis[a].name))
			continue;
		/* Timed in blocks of 1024 calls; a real GPU's queue is drained
		 * between blocks, outside the timing, so that the loop measures
		 * the API, not a full queue. The median block is reported: a
		 * shared machine's preemptions land in a few blocks, not in it. */
		for (long done = 0; done < n && nb < (1 << 16); nb++) {
			long m = n - done < 1024 ? n - done : 1024;
			double t0 = now();

			for (long i = 0; i < m; i++)
				apis[a].fn();
			block_ns[nb] = (now() - t0) / m;
			done += m;
			cudaStreamSynchronize(stream);
		}
		std::sort(block_ns, block_ns + nb);
		printf("%s\"%s\": %.1f", first ? "" : ", ", apis[a].name, block_ns[nb / 2]);
		first = false;
	}
	printf("}\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	const char *only = argc > 2 && strcmp(argv[2], "all") ? argv[2] : nullptr;
	long rounds = argc > 4 && !strcmp(argv[3], "rounds") ? atol(argv[4]) : 0;
	char line[16];

	/* Hold until a tracer has attached with -p: its own resource use is then its own. */
	if (!rounds && !ready_wait(argc, argv, 3))
		return 2;

	cudaMalloc(&dev, 1 << 20);
	cudaMallocHost(&host, 1 << 20);
	cudaStreamCreate(&stream);
	for (int i = 0; i < 1000; i++) /* warm up: the first calls initialise the runtime */
		call_launch(), call_memcpy(), call_getdevice();
	cudaStreamSynchronize(stream);
	if (!rounds) {
		measure(n, only);
		return 0;
	}
	for (long r = 0; r < rounds; r++) {
		printf("ready\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 2;
		measure(n, only);
	}
	return 0;
}
