// SPDX-License-Identifier: MIT
/*
 * One rank of a job, for the merge tests, against the stand-in libnccl
 * (fake_nccl.c): RANK and WORLD_SIZE from the environment, the meeting
 * folder in argv[1], and `n` collectives: an ncclAllReduce of 1024 floats
 * and, every third, an ncclAllGather of 256 halves. Before collective k,
 * rank (k - 1) % WORLD_SIZE sleeps `late_ms` (argv[3]): the straggler of
 * collective k, by about that much.
 */
#include <nccl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	int rank = atoi(getenv("RANK") ? getenv("RANK") : "0");
	int size = atoi(getenv("WORLD_SIZE") ? getenv("WORLD_SIZE") : "1");
	int n = argc > 2 ? atoi(argv[2]) : 4, late_ms = argc > 3 ? atoi(argv[3]) : 30;
	ncclUniqueId id;
	ncclComm_t comm;
	int count = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: nccl_ranks DIR [N [LATE_MS]]\n");
		return 2;
	}
	memset(&id, 0, sizeof(id));
	memcpy(id.internal, &(uint64_t){ 0xfeedfacecafe0001ull }, 8);
	snprintf(id.internal + 8, sizeof(id.internal) - 8, "%s", argv[1]);
	if (ncclCommInitRank(&comm, size, id, rank) || ncclCommCount(comm, &count) || count != size)
		return 1;
	for (int k = 1; k <= n; k++) {
		if ((k - 1) % size == rank)
			nanosleep(&(struct timespec){ late_ms / 1000, (late_ms % 1000) * 1000000L }, NULL);
		if (ncclAllReduce((void *)0x1000, (void *)0x2000, 1024, ncclFloat32, ncclSum, comm, NULL))
			return 1;
		if (k % 3 == 0 && ncclAllGather((void *)0x1000, (void *)0x2000, 256, ncclFloat16, comm, NULL))
			return 1;
	}
	return ncclCommDestroy(comm) ? 1 : 0;
}
