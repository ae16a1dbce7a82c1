/* SPDX-License-Identifier: MIT */
/*
 * `cudatracer merge`: several jsonl traces (ranks, tracer instances, hosts)
 * on one timeline (docs/nccl.md). Loading checks the inputs and refuses what
 * cannot be merged; alignment rebases the traces of one clock (host and
 * boot) onto one offset through their monotonic clock, and each other host
 * onto the first through the ends of collectives every rank made (same
 * communicator id, same sequence number); the straggler table says, per
 * collective, which rank arrived last and by how much.
 */
#ifndef CT_MERGE_H
#define CT_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include "util/u64map.h"
#include <stdint.h>
#include <stdio.h>

struct ct_mtrace {
	char *path;
	char host[256], boot_id[64];
	int64_t wall_offset_ns; /* wall - mono at the trace's start */
	int domain;             /* its clock: index in ct_merge.domains */
	uint64_t first_ns, last_ns; /* its events' span, as recorded */
};

struct ct_mproc {
	int trace;
	uint32_t pid;
	char comm[32];
	int32_t rank, local_rank, world_size; /* -1: not set */
	char job_id[64];
};

struct ct_mevent {
	uint64_t ts_ns, dur_ns; /* as recorded; ct_merge_ts() gives the aligned time */
	int proc;               /* index in ct_merge.procs */
	uint32_t tid, depth;
	char api[64], plugin[32], result_name[48];
	char comm[32];          /* the thread's name (jsonl's comm), for its track */
	bool error, entry_only, nested; /* nested: inside a call of its own library */
	bool collective;        /* has a communicator id and a sequence number */
	int32_t comm_rank, comm_nranks;
	uint64_t comm_id, comm_seq, bytes;
	char *args;             /* the args object's JSON text, or NULL */
};

struct ct_mdomain {
	const char *host, *boot_id; /* its first trace's */
	int64_t base_offset_ns;     /* the offset every trace of it is rebased to */
	int64_t shift_ns;           /* then added: the alignment with the reference */
	int matched;                /* collectives the shift was computed from */
	bool aligned;               /* the shift came from collectives */
};

struct ct_merge {
	struct ct_mtrace *traces;
	size_t n_traces;
	struct ct_mproc *procs;
	size_t n_procs;
	struct ct_u64map proc_idx; /* trace << 32 | pid -> index in procs + 1 */
	struct ct_mevent *events;
	size_t n_events;
	struct ct_mdomain *domains;
	size_t n_domains;
	int64_t tolerance_ns; /* hosts closer than this are left as their clocks say */
};

/* One collective across ranks: who came last (by its call's start). */
struct ct_straggler {
	uint64_t comm_id, seq;
	const char *api;
	int ranks;            /* how many ranks' calls were found */
	int last_proc;        /* the process that arrived last */
	uint64_t first_ns, last_ns; /* aligned arrival of the first and the last */
};

/* Read and check the inputs; every refusal is said once (path, line, why). */
int ct_merge_load(struct ct_merge *m, char *const *paths, size_t n);
/* Clock domains and their shifts; then ct_merge_ts() is on one timeline. */
int ct_merge_align(struct ct_merge *m);
/* An event's start on the merged timeline. */
uint64_t ct_merge_ts(const struct ct_merge *m, const struct ct_mevent *e);
/* The inputs' spans must overlap once aligned (-EINVAL, said, if not). */
int ct_merge_check_overlap(const struct ct_merge *m);
/* Per collective, sorted by first arrival; the caller frees *out. */
int ct_merge_stragglers(const struct ct_merge *m, struct ct_straggler **out, size_t *n);
void ct_merge_free(struct ct_merge *m);

/* Outputs, written whole to a temporary file beside `path` and renamed. */
int ct_merge_write_chrome(const struct ct_merge *m, const char *path);
int ct_merge_write_summary(const struct ct_merge *m, const char *path);
/* A process's label: "host h rank r" or "host h pid p". */
void ct_merge_proc_label(const struct ct_merge *m, int proc, char *buf, size_t n);

/* The subcommand: cudatracer merge TRACE... -o chrome:PATH -o summary[:PATH]. */
int ct_merge_main(int argc, char **argv);

#endif
