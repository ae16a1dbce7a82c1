// SPDX-License-Identifier: MIT
/*
 * A stand-in libcudart for the fault tests (built as fault/lib/libcudart.so.98):
 *  - cudaMemcpy calls the library's own exported cudaMemset, through the PLT,
 *    so that one traced call runs inside another (a nested call, depth 1);
 *    it sleeps before and after, so the outer call visibly covers the inner;
 *  - cudaMemset returns after `value` ms of sleep (0: at once);
 *  - cudaDeviceSynchronize never returns while CT_FAULT_BLOCK is set, so a
 *    test can kill the program in the middle of a traced call.
 */
#include <stddef.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (ms > 0 && nanosleep(&ts, &ts))
		;
}

/* noinline and exported: the call from cudaMemcpy stays a real call into the
 * probed function, as a runtime calling its own public API does. */
static volatile size_t last_count;

__attribute__((noinline, visibility("default")))
int cudaMemset(void *p, int value, size_t count)
{
	/* Used, so that no compiler drops it from the nested call's registers. */
	last_count = count;
	if (value > 0 && value < 1000)
		sleep_ms(value);
	return p ? 0 : 1;
}

__attribute__((visibility("default")))
int cudaMemcpy(void *dst, const void *src, size_t count, int kind)
{
	int err;

	sleep_ms(2);
	err = cudaMemset(dst, 3, count);
	sleep_ms(2);
	return err;
}

__attribute__((visibility("default")))
int cudaDeviceSynchronize(void)
{
	if (getenv("CT_FAULT_BLOCK"))
		for (;;)
			pause();
	return 0;
}
