// SPDX-License-Identifier: MIT
/*
 * Bytes a traced program chooses, for the tracer's outputs to escape: it
 * sets its comm to argv[1] (prctl PR_SET_NAME; any bytes but NUL), then
 * calls cudaMemset three times and launches a "kernel" whose host stub's
 * symbol name holds ESC [ 2 J and an é (the symbolizer names the launch's
 * func argument from it).
 */
#include <stdio.h>
#include <sys/prctl.h>
#include <cuda_runtime_api.h>

void evil_stub(void) __asm__("\"kern\033[2J\303\251\"");
void evil_stub(void)
{
}

int main(int argc, char **argv)
{
	dim3 one = { 1, 1, 1 };

	if (argc > 1 && prctl(PR_SET_NAME, argv[1], 0, 0, 0)) {
		perror("prctl");
		return 2;
	}
	for (int i = 0; i < 3; i++)
		cudaMemset((void *)0x1000, 0, (size_t)i);
	cudaLaunchKernel((const void *)evil_stub, one, one, NULL, 0, NULL);
	return 0;
}
