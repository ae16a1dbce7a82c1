// SPDX-License-Identifier: MIT
/*
 * Communicators not made by ncclCommInitRank, against the stand-in libnccl
 * (fake_nccl.c): ncclCommInitAll of `ndev` (argv[2]) communicators and an
 * ncclAllReduce of 16 floats on each; then a one-rank ncclCommInitRank
 * (id magic 0xfeedfacecafe0002, meeting folder argv[1]), ncclCommSplit of it
 * with color 7 and key 2, ncclCommUserRank and ncclCommCount on the new one
 * and an ncclAllReduce of 16 floats on it.
 */
#include <nccl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The communicators stay until exit, as a short job's do: not a leak to
 * report when the sanitizers' build runs this program. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

int main(int argc, char **argv)
{
	ncclComm_t comms[16], world, sub;
	ncclUniqueId id;
	int ndev = argc > 2 ? atoi(argv[2]) : 3, r, n;

	if (argc < 2 || ndev < 1 || ndev > 16) {
		fprintf(stderr, "usage: nccl_comms DIR [NDEV<=16]\n");
		return 2;
	}
	if (ncclCommInitAll(comms, ndev, NULL))
		return 1;
	for (int i = 0; i < ndev; i++)
		if (ncclAllReduce((void *)0x1000, (void *)0x2000, 16, ncclFloat32, ncclSum, comms[i], NULL))
			return 1;
	memset(&id, 0, sizeof(id));
	memcpy(id.internal, &(uint64_t){ 0xfeedfacecafe0002ull }, 8);
	snprintf(id.internal + 8, sizeof(id.internal) - 8, "%s", argv[1]);
	if (ncclCommInitRank(&world, 1, id, 0) || ncclCommSplit(world, 7, 2, &sub, NULL) ||
	    ncclCommUserRank(sub, &r) || ncclCommCount(sub, &n) || r != 2 || n != 3)
		return 1;
	if (ncclAllReduce((void *)0x1000, (void *)0x2000, 16, ncclFloat32, ncclSum, sub, NULL))
		return 1;
	return 0;
}
