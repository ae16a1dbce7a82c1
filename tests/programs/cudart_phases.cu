// SPDX-License-Identifier: MIT
/*
 * Calls in phases, for a test that pauses and resumes the tracer between
 * them: prints "ready PID", then for each count N on the command line waits
 * for a line on stdin, makes N calls of cudaMemset (call i of phase p with
 * count p * 1000 + i: a trace says which phase each call was in) and
 * prints "phase P done" once they have all returned.
 */
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <cuda_runtime.h>

int main(int argc, char **argv)
{
	char line[16];

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (int p = 1; p < argc; p++) {
		long n = atol(argv[p]);

		if (!fgets(line, sizeof(line), stdin))
			return 2;
		for (long i = 0; i < n; i++)
			cudaMemset((void *)0x1000, 0, (size_t)(p * 1000 + i));
		printf("phase %d done\n", p);
		fflush(stdout);
	}
	return 0;
}
