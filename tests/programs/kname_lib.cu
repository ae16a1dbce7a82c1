// SPDX-License-Identifier: MIT
/*
 * Kernels in a shared library, launched from a function of that library
 * with cudaLaunchKernel and with <<<>>> (see kname.cu): the host stubs live
 * in the library, not in the executable, so names come from the library's
 * symbols. Built with the runtime linked statically into the library
 * (nvcc's default) and with -cudart shared.
 */
#include <cuda_runtime.h>

namespace lib {
__global__ void lib_fill(int *p, int v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] = v;
}

template <int N> __global__ void lib_unrolled(float *p)
{
#pragma unroll
	for (int i = 0; i < N; i++)
		p[threadIdx.x * N + i] = 0.0f;
}
} // namespace lib

extern "C" int kname_lib_run(void)
{
	int *p = NULL;
	float *f = NULL;
	int v = 7, n = 640;
	void *args_fill[] = { &p, &v, &n };
	void *args_unrolled[] = { &f };

	cudaLaunchKernel((const void *)lib::lib_fill, dim3(5), dim3(128), args_fill, 0, 0);
	cudaLaunchKernel((const void *)lib::lib_unrolled<4>, dim3(6), dim3(32), args_unrolled, 0, 0);
	lib::lib_fill<<<5, 128>>>(p, 7, 640);
	lib::lib_unrolled<4><<<6, 32>>>(f);
	return (int)cudaGetLastError();
}
