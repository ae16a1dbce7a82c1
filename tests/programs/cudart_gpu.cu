// SPDX-License-Identifier: MIT
/*
 * Runtime calls that are valid on a GPU (cudart_calls' made-up handles
 * crash there, as they would untraced): for the driver calls libcudart
 * makes under each runtime call, on the H200 (tests/gpu/inproc_driver.sh).
 * Prints what it computed; build with -cudart shared.
 */
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add(int *p, int v)
{
	p[threadIdx.x] += v + (int)threadIdx.x;
}

int main()
{
	int count = -1, host[64] = { 0 }, *d = nullptr, sum = 0;
	cudaStream_t st = nullptr;
	cudaEvent_t ev = nullptr;

	cudaGetDeviceCount(&count);
	cudaSetDevice(0);
	cudaMalloc(&d, sizeof(host));
	cudaMemcpy(d, host, sizeof(host), cudaMemcpyHostToDevice);
	cudaStreamCreate(&st);
	cudaEventCreate(&ev);
	cudaMemsetAsync(d, 0, sizeof(host), st);
	add<<<1, 64, 0, st>>>(d, 2);
	cudaEventRecord(ev, st);
	cudaStreamSynchronize(st);
	cudaMemcpy(host, d, sizeof(host), cudaMemcpyDeviceToHost);
	for (int i = 0; i < 64; i++)
		sum += host[i];
	cudaEventDestroy(ev);
	cudaStreamDestroy(st);
	cudaFree(d);
	printf("cudart_gpu: %d devices, sum %d, %s\n", count, sum, cudaGetErrorString(cudaGetLastError()));
	return 0;
}
