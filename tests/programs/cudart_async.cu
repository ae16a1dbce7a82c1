// SPDX-License-Identifier: MIT
/*
 * The calls the cudart plugin records at entry only by default, each once
 * with made-up handles, between two timed calls. Without a GPU every call
 * fails before it touches them. Built with --default-stream per-thread too,
 * where cuda_runtime_api.h calls the _ptsz symbols.
 */
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#define P(x) ((void *)(uintptr_t)(x))
#define S(x) ((cudaStream_t)(uintptr_t)(x))
#define E(x) ((cudaEvent_t)(uintptr_t)(x))

static void CUDART_CB host_fn(void *)
{
}

int main()
{
	cudaMemcpyAsync(P(0x3000), P(0x4000), 2000, cudaMemcpyDeviceToHost, S(0x5100));
	cudaEventRecord(E(0xe100), S(0x5100));
	cudaEventRecordWithFlags(E(0xe200), S(0x5200), cudaEventRecordExternal);
	cudaStreamWaitEvent(S(0x5300), E(0xe300), 0);
	cudaLaunchHostFunc(S(0x5400), host_fn, P(0x4242));
	cudaStreamSynchronize(S(0x5100));
	printf("host_fn=%p\n", (void *)host_fn);
	return 0;
}
