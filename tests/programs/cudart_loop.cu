// SPDX-License-Identifier: MIT
/* N calls of cudaMemset in a tight loop, call i with count i: a test can
 * tell exactly which calls it saw. Optionally waits for a line on stdin
 * first ("wait"), so that a tracer can attach with -p. */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <cuda_runtime.h>
#include "ready.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	if (!ready_wait(argc, argv, 2))
		return 2;
	for (long i = 0; i < n; i++)
		cudaMemset((void *)0x1000, 0, (size_t)i);
	printf("loop: %ld calls\n", n);
	return 0;
}
