// SPDX-License-Identifier: MIT
/*
 * One rank of a job whose collectives stop, for the hang tests, against the
 * stand-in libnccl (fake_nccl.c): RANK and WORLD_SIZE from the environment,
 * the meeting folder in argv[1]. It makes `n` (argv[2]) ncclAllReduce
 * calls, each from train_step(), the last `late_ms` (argv[3]) late, then
 * waits in pause() until a signal ends it. With FAKE_NCCL_HANG_AT=K its K-th call never returns: a rank stuck in
 * a collective, its stack train_step <- main. "ready N" on stdout before
 * collective N.
 */
#include <nccl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static int train_step(ncclComm_t comm, int k)
{
	int r;

	printf("ready %d\n", k);
	fflush(stdout);
	r = ncclAllReduce((void *)0x1000, (void *)0x2000, 1024, ncclFloat32, ncclSum, comm, NULL);
	asm volatile("" ::: "memory"); /* a call, not a tail call: train_step stays on the stack */
	return r;
}

int main(int argc, char **argv)
{
	int rank = atoi(getenv("RANK") ? getenv("RANK") : "0");
	int size = atoi(getenv("WORLD_SIZE") ? getenv("WORLD_SIZE") : "1");
	int n = argc > 2 ? atoi(argv[2]) : 1, late_ms = argc > 3 ? atoi(argv[3]) : 0;
	ncclUniqueId id;
	ncclComm_t comm;

	if (argc < 2) {
		fprintf(stderr, "usage: nccl_hang DIR [N [LATE_MS]]\n");
		return 2;
	}
	memset(&id, 0, sizeof(id));
	memcpy(id.internal, &(uint64_t){ 0xfeedfacecafe0002ull }, 8);
	snprintf(id.internal + 8, sizeof(id.internal) - 8, "%s", argv[1]);
	if (ncclCommInitRank(&comm, size, id, rank))
		return 1;
	for (int k = 1; k <= n; k++) {
		if (k == n && late_ms)
			nanosleep(&(struct timespec){ late_ms / 1000, (late_ms % 1000) * 1000000L }, NULL);
		if (train_step(comm, k))
			return 1;
	}
	printf("idle\n");
	fflush(stdout);
	for (;;)
		pause();
}
