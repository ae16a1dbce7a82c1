// SPDX-License-Identifier: MIT
/*
 * Loads a runtime with dlopen, calls cudaMemset(count 1), unloads it with
 * dlclose and checks that it is gone from /proc/self/maps, then loads it
 * again and calls cudaMemset(count 2). argv[1]: the library's path; with
 * "wait" as argv[2], waits for a line on stdin first (for -p).
 * Exit status 3: the library could not be loaded; 4: dlclose left it mapped.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ready.h"

typedef int (*memset_fn)(void *, int, size_t);

static int mapped(const char *path)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	int hit = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, path))
			hit = 1;
	fclose(f);
	return hit;
}

static int call_once(const char *path, size_t count)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	memset_fn fn;

	if (!h) {
		fprintf(stderr, "fault_dlclose: %s\n", dlerror());
		return 3;
	}
	fn = (memset_fn)dlsym(h, "cudaMemset");
	if (!fn)
		return 3;
	fn((void *)(uintptr_t)0x1000, 0, count);
	dlclose(h);
	if (mapped(path)) {
		fprintf(stderr, "fault_dlclose: %s still mapped after dlclose\n", path);
		return 4;
	}
	printf("unloaded %zu\n", count);
	return 0;
}

int main(int argc, char **argv)
{
	int err;

	if (argc < 2)
		return 2;
	if (!ready_wait(argc, argv, 2))
		return 2;
	err = call_once(argv[1], 1);
	if (!err)
		err = call_once(argv[1], 2);
	return err;
}
