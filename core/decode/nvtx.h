/* SPDX-License-Identifier: MIT */
/*
 * NVTX ranges from the nvtx plugin's calls (docs/nvtx.md): the calls of
 * libcudatracer-nvtx.so, in each thread's order, become ranges and marks;
 * every other call, and every kernel through its launching call, is given
 * the push/pop ranges its thread had open. Everything here comes from the
 * traced program: stacks, open ranges and domains are bounded, and what
 * does not fit is counted.
 */
#ifndef CT_DECODE_NVTX_H
#define CT_DECODE_NVTX_H

#include <stdbool.h>
#include <stdint.h>
#include <cudatracer/event.h>
#include "util/u64map.h"

/* Push/pop ranges kept open per thread; deeper pushes are counted. */
#define CT_NVTX_DEPTH 64 /* said as "64" in session.c's report */
/* Start/end ranges kept open per process; more are counted. */
#define CT_NVTX_OPEN_MAX 65536
/* Stack changes a thread remembers, for the kernels it launched. */
#define CT_NVTX_HISTORY 256
/* Threads followed (4 KiB of history each); past it, one whose stack is
 * empty makes room, its history forgotten, or the new thread is not followed. */
#define CT_NVTX_THREADS 8192

/* The plugin's rows, in plugins/nvtx/nvtx.c's order. */
enum ct_nvtx_api { CT_NVTX_DOMAIN, CT_NVTX_PUSH, CT_NVTX_POP, CT_NVTX_START, CT_NVTX_END, CT_NVTX_MARK, CT_NVTX_N };

struct ct_nvtx_stats {
	uint64_t pops_unmatched;  /* a pop with no push open in its domain */
	uint64_t ends_unmatched;  /* an end of an id not started (or ended already) */
	uint64_t names_cut;       /* names longer than 255 bytes */
	uint64_t too_deep;        /* pushes past CT_NVTX_DEPTH (their pops are matched, not counted) */
	uint64_t too_many;        /* starts past CT_NVTX_OPEN_MAX open, domains past the limit */
	uint64_t threads_dropped; /* threads not followed: CT_NVTX_THREADS with ranges open */
	uint64_t no_memory;
	uint64_t left_open;       /* ranges still open when their process exited or tracing stopped */
};

struct ct_nvtx {
	void (*emit)(void *ctx, const struct ct_nvtx_event *r);
	void *ctx;
	int64_t wall_offset;       /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	struct ct_u64map threads;  /* pid << 32 | tid -> struct nvtx_thread */
	struct ct_u64map procs;    /* pid -> struct nvtx_proc */
	const char *list[CT_NVTX_DEPTH]; /* the list an event is given */
	struct ct_nvtx_stats st;
};

void ct_nvtx_init(struct ct_nvtx *n, int64_t wall_offset, void (*emit)(void *ctx, const struct ct_nvtx_event *r),
		  void *ctx);
/* One of the nvtx plugin's calls (api_idx: enum ct_nvtx_api). */
void ct_nvtx_take(struct ct_nvtx *n, const struct ct_event *ev);
/* Any other call: its thread's open push/pop ranges into ev->nvtx. */
void ct_nvtx_note(struct ct_nvtx *n, struct ct_event *ev);
/* A kernel, copy or set: its launching thread's ranges at the launch. */
void ct_nvtx_note_gpu(struct ct_nvtx *n, struct ct_gpu_event *g);
/* A process exited: its ranges still open are emitted open, ending at ts. */
void ct_nvtx_proc_exit(struct ct_nvtx *n, uint32_t pid, uint64_t mono_ns);
/* Tracing stops: every range still open is emitted open, ending at mono_ns. */
void ct_nvtx_finish(struct ct_nvtx *n, uint64_t mono_ns);
void ct_nvtx_free(struct ct_nvtx *n);

#endif
