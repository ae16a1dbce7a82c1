// SPDX-License-Identifier: MIT
/*
 * LD_PRELOAD'ed by test_fault_target_files.py: a process that has made its
 * calls stays alive CT_HOLD_EXIT_MS more at exit, so that the tracer names
 * them while the process's root (/proc/PID/root, a mount namespace of its
 * own) can still be looked in.
 */
#include <stdlib.h>
#include <time.h>

__attribute__((destructor)) static void hold_exit(void)
{
	const char *ms = getenv("CT_HOLD_EXIT_MS");
	long n = ms ? strtol(ms, NULL, 10) : 0;
	struct timespec ts = { n / 1000, (n % 1000) * 1000000 };

	while (n > 0 && nanosleep(&ts, &ts))
		;
}
