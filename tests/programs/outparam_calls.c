// SPDX-License-Identifier: MIT
/*
 * Out-parameters in each kind of place, filled in by the stand-in runtime
 * (fake_out_cudart.c), for the in-process engine's reads at return against
 * the eBPF engine's: on the stack, in the executable's data, at the end of
 * a page whose next page is not mapped (an 8-byte pointer: read whole in
 * its page; a 4-byte int: the engines' 8-byte read runs into the next page
 * and fails, the program goes on), and a failed call's, which the runtime
 * did not write. Prints what it got: the same traced and not.
 */
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>

int cudaGetDeviceCount(int *n);
int cudaMalloc(void **p, size_t size);

static int g_count;
static void *g_ptr;

int main(void)
{
	/* Pages 0 and 2 mapped, 1 and 3 not. */
	char *pg = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void **last_word = (void **)(pg + 4096 - 8), *got;
	int *last_int = (int *)(pg + 3 * 4096 - 4), n = 0;

	if (pg == MAP_FAILED || mprotect(pg + 4096, 4096, PROT_NONE) || mprotect(pg + 3 * 4096, 4096, PROT_NONE))
		return 1;
	cudaGetDeviceCount(&n);
	cudaGetDeviceCount(&g_count);
	cudaMalloc(&g_ptr, 256);
	got = g_ptr;
	cudaMalloc(last_word, 512);
	cudaGetDeviceCount(last_int);
	g_ptr = (void *)0x1234;
	cudaMalloc(&g_ptr, 0);
	printf("outparams: %d %d %p %p %d %p\n", n, g_count, got, *last_word, *last_int, g_ptr);
	return 0;
}
