// SPDX-License-Identifier: MIT
/*
 * The fault tests' program, linked with the stand-in fault/lib/libcudart.so.98:
 *   fault_user nested N        N cudaMemcpy calls, each calling cudaMemset inside
 *   fault_user block           cudaMemset(count 1..3), then a cudaDeviceSynchronize
 *                              that never returns (run with CT_FAULT_BLOCK=1)
 *   fault_user exec PROG ARGS  cudaMemset(count 1), then execv(PROG, [PROG, ARGS])
 * Every mode prints "ready PID" first.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cudaMemset(void *p, int value, size_t count);
int cudaMemcpy(void *dst, const void *src, size_t count, int kind);
int cudaDeviceSynchronize(void);

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	printf("ready %d\n", getpid());
	fflush(stdout);
	if (!strcmp(argv[1], "nested")) {
		long n = argc > 2 ? atol(argv[2]) : 1;

		for (long i = 0; i < n; i++)
			cudaMemcpy((void *)(uintptr_t)0x5000, (void *)(uintptr_t)0x6000, (size_t)(100 + i), 1);
		return 0;
	}
	if (!strcmp(argv[1], "block")) {
		for (size_t i = 1; i <= 3; i++)
			cudaMemset((void *)(uintptr_t)0x1000, 0, i);
		printf("blocking\n");
		fflush(stdout);
		cudaDeviceSynchronize();
		return 0;
	}
	if (!strcmp(argv[1], "exec") && argc > 2) {
		cudaMemset((void *)(uintptr_t)0x1000, 0, 1);
		execv(argv[2], &argv[2]);
		perror("fault_user: execv");
		return 127;
	}
	return 2;
}
