// SPDX-License-Identifier: MIT
/*
 * The bundled sample: a small CUDA program that allocates, copies, launches
 * a kernel and synchronises. On a machine without a GPU every call fails
 * with cudaErrorInsufficientDriver (35) and the tracer still sees each one.
 */
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float *v, float k, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		v[i] *= k;
}

int main()
{
	const int n = 1 << 20;
	const size_t bytes = n * sizeof(float);
	static float host[1 << 20];
	float *dev = nullptr;
	cudaStream_t stream = nullptr;
	int count = -1;

	cudaGetDeviceCount(&count);
	cudaMalloc((void **)&dev, bytes);
	cudaStreamCreate(&stream);
	cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
	scale<<<dim3(n / 256), dim3(256), 0, stream>>>(dev, 2.0f, n);
	cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, stream);
	cudaStreamSynchronize(stream);
	cudaStreamDestroy(stream);
	cudaFree(dev);
	cudaError_t err = cudaDeviceSynchronize();
	printf("sample: %d device(s), last result %s\n", count, cudaGetErrorName(err));
	return err == cudaSuccess ? 0 : 1;
}
