// SPDX-License-Identifier: MIT
/*
 * sleep_calls N US: N calls of the stand-in cudaStreamSynchronize that
 * sleep US microseconds each (fake_sleep_cudart.c), each between two reads
 * of CLOCK_MONOTONIC, printed as "BEFORE AFTER" in ns: a traced call's
 * start and duration must fall between them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int cudaStreamSynchronize(void *stream);

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, us = argc > 2 ? atol(argv[2]) : 1000;

	for (long i = 0; i < n; i++) {
		unsigned long long a = mono_ns(), b;

		cudaStreamSynchronize((void *)(uintptr_t)us);
		b = mono_ns();
		printf("%llu %llu\n", a, b);
	}
	return 0;
}
