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

/* Defined in assembly: a C asm label is the symbol name as gcc's assembler
 * reads it (quotes stripped) but taken literally by clang, quotes included.
 * The local label evil_stub (no type: the symbolizer names functions only)
 * is what C refers to. */
__asm__(".text\n"
	".globl \"kern\033[2J\303\251\"\n"
	".type \"kern\033[2J\303\251\", @function\n"
	"\"kern\033[2J\303\251\":\n"
	"evil_stub:\n"
	"\tret\n"
	".size \"kern\033[2J\303\251\", 1\n");
void evil_stub(void);

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
