// SPDX-License-Identifier: MIT
/* An executable with no kernels of its own: they are in libkname_lib_*.so. */
#include <stdio.h>

int kname_lib_run(void);

int main(void)
{
	printf("last error: %d\n", kname_lib_run());
	return 0;
}
