// SPDX-License-Identifier: MIT
/*
 * Forks children that each leave the process group (setsid, as a job
 * launcher's workers do), then load a runtime with dlopen and call
 * cudaMemset(count = the child's number): the watcher stops each at its
 * open, so a test can kill the tracer's whole group while they are stopped.
 * argv: LIB N [wait]. Each child prints "child I PID" before loading and
 * "done I" after its call; the parent waits for them all.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ready.h"

typedef int (*memset_fn)(void *, int, size_t);

static int child(const char *lib, int i)
{
	memset_fn fn;
	void *h;

	setsid();
	printf("child %d %d\n", i, (int)getpid());
	fflush(stdout);
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "fault_forks: %s\n", dlerror());
		return 3;
	}
	fn = (memset_fn)dlsym(h, "cudaMemset");
	if (!fn)
		return 3;
	fn((void *)(uintptr_t)0x1000, 0, (size_t)i);
	printf("done %d\n", i);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	int n, status, err = 0;

	if (argc < 3)
		return 2;
	n = atoi(argv[2]);
	if (!ready_wait(argc, argv, 3))
		return 2;
	for (int i = 1; i <= n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 4;
		if (pid == 0)
			_exit(child(argv[1], i));
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			err = 1;
	return err;
}
