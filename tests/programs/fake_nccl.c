// SPDX-License-Identifier: MIT
/*
 * A stand-in libnccl.so.2 whose calls succeed, for the merge tests: the
 * real one needs a GPU to create a communicator. Ranks are processes on
 * this machine that meet in a folder: the commId carries an 8-byte magic
 * and then the folder's path. ncclCommInitRank and each collective are
 * barriers (a file per rank and call; each waits for all of them), so
 * every rank leaves a collective at about the same moment, as with real
 * NCCL once the last rank has joined.
 *
 * Communicators of ncclCommInitAll (all ranks in this process) and of
 * ncclCommSplit are local: their collectives wait for nobody. A split's
 * rank is its key and its size key + 1, so that a test can tell them from
 * the parent's.
 *
 * FAKE_NCCL_HANG_AT=K: the K-th ncclAllReduce on a communicator never
 * returns (it waits in pause(), a syscall), as a rank whose peer never
 * comes; the process goes on until a signal ends it (the hang tests).
 */
#include <errno.h>
#include <fcntl.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct ncclComm {
	int rank, nranks;
	int local; /* no barriers */
	unsigned long seq;
	char dir[120]; /* the commId after its magic */
};

static ncclResult_t barrier(struct ncclComm *c, const char *what)
{
	char path[160];
	int fd;

	if (c->local)
		return ncclSuccess;
	snprintf(path, sizeof(path), "%s/%s.%lu.%d", c->dir, what, c->seq, c->rank);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return ncclSystemError;
	close(fd);
	for (int waited = 0; waited < 60000; waited++) { /* 30 s */
		int here = 0;

		for (int r = 0; r < c->nranks; r++) {
			snprintf(path, sizeof(path), "%s/%s.%lu.%d", c->dir, what, c->seq, r);
			here += access(path, F_OK) == 0;
		}
		if (here == c->nranks)
			return ncclSuccess;
		nanosleep(&(struct timespec){ 0, 500000 }, NULL);
	}
	return ncclRemoteError;
}

ncclResult_t ncclGetVersion(int *version)
{
	*version = NCCL_VERSION_CODE;
	return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
	struct ncclComm *c = calloc(1, sizeof(*c));

	if (!c)
		return ncclSystemError;
	c->rank = rank;
	c->nranks = nranks;
	snprintf(c->dir, sizeof(c->dir), "%s", id.internal + 8);
	*comm = c;
	return barrier(c, "init");
}

ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
	for (int i = 0; i < ndev; i++) {
		comms[i] = calloc(1, sizeof(*comms[i]));
		if (!comms[i])
			return ncclSystemError;
		*comms[i] = (struct ncclComm){ .rank = i, .nranks = ndev, .local = 1 };
	}
	return ncclSuccess;
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config)
{
	struct ncclComm *c = calloc(1, sizeof(*c));

	if (!c)
		return ncclSystemError;
	*c = (struct ncclComm){ .rank = key, .nranks = key + 1, .local = 1 };
	*newcomm = c;
	return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
	*rank = comm->rank;
	return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
	*count = comm->nranks;
	return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
			   ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
	const char *hang = getenv("FAKE_NCCL_HANG_AT");

	comm->seq++;
	if (hang && strtoul(hang, NULL, 10) == comm->seq)
		for (;;)
			pause();
	return barrier(comm, "allreduce");
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,
			   ncclComm_t comm, cudaStream_t stream)
{
	comm->seq++;
	return barrier(comm, "allgather");
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
	free(comm);
	return ncclSuccess;
}
