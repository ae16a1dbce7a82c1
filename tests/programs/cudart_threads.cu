// SPDX-License-Identifier: MIT
/* THREADS threads call cudaMemset at once; each call's size says which
 * thread made it and which call it was: thread t, call i -> t*1000000+i. */
#include <cstdint>
#include <cstdlib>
#include <pthread.h>
#include <cuda_runtime.h>

static int calls = 2000;

static void *worker(void *arg)
{
	size_t t = (size_t)(uintptr_t)arg;

	for (int i = 0; i < calls; i++)
		cudaMemset((void *)(uintptr_t)(0x10000 + t), (int)t, t * 1000000 + i);
	return nullptr;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 8;
	pthread_t th[256];

	if (argc > 2)
		calls = atoi(argv[2]);
	for (int t = 0; t < threads && t < 256; t++)
		pthread_create(&th[t], nullptr, worker, (void *)(uintptr_t)t);
	for (int t = 0; t < threads && t < 256; t++)
		pthread_join(th[t], nullptr);
	return 0;
}
