// SPDX-License-Identifier: MIT
/*
 * A command that lies in the in-process engine's ring (inproc/shm.h): it
 * makes one traced call (cudaStreamSynchronize of the stand-in runtime, 1 us),
 * finds that record in the ring it shares with the tracer, and writes two
 * more under another process's pid (argv[1]): a start record, which would
 * have the tracer read that process's environment and maps, and a copy of
 * the call. The tracer must believe neither.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "shm.h"

int cudaStreamSynchronize(void *stream);

/* Reserved and written as inproc/hooks.c does, committed at once. */
static void emit(struct ct_shm_head *h, unsigned char *data, uint32_t bits, const uint64_t *words)
{
	uint32_t len = bits & CT_SHM_LEN_MASK;
	uint64_t pos = __atomic_fetch_add(&h->prod_pos, CT_SHM_REC_HDR + CT_SHM_ALIGN(len), __ATOMIC_ACQ_REL);
	unsigned char *p = data + (pos & (h->data_size - 1));

	memcpy(p + CT_SHM_REC_HDR, words, len);
	__atomic_store_n((uint64_t *)p, CT_SHM_HDR(pos, bits), __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
	uint32_t victim = argc > 1 ? (uint32_t)atoi(argv[1]) : 1;
	const char *fd_s = getenv(CT_SHM_ENV_FD);
	struct ct_shm_head *h;
	unsigned char *data;
	uint64_t words[64], pos, end;
	uint32_t bits = 0;

	cudaStreamSynchronize((void *)1);
	if (!fd_s) {
		fprintf(stderr, "inproc_forge: no %s: run under --engine inproc\n", CT_SHM_ENV_FD);
		return 2;
	}
	h = mmap(NULL, CT_SHM_HEAD_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, atoi(fd_s), 0);
	if (h == MAP_FAILED)
		return 3;
	data = mmap(NULL, h->data_size, PROT_READ | PROT_WRITE, MAP_SHARED, atoi(fd_s), (off_t)h->data_off);
	if (data == MAP_FAILED)
		return 3;
	/* Our own call's record: the last one of ours that is not a start. */
	end = __atomic_load_n(&h->prod_pos, __ATOMIC_ACQUIRE);
	for (pos = 0; pos < end && end <= h->data_size;) {
		uint64_t hdr = *(uint64_t *)(data + pos), *w = (uint64_t *)(data + pos + CT_SHM_REC_HDR);
		uint32_t len = (uint32_t)hdr & CT_SHM_LEN_MASK;

		if (!len)
			break;
		if ((uint32_t)w[CT_SHM_W_WHO] == (uint32_t)getpid() && (uint32_t)w[CT_SHM_W_CALL] != CT_SHM_CALL_START) {
			bits = (uint32_t)hdr & ~CT_SHM_BUSY;
			memcpy(words, w, len);
		}
		pos += CT_SHM_REC_HDR + CT_SHM_ALIGN(len);
	}
	if (!bits) {
		fprintf(stderr, "inproc_forge: no record of our call in the ring\n");
		return 4;
	}
	words[CT_SHM_W_WHO] = victim | (uint64_t)victim << 32;
	{
		uint64_t start[CT_SHM_FIXED];

		memcpy(start, words, sizeof(start));
		start[CT_SHM_W_CALL] = CT_SHM_CALL_START;
		emit(h, data, CT_SHM_FIXED * 8, start);
	}
	emit(h, data, bits, words);
	printf("forged as pid %u\n", victim);
	return 0;
}
