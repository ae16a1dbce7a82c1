// SPDX-License-Identifier: MIT
/*
 * NVTX v3 (header-only) around real libcudart calls that fail without a
 * GPU (error 35): ranges around failing calls are ranges all the same.
 * test_nvtx.py traces it and checks every range, mark and call's `nvtx`
 * list; run untraced (`nvtx_untraced` in tests/nvtx.cmake) it checks what
 * NVTX returns with the tracer's injection loaded and no tracer.
 *
 *   main:   push "outer"
 *             cudaMalloc                      [outer]
 *             pushW L"wide-\u00fc"
 *               cudaFree                      [outer, wide-ü]
 *               mark "mark-1"
 *             pop
 *             domain "io": push (registered string "registered")
 *               cudaDeviceSynchronize         [outer, registered]
 *               domain "io": mark (event attributes, wide) "io-mark"
 *             domain pop
 *           pop
 *           start "across" (id), then a thread that pushes "worker",
 *             calls cudaGetDeviceCount        [worker]
 *             ends "across", pops
 *           cudaSetDevice                     (no nvtx)
 *           pop with no push (counted)
 *           push 300 x's (cut to 255), cudaStreamSynchronize, pop
 *           mark "bell\a\x1b[2J" (escaped by every sink)
 *           push "left-open", cudaDeviceReset, exit: still open
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

static nvtxRangeId_t across;

static void *worker(void *arg)
{
	int n = 0;

	(void)arg;
	nvtxRangePushA("worker");
	cudaGetDeviceCount(&n);
	nvtxRangeEnd(across);
	nvtxRangePop();
	return NULL;
}

/* nvtx_ranges N: N push/pop pairs, timed (docs/nvtx.md's figures). */
static int pairs(long n)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		nvtxRangePushA("pair");
		nvtxRangePop();
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%ld pairs: %.1f ns a push and pop\n", n,
	       ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n);
	return 0;
}

int main(int argc, char **argv)
{
	nvtxDomainHandle_t io = nvtxDomainCreateA("io");
	nvtxStringHandle_t reg = nvtxDomainRegisterStringA(io, "registered");
	nvtxEventAttributes_t a = { 0 };
	char longname[301];
	pthread_t th;
	void *p = NULL;
	int levels[4];

	if (argc > 1)
		return pairs(atol(argv[1]));
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	levels[0] = nvtxRangePushA("outer");
	cudaMalloc(&p, 4096);
	levels[1] = nvtxRangePushW(L"wide-\u00fc");
	cudaFree(p);
	nvtxMarkA("mark-1");
	levels[2] = nvtxRangePop();
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = reg;
	nvtxDomainRangePushEx(io, &a);
	cudaDeviceSynchronize();
	a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
	a.message.unicode = L"io-mark";
	nvtxDomainMarkEx(io, &a);
	nvtxDomainRangePop(io);
	levels[3] = nvtxRangePop();

	across = nvtxRangeStartA("across");
	pthread_create(&th, NULL, worker, NULL);
	pthread_join(th, NULL);
	cudaSetDevice(0);
	nvtxRangePop();

	memset(longname, 'x', 300);
	longname[300] = 0;
	nvtxRangePushA(longname);
	cudaStreamSynchronize(0);
	nvtxRangePop();
	nvtxMarkA("bell\a\x1b[2J"); /* hostile: escaped in every sink */
	nvtxRangePushA("left-open");
	cudaDeviceReset();
	/* With an injection: the levels it returned; without one NVTX returns
	 * NVTX_NO_PUSH_POP_TRACKING (-2) for every push and pop. */
	printf("levels %d %d %d %d\n", levels[0], levels[1], levels[2], levels[3]);
	return 0;
}
