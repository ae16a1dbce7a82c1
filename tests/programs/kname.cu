// SPDX-License-Identifier: MIT
/*
 * Kernels in the executable: a plain kernel, a template kernel in a
 * namespace (two instances) and an extern "C" kernel, each launched twice:
 *  - with cudaLaunchKernel(func, ...), whose func is the kernel's host stub,
 *    a function nvcc emits under the kernel's mangled name; the tracer
 *    resolves it to the demangled name;
 *  - with <<<>>>, which CUDA 13's nvcc turns into __cudaGetKernel(&handle,
 *    stub) once per kernel and __cudaLaunchKernel(handle, ...).
 * `kname maps` also prints the libcudart this process mapped, so that a
 * test can see which copy of the runtime was used.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__global__ void vec_add(float *out, const float *in, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] += in[i];
}

namespace ct {
template <typename T> __global__ void scale(T *p, T k, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] *= k;
}
} // namespace ct

extern "C" __global__ void plain_c_kernel(int *p)
{
	p[threadIdx.x] = 1;
}

static void print_runtime(void)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (path && strstr(path, "libcudart")) {
			printf("runtime: %s", path);
			break;
		}
	}
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	float *f = NULL;
	double *d = NULL;
	int *p = NULL;
	int n = 128;
	float k = 2.0f;
	double kd = 0.5;
	void *args_add[] = { &f, &f, &n };
	void *args_f[] = { &f, &k, &n };
	void *args_d[] = { &d, &kd, &n };
	void *args_c[] = { &p };

	cudaLaunchKernel((const void *)vec_add, dim3(2), dim3(64), args_add, 0, 0);
	cudaLaunchKernel((const void *)ct::scale<float>, dim3(3), dim3(32), args_f, 0, 0);
	cudaLaunchKernel((const void *)ct::scale<double>, dim3(4), dim3(16), args_d, 0, 0);
	cudaLaunchKernel((const void *)plain_c_kernel, dim3(1), dim3(8), args_c, 0, 0);

	vec_add<<<2, 64>>>(f, f, 128);
	ct::scale<float><<<3, 32>>>(f, 2.0f, 96);
	ct::scale<double><<<4, 16>>>(d, 0.5, 64);
	plain_c_kernel<<<1, 8>>>(p);
	printf("last error: %d\n", (int)cudaGetLastError());
	if (argc > 1 && !strcmp(argv[1], "maps"))
		print_runtime();
	if (argc > 1 && !strcmp(argv[1], "linger"))
		usleep(300000); /* a job that lives past the tracer's first look at it */
	return 0;
}
