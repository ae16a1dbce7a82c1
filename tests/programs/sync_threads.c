// SPDX-License-Identifier: MIT
/*
 * sync_threads N US: N threads, each in one call of the stand-in
 * cudaStreamSynchronize that sleeps US microseconds (fake_sleep_cudart.c),
 * all in flight at once: a process with that many calls stuck, for the
 * hang tests' bounds. Each thread waits at a barrier before its call, so
 * every call begins within the time the last thread takes to start.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int cudaStreamSynchronize(void *stream);

static pthread_barrier_t start;
static long us;

static void *one(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	cudaStreamSynchronize((void *)(uintptr_t)us);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	pthread_attr_t a;

	us = argc > 2 ? atol(argv[2]) : 1000;
	if (!t || n < 1 || pthread_barrier_init(&start, NULL, (unsigned)n) || pthread_attr_init(&a) ||
	    pthread_attr_setstacksize(&a, 64 << 10))
		return 1;
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], &a, one, NULL)) {
			fprintf(stderr, "sync_threads: thread %ld could not start\n", i);
			return 1;
		}
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("sync_threads: %ld calls\n", n);
	free(t);
	return 0;
}
