// SPDX-License-Identifier: MIT
/*
 * Calls whose stacks test_stacks.py knows: main -> outer -> inner ->
 * cudaMalloc, built twice (stack_calls_fp with frame pointers, and
 * stack_calls_nofp at -O2 without them); the functions are noinline and
 * not tail calls, so both keep every frame. Modes:
 *   (none)        inner's cudaMalloc twice from one site (never freed), other_site's once and freed
 *   deep N        cudaMalloc under N frames of recurse(), some 300 bytes each
 *   errors        failing calls from two sites: err_site_a's cudaFree(NULL) twice, err_site_b's once
 *   deleted LIB [hold]  dlopen LIB, delete it, call its stack_lib_alloc() (cudaMalloc
 *                 under it); with hold, wait a second before exiting
 * Linked with the stand-in libcudart.so.99 (tests/cudart.cmake): its
 * cudaMalloc succeeds, so that allocations stay live for the memory sink.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int cudaMalloc(void **p, size_t size);
int cudaFree(void *p);

#define KEEP __attribute__((noinline, used))

KEEP int inner(size_t bytes)
{
	void *p = NULL;
	int r = cudaMalloc(&p, bytes);

	__asm__ volatile("" ::: "memory"); /* no tail call: the frame stays */
	return r;
}

KEEP int outer(size_t bytes)
{
	int r = inner(bytes);

	__asm__ volatile("" ::: "memory");
	return r + 0;
}

KEEP int other_site(void)
{
	void *p = NULL;
	int r = cudaMalloc(&p, 4096);

	__asm__ volatile("" ::: "memory");
	return r + cudaFree(p);
}

KEEP int err_site_a(void)
{
	int r = cudaFree(NULL); /* the stand-in fails it: 1, cudaErrorInvalidValue */

	__asm__ volatile("" ::: "memory");
	return r;
}

KEEP int err_site_b(void)
{
	int r = cudaFree(NULL);

	__asm__ volatile("" ::: "memory");
	return r;
}

/* A frame of some 300 bytes: a copy of a few KiB of stack (method dwarf)
 * ends within tens of them, well before stacks' 126 frames at most. */
KEEP int recurse(int n)
{
	volatile char pad[256];
	int r;

	pad[0] = (char)n;
	r = n > 0 ? recurse(n - 1) : outer(64);
	__asm__ volatile("" ::: "memory");
	return r + pad[0];
}

/*
 * "jit": inner() called from code in anonymous executable memory, as a JIT
 * makes it: push rbp; mov rbp, rsp; mov rdi, 4096; call rsi; pop rbp; ret,
 * with a frame pointer of its own, so the kernel's walk goes through it.
 */
KEEP int jit_call(void)
{
#if defined(__x86_64__)
	static const unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xc7, 0xc7, 0x00, 0x10, 0x00, 0x00,
					      0xff, 0xd6, 0x5d, 0xc3 };
	int (*thunk)(long, int (*)(size_t));
	void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return 2;
	memcpy(m, code, sizeof(code));
	if (mprotect(m, 4096, PROT_READ | PROT_EXEC))
		return 2;
	thunk = (int (*)(long, int (*)(size_t)))m;
	return thunk(0, inner) == 0 ? 0 : 1;
#else
	return 3;
#endif
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "jit"))
		return jit_call();
	if (argc >= 2 && !strcmp(argv[1], "deep") && argc == 3)
		return recurse(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "errors")) {
		int r = 0;

		for (int i = 0; i < 2; i++) /* one call site: one stack */
			r += err_site_a();
		return r + err_site_b() == 3 ? 0 : 1;
	}
	if (argc >= 3 && !strcmp(argv[1], "deleted")) {
		void *h = dlopen(argv[2], RTLD_NOW);
		int (*fn)(void);
		int r;

		if (!h) {
			fprintf(stderr, "stack_calls: %s\n", dlerror());
			return 2;
		}
		fn = (int (*)(void))dlsym(h, "stack_lib_alloc");
		unlink(argv[2]);
		r = fn ? fn() : 2;
		if (argc == 4) /* "hold": still mapped while the tracer reads the call */
			sleep(1);
		return r;
	}
	for (int i = 1; i <= 2; i++) /* one site, two live allocations (the stand-in's pointers differ by size) */
		outer((size_t)i << 20);
	other_site();
	return 0;
}
