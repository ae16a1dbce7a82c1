// SPDX-License-Identifier: MIT
/*
 * CUDA runtime calls beyond the hand-written rows of the cudart plugin, in a
 * known order with known arguments: their rows are generated from
 * cuda_runtime_api.h (tools/gen_apis.py), and test_cudart_wide.py checks
 * each call is traced once with its arguments decoded by name. Without a GPU
 * every call fails (or, for cudaCreateChannelDesc, only builds a value);
 * the probes fire all the same. Stack arguments (a cudaExtent, a
 * cudaPitchedPtr by value), a small struct in one register (cudaMemLocation),
 * dim3 in two, and a struct returned in memory (cudaCreateChannelDesc) are
 * all here.
 */
#include <stdint.h>
#include <stdio.h>
#include <cuda_runtime_api.h>
#include <cuda_profiler_api.h>

#define P(x) ((void *)(uintptr_t)(x))

static void kernel_stub(void)
{
}

int main(void)
{
	void *p = NULL;
	size_t pitch = 0;
	struct cudaPitchedPtr pp = { 0 };
	struct cudaExtent ext = { 64, 32, 4 };
	struct cudaPitchedPtr at = { P(0x1234), 256, 64, 8 };
	struct cudaExtent ext3 = { 64, 8, 2 };
	struct cudaMemLocation dev1 = { .type = cudaMemLocationTypeDevice, .id = 1 };
	struct cudaMemLocation host = { .type = cudaMemLocationTypeHost, .id = 0 };
	struct cudaChannelFormatDesc desc;
	struct cudaMemPoolProps props = { 0 };
	cudaIpcMemHandle_t ipc;
	cudaGraphExec_t exec;
	cudaMemPool_t pool;
	cudaArray_t arr;
	static char host_buf[8192];
	static int symbol;
	void *args[1] = { &p };
	size_t limit = 0;

	cudaMallocPitch(&p, &pitch, 300, 20);
	cudaMalloc3D(&pp, ext);
	cudaMemcpyPeer(P(0x1000), 1, P(0x2000), 2, 777);
	cudaMemcpyToSymbol(&symbol, host_buf, 16, 4, cudaMemcpyHostToDevice);
	cudaMemset2D(P(0x3000), 512, 9, 100, 7);
	cudaMemPrefetchAsync(P(0x4000), 4096, dev1, 0, (cudaStream_t)P(0x5100));
	cudaMemAdvise(P(0x4000), 4096, cudaMemAdviseSetReadMostly, host);
	cudaHostRegister(host_buf, sizeof(host_buf), cudaHostRegisterPortable);
	cudaHostUnregister(host_buf);
	cudaStreamBeginCapture((cudaStream_t)P(0x5100), cudaStreamCaptureModeRelaxed);
	cudaGraphInstantiate(&exec, (cudaGraph_t)P(0x9900), 0);
	cudaFuncSetAttribute((const void *)kernel_stub, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);
	cudaLaunchCooperativeKernel((const void *)kernel_stub, (dim3){ 2, 3, 4 }, (dim3){ 5, 6, 7 }, args, 128,
				    (cudaStream_t)P(0x5200));
	cudaMemPoolCreate(&pool, &props);
	cudaMallocFromPoolAsync(&p, 1024, (cudaMemPool_t)P(0x7700), (cudaStream_t)P(0x5100));
	cudaIpcGetMemHandle(&ipc, P(0x8800));
	desc = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindUnsigned);
	cudaMallocArray(&arr, &desc, 32, 16, 0);
	cudaMemset3D(at, 3, ext3);
	cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20);
	cudaDeviceGetLimit(&limit, cudaLimitStackSize); /* a getter: the full profile only */
	cudaDeviceEnablePeerAccess(3, 0);
	cudaProfilerStart();
	cudaProfilerStop();
	printf("cudart_wide: done\n");
	return 0;
}
