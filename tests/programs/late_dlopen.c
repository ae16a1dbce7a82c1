// SPDX-License-Identifier: MIT
/* Loads a CUDA runtime with dlopen only after starting (as PyTorch does
 * with its own libcudart) and calls it at once: the tracer must catch the
 * very first call. argv[1]: the library's path. With "wait", waits for a
 * line on stdin before loading (for -p). With "hold", it first reads the
 * file's ELF magic (open, read, close, as a package manager or Python's
 * ctypes.util do: a descriptor gone at once), prints "opened PID" and waits
 * for a line; then loads it, prints "loaded PID" and waits for a line before
 * calling. System-wide mode stops no process: the driver lets it go on once
 * the tracer has seen the open, and has probed the file. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ready.h"

/* "hold": say what is done, then wait for the driver's line. */
static bool hold_here(bool hold, const char *what)
{
	char line[16];

	if (!hold)
		return true;
	printf("%s %d\n", what, (int)getpid());
	fflush(stdout);
	return fgets(line, sizeof(line), stdin) != NULL;
}

typedef int (*count_fn)(int *);
typedef int (*malloc_fn)(void **, size_t);

int main(int argc, char **argv)
{
	bool hold = argc > 2 && !strcmp(argv[2], "hold");
	void *h, *p = NULL;
	int n = -1;

	if (argc < 2)
		return 2;
	if (!ready_wait(argc, argv, 2))
		return 2;
	if (hold) {
		char magic[4];
		int fd = open(argv[1], O_RDONLY | O_CLOEXEC);

		if (fd < 0 || read(fd, magic, 4) != 4 || memcmp(magic, "\177ELF", 4))
			return 3;
		close(fd);
	}
	if (!hold_here(hold, "opened"))
		return 2;
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "late_dlopen: %s\n", dlerror());
		return 3;
	}
	if (!hold_here(hold, "loaded"))
		return 2;
	((count_fn)dlsym(h, "cudaGetDeviceCount"))(&n);
	((malloc_fn)dlsym(h, "cudaMalloc"))(&p, 777);
	printf("late_dlopen: done\n");
	return 0;
}
