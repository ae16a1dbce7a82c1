// SPDX-License-Identifier: MIT
/*
 * kname_wait LIB: loads LIB (libkname_lib_*.so: its kernels registered as
 * it loads), says "ready", and at each line on stdin runs kname_lib_run()
 * once and says "launched"; "end" ends it. A tracer attached with -p after
 * "ready" came after the registrations.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char line[64];
	void *lib = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	int (*run)(void);

	if (!lib || !(run = (int (*)(void))dlsym(lib, "kname_lib_run"))) {
		fprintf(stderr, "kname_wait: %s\n", lib ? dlerror() : argc > 1 ? dlerror() : "usage: kname_wait LIB");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) && strcmp(line, "end\n")) {
		run();
		printf("launched\n");
		fflush(stdout);
	}
	return 0;
}
