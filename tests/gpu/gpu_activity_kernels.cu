// SPDX-License-Identifier: MIT
/*
 * Known device work for --gpu-activity on a GPU: kernels of known length
 * and copies and sets of known size, each run REPS times on one stream,
 * each run timed with its own pair of CUDA events. Prints one JSON object:
 * per operation, the event times (ms) of every run, for
 * run_gpu_activity.sh to set against the device times the tracer recorded.
 */
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                         \
	do {                                                                          \
		cudaError_t e_ = (x);                                                 \
		if (e_ != cudaSuccess) {                                              \
			fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,     \
				cudaGetErrorString(e_));                              \
			exit(1);                                                      \
		}                                                                     \
	} while (0)

/* Spins for `ns` of the device's global timer: a kernel of known length. */
__global__ void spin_kernel(unsigned long long ns)
{
	unsigned long long start, now;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
	while (now - start < ns);
}

__global__ void saxpy_kernel(float *y, const float *x, float a, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		y[i] = a * x[i] + y[i];
}

static const int REPS = 20;

struct op {
	const char *name;
	std::vector<float> ms;
};

int main()
{
	const size_t n = 64u << 20; /* 64 Mi floats: 256 MiB per buffer */
	float *x, *y, *host;
	cudaStream_t s;
	cudaEvent_t a[REPS], b[REPS];
	op ops[] = { { "spin_kernel", {} }, { "saxpy_kernel", {} }, { "memcpy HtoD", {} },
		     { "memcpy DtoH", {} }, { "memset", {} } };

	CK(cudaSetDevice(0));
	CK(cudaStreamCreate(&s));
	CK(cudaMalloc(&x, n * sizeof(float)));
	CK(cudaMalloc(&y, n * sizeof(float)));
	CK(cudaMallocHost(&host, n * sizeof(float)));
	for (size_t i = 0; i < n; i++)
		host[i] = (float)(i % 1000) * 0.001f;
	for (int r = 0; r < REPS; r++) {
		CK(cudaEventCreate(&a[r]));
		CK(cudaEventCreate(&b[r]));
	}
	/* Warm-up: module load, first-touch of the buffers. */
	spin_kernel<<<1, 1, 0, s>>>(1000);
	CK(cudaMemcpyAsync(x, host, n * sizeof(float), cudaMemcpyHostToDevice, s));
	CK(cudaMemsetAsync(y, 0, n * sizeof(float), s));
	saxpy_kernel<<<1056, 256, 0, s>>>(y, x, 2.0f, n);
	CK(cudaStreamSynchronize(s));

	for (int k = 0; k < 5; k++) {
		for (int r = 0; r < REPS; r++) {
			CK(cudaEventRecord(a[r], s));
			switch (k) {
			case 0: spin_kernel<<<1, 1, 0, s>>>(2000000ull); break; /* 2 ms */
			case 1: saxpy_kernel<<<1056, 256, 0, s>>>(y, x, 2.0f, n); break;
			case 2: CK(cudaMemcpyAsync(x, host, n * sizeof(float), cudaMemcpyHostToDevice, s)); break;
			case 3: CK(cudaMemcpyAsync(host, y, n * sizeof(float), cudaMemcpyDeviceToHost, s)); break;
			case 4: CK(cudaMemsetAsync(y, 0x11, n * sizeof(float), s)); break;
			}
			CK(cudaGetLastError());
			CK(cudaEventRecord(b[r], s));
		}
		CK(cudaStreamSynchronize(s));
		for (int r = 0; r < REPS; r++) {
			float ms;

			CK(cudaEventElapsedTime(&ms, a[r], b[r]));
			ops[k].ms.push_back(ms);
		}
	}
	printf("{\"bytes\":%zu,\"reps\":%d", n * sizeof(float), REPS);
	for (auto &o : ops) {
		printf(",\"%s\":[", o.name);
		for (size_t i = 0; i < o.ms.size(); i++)
			printf("%s%.6f", i ? "," : "", o.ms[i]);
		printf("]");
	}
	printf("}\n");
	CK(cudaFreeHost(host));
	CK(cudaFree(x));
	CK(cudaFree(y));
	return 0;
}
