// SPDX-License-Identifier: MIT
/* Uses the stand-in libcudart.so.99, found through RPATH ($ORIGIN/lib). */
#include <stddef.h>
#include <stdio.h>

int cudaMalloc(void **p, size_t size);
int cudaFree(void *p);
int cudaGetDeviceCount(int *n);

int main(void)
{
	void *p = NULL;
	int n = 0;

	cudaGetDeviceCount(&n);
	cudaMalloc(&p, 256);
	cudaFree(p);
	cudaFree(NULL);
	printf("fake_user: %d devices, %p\n", n, p);
	return 0;
}
