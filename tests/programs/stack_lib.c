// SPDX-License-Identifier: MIT
/* A library stack_calls dlopens and deletes before calling it (test_stacks.py). */
#include <stddef.h>

int cudaMalloc(void **p, size_t size);

__attribute__((noinline)) int stack_lib_alloc(void)
{
	void *p = NULL;
	int r = cudaMalloc(&p, 512);

	__asm__ volatile("" ::: "memory");
	return r;
}
