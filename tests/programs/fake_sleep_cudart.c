// SPDX-License-Identifier: MIT
/*
 * A stand-in libcudart whose cudaStreamSynchronize takes a known time: it
 * sleeps for as many microseconds as its stream handle says, so that the
 * duration a tracer records can be checked against the truth (the clock
 * tests of --engine inproc). Built as libcudart.so.96 in a folder of its own.
 */
#include <stdint.h>
#include <time.h>

int cudaStreamSynchronize(void *stream)
{
	uint64_t us = (uint64_t)(uintptr_t)stream;
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts))
		;
	return 0;
}
