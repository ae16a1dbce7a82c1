// SPDX-License-Identifier: MIT
/*
 * ct-syscalls [N]: the cost of one syscall (getppid), best of 5 loops of N.
 * Run beside a tracer to see what it costs every other process on the
 * machine (bench/syscall_tax.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300000, best = -1;

	for (int r = 0; r < 5; r++) {
		struct timespec a, b;
		long ns;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (long i = 0; i < n; i++)
			syscall(SYS_getppid);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns = ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec) / n;
		if (best < 0 || ns < best)
			best = ns;
	}
	printf("%ld\n", best);
	return 0;
}
