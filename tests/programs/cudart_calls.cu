// SPDX-License-Identifier: MIT
/*
 * A fixed sequence of CUDA runtime calls with known arguments, for the
 * tests that pin the decoded events. Pointers, streams and events are
 * made-up values: without a GPU every call fails before touching them.
 */
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void touch(int *p)
{
	p[threadIdx.x] = 1;
}

#define P(x) ((void *)(uintptr_t)(x))
#define S(x) ((cudaStream_t)(uintptr_t)(x))
#define E(x) ((cudaEvent_t)(uintptr_t)(x))

int main()
{
	void *p = nullptr;
	int count = -1, dev = -1;
	size_t free_b = 0, total_b = 0;
	float ms = 0;
	cudaStream_t st = nullptr;
	cudaEvent_t ev = nullptr;
	void *kargs[1] = { &p };

	cudaGetDeviceCount(&count);
	cudaSetDevice(3);
	cudaGetDevice(&dev); /* a hot getter: traced only with profile = full */
	cudaMalloc(&p, 4096);
	cudaMallocHost(&p, 8192);
	cudaHostAlloc(&p, 12288, cudaHostAllocMapped);
	cudaMallocManaged(&p, 16384, cudaMemAttachGlobal);
	cudaMallocAsync(&p, 20480, S(0x5100));
	cudaMemcpy(P(0x1000), P(0x2000), 1000, cudaMemcpyHostToDevice);
	cudaMemcpyAsync(P(0x3000), P(0x4000), 2000, cudaMemcpyDeviceToHost, S(0x5100));
	cudaMemcpy2D(P(0x1000), 512, P(0x2000), 256, 200, 30, cudaMemcpyDeviceToDevice);
	cudaMemcpy2DAsync(P(0x1000), 512, P(0x2000), 256, 100, 40, cudaMemcpyHostToDevice, S(0x5200));
	cudaMemset(P(0x6000), 0x5a, 3000);
	cudaMemsetAsync(P(0x7000), 7, 4000, S(0x5100));
	cudaLaunchKernel((const void *)touch, dim3(7, 5, 3), dim3(32, 4, 2), kargs, 1024, S(0x5300));
	touch<<<dim3(9, 8, 1), dim3(64, 1, 1), 0, S(0x5400)>>>((int *)p);
	{
		cudaLaunchConfig_t cfg = {};
		cfg.gridDim = dim3(11, 12, 13);
		cfg.blockDim = dim3(14, 15, 16);
		cfg.dynamicSmemBytes = 2048;
		cfg.stream = S(0x5500);
		cudaLaunchKernelExC(&cfg, (const void *)touch, kargs);
	}
	cudaStreamCreate(&st);
	cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
	cudaEventCreate(&ev);
	cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
	cudaEventRecord(E(0xe100), S(0x5100));
	cudaStreamWaitEvent(S(0x5100), E(0xe100), 0);
	cudaEventSynchronize(E(0xe100));
	cudaEventElapsedTime(&ms, E(0xe100), E(0xe200));
	cudaEventDestroy(E(0xe100));
	cudaGraphLaunch((cudaGraphExec_t)P(0x9900), S(0x5100));
	cudaStreamSynchronize(S(0x5100));
	cudaStreamDestroy(S(0x5100));
	cudaMemGetInfo(&free_b, &total_b);
	cudaFreeAsync(P(0x8000), S(0x5100));
	cudaFreeHost(P(0x8100));
	cudaFree(P(0x8200));
	cudaDeviceSynchronize();
	printf("cudart_calls: done\n");
	return 0;
}
