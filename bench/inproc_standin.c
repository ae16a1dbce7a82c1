// SPDX-License-Identifier: MIT
/*
 * A stand-in runtime of two functions for bench/inproc_micro: each returns
 * at once, succeeding, so that what --engine inproc adds to a call is
 * measured alone (no runtime's own work, no other tracer's uprobes on a
 * shared libcudart). Built as bench/standin/libcudart.so.94.
 */
#include <stddef.h>

int cudaGetDevice(int *d)
{
	*d = 0;
	return 0;
}

int cudaMemsetAsync(void *p, int v, size_t n, void *stream)
{
	return 0;
}
