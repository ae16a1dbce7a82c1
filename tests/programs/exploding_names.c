// SPDX-License-Identifier: MIT
/*
 * Names a traced program chooses, at their worst (test_cudart_exploding_names.py):
 *     exploding_names LIBCUDART
 * launches a "kernel" whose host stub is named by a short mangled name that
 * demangles exponentially (tests/unit/exponential_name.h's shape, 30
 * levels: some 400 bytes mangled, gigabytes demangled), through
 * cudaLaunchKernel of the runtime at LIBCUDART (without a GPU it fails; the
 * probes fire all the same), from a function whose own name is a mangled
 * one of 5000 bytes (past what any name is kept to). Plain C: the names are
 * asm labels. Prints the launch's result.
 */
#include <dlfcn.h>
#include <stdio.h>

/* Level k of the name: A<level k-1, level k-1>, both by back-reference. */
#define L(k) "S0_IS" #k "_S" #k "_E"
#define EXPLODING "_Z1f1x1AIS_S_E" L(1) L(2) L(3) L(4) L(5) L(6) L(7) L(8) L(9) L(A) L(B) L(C) L(D) L(E) \
	L(F) L(G) L(H) L(I) L(J) L(K) L(L) L(M) L(N) L(O) L(P) L(Q) L(R) L(S) L(T) L(U)
#define X10 "xxxxxxxxxx"
#define X1000 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 \
	X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 \
	X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 \
	X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 \
	X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10
#define LONG "_Z5000" X1000 X1000 X1000 X1000 X1000 "v"

/* dim3 by value: x|y<<32 in one register, z in the next. */
typedef int (*launch_fn)(const void *func, unsigned long grid_xy, unsigned grid_z, unsigned long block_xy,
			 unsigned block_z, void **args, size_t shared, void *stream);

__attribute__((noinline, used)) void kernel_stub(void) __asm__(EXPLODING);
__attribute__((noinline, used)) void kernel_stub(void)
{
	__asm__ volatile("");
}

__attribute__((noinline, used)) int launch(launch_fn fn) __asm__(LONG);
__attribute__((noinline, used)) int launch(launch_fn fn)
{
	int r = fn((const void *)kernel_stub, 1ul | 1ul << 32, 1, 32ul | 1ul << 32, 1, NULL, 0, NULL);

	__asm__ volatile("" ::: "memory"); /* no tail call: this frame stays */
	return r;
}

int main(int argc, char **argv)
{
	void *rt = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	launch_fn fn = rt ? (launch_fn)dlsym(rt, "cudaLaunchKernel") : NULL;

	if (!fn) {
		fprintf(stderr, "usage: exploding_names LIBCUDART (%s)\n", dlerror());
		return 2;
	}
	printf("cudaLaunchKernel: %d\n", launch(fn));
	return 0;
}
