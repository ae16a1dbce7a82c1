// SPDX-License-Identifier: MIT
/*
 * Kernels that driver_module loads at run time from the PTX nvcc makes of
 * this file: one with a C++ (mangled) name, one extern "C".
 */
__global__ void drv_scale(float *p, int n, float k)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] *= k;
}

extern "C" __global__ void drv_fill(float *p, int n, float v)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] = v;
}
