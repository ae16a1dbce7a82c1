// SPDX-License-Identifier: MIT
/*
 * A process that is inside runtime calls all the time: two threads call the
 * stand-in libcudart's cudaFree() in a tight loop from the start, before a
 * tracer attaches, so that calls are in flight whenever probes go live.
 * Each call's pointer says whose it is and its number: thread T's call N
 * frees (T + 1) << 40 | N.
 *
 * IDLE children that only wait (forked first) map the library too, so that
 * every probe takes longer to install, as on a host where many processes
 * map the runtime.
 *
 *   busy_calls [IDLE]   prints "ready PID RATE" (RATE: calls a second of
 *                       both threads together, untraced, over 0.1 s), then
 *                       answers each "mark" on stdin with "mark N1 N2":
 *                       how many calls each thread has finished (thread T's
 *                       calls numbered below N_T have returned, none above
 *                       has begun); ends at "stop" or at the end of stdin.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

int cudaFree(void *p);

#define THREADS 2

static atomic_bool stop;
static _Atomic uint64_t count[THREADS]; /* calls each thread has finished */

static void *loop(void *arg)
{
	uint64_t t = (uintptr_t)arg, tag = (t + 1) << 40, n = 0;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		cudaFree((void *)(uintptr_t)(tag | n));
		atomic_store_explicit(&count[t], ++n, memory_order_relaxed);
	}
	return NULL;
}

static uint64_t total(void)
{
	uint64_t sum = 0;

	for (int t = 0; t < THREADS; t++)
		sum += atomic_load(&count[t]);
	return sum;
}

int main(int argc, char **argv)
{
	int idle = argc > 1 ? atoi(argv[1]) : 0;
	struct timespec tenth = { 0, 100 * 1000 * 1000 };
	pthread_t th[THREADS];
	uint64_t before;
	char line[32];

	for (int i = 0; i < idle; i++) {
		pid_t c = fork();

		if (c < 0)
			return 1;
		if (c == 0) { /* ends with its parent */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			pause();
			_exit(0);
		}
	}
	for (uintptr_t t = 0; t < THREADS; t++)
		if (pthread_create(&th[t], NULL, loop, (void *)t))
			return 1;
	/* The untraced rate, over a tenth of a second. */
	before = total();
	nanosleep(&tenth, NULL);
	printf("ready %d %llu\n", (int)getpid(), (unsigned long long)(total() - before) * 10);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) && strncmp(line, "stop", 4)) {
		if (strncmp(line, "mark", 4))
			continue;
		printf("mark");
		for (int t = 0; t < THREADS; t++)
			printf(" %llu", (unsigned long long)atomic_load(&count[t]));
		printf("\n");
		fflush(stdout);
	}
	atomic_store(&stop, true);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	return 0;
}
