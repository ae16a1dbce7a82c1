// SPDX-License-Identifier: MIT
/*
 * A process the watcher holds at its dlopen of a runtime, for
 * test_fault_hold.py. argv[1]: the mode, argv[2]: the library.
 *
 * signals: counts the SIGUSR1s it receives; prints "ready PID", waits for
 * a line on stdin (the driver is then watching for the hold), loads the
 * library, calls cudaGetDeviceCount, and prints "usr1 N".
 *
 * threads: two threads spin, each noting the longest time between two of
 * its turns; a third loads the library and calls it. Prints "ready PID",
 * waits for a line, and at the end "gap_ms N": the shorter of the two
 * spinners' longest gaps (a spinner that ran during the hold has a short one).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t usr1;
static atomic_int spinning = 1, started;
static const char *lib;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *spin(void *arg)
{
	double *gap = arg, last = now_ms();

	atomic_fetch_add(&started, 1);
	while (atomic_load(&spinning)) {
		double t = now_ms();

		if (t - last > *gap)
			*gap = t - last;
		last = t;
	}
	return NULL;
}

typedef int (*count_fn)(int *);

static void *load(void *arg)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	int n = -1;

	if (!h) {
		fprintf(stderr, "held_task: %s\n", dlerror());
		return NULL;
	}
	((count_fn)dlsym(h, "cudaGetDeviceCount"))(&n);
	*(int *)arg = 1;
	return NULL;
}

static int ready(void)
{
	char line[16];

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	return fgets(line, sizeof(line), stdin) != NULL;
}

int main(int argc, char **argv)
{
	pthread_t spinners[2], loader;
	double gaps[2] = { 0, 0 };
	int loaded = 0;

	if (argc < 3)
		return 2;
	lib = argv[2];
	if (!strcmp(argv[1], "signals")) {
		signal(SIGUSR1, on_usr1);
		if (!ready())
			return 2;
		load(&loaded);
		/* A signal pending at the release is delivered as the dlopen returns. */
		printf("usr1 %d\n", (int)usr1);
		return loaded ? 0 : 3;
	}
	if (strcmp(argv[1], "threads"))
		return 2;
	if (!ready())
		return 2;
	for (int i = 0; i < 2; i++)
		pthread_create(&spinners[i], NULL, spin, &gaps[i]);
	while (atomic_load(&started) < 2) /* both spinning before the load is held */
		;
	pthread_create(&loader, NULL, load, &loaded);
	pthread_join(loader, NULL);
	atomic_store(&spinning, 0);
	for (int i = 0; i < 2; i++)
		pthread_join(spinners[i], NULL);
	printf("gap_ms %.0f\n", gaps[0] < gaps[1] ? gaps[0] : gaps[1]);
	return loaded ? 0 : 3;
}
