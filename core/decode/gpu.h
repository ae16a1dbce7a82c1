/* SPDX-License-Identifier: MIT */
/*
 * GPU activity (docs/gpu.md): the batches the injection library sends
 * (inject/wire.h), as bpf/gpu.bpf.c put them in the ring, made into
 * struct ct_gpu_event, each with the call that launched it.
 *
 * Correlation: CUPTI gives every kernel, copy and set the correlation id of
 * the runtime or driver call that launched it, and the injection library
 * sends those calls' own records (thread, start, API) too. A device record
 * whose call is not known yet (CUPTI completes buffers in any order) waits
 * until it is, for at most CT_GPU_PENDING_CHUNKS of its process's batches,
 * or until the process exits or the run ends; then it goes out without one.
 *
 * State is per process; not thread-safe (the poll loop is the only user).
 */
#ifndef CT_DECODE_GPU_H
#define CT_DECODE_GPU_H

#include <stddef.h>
#include <stdint.h>
#include <cudatracer/event.h>
#include "wire.h"

#define CT_GPU_PENDING_CHUNKS 64 /* batches a record waits for its call */
#define CT_GPU_PENDING_MAX 65536 /* records waiting, per process; past it the oldest go */
#define CT_GPU_CALL_WINDOW 65536 /* calls remembered per process (the latest, by id) */

struct ct_gpu_stats {
	uint64_t kernels, copies, sets;
	uint64_t unnamed;       /* kernels sent with no name, or whose NAME never came */
	uint64_t uncorrelated;  /* device records whose launching call never came */
	uint64_t cupti_dropped; /* records CUPTI itself dropped (its buffers were full) */
	uint64_t names_cut;
	uint64_t names_dropped; /* names not kept: their process had CT_NAMES_PER_PROC (demangle.h) */
	uint64_t malformed;     /* items that broke the wire format: skipped */
	uint64_t processes;     /* processes that said hello */
	uint64_t graph_nodes;   /* CUDA graph nodes made or cloned (GRAPHNODE items) */
	uint64_t graph_nodes_dropped; /* not kept: CT_GRAPH_NODES_MAX a process (graphs.h) */
	uint64_t graph_records; /* device records run from a graph node */
	uint64_t graph_uncaptured; /* of those, without the call that made their node */
};

struct ct_gpu_sink {
	void (*event)(void *ctx, const struct ct_gpu_event *g);
	/* A message from the injection library in process `pid`. */
	void (*message)(void *ctx, uint32_t pid, enum ct_wire_level level, const char *text);
	void *ctx;
	int64_t wall_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	struct ct_gpu_stats stats;
};

/* One batch from process `pid` (init namespace), `tid` the thread that sent it. */
void ct_gpu_decode(struct ct_gpu_sink *s, uint32_t pid, uint32_t tid, const void *data, size_t len);
/* A traced call ended (every call, before the filters): the CUDA graph
 * nodes made inside it are tied to it (graphs.h). */
void ct_gpu_note_call(struct ct_gpu_sink *s, const struct ct_event *ev);
/* The process exited: what still waits for its call goes out, then its state is dropped. */
void ct_gpu_forget(struct ct_gpu_sink *s, uint32_t pid);
/* The end of the run: every process's waiting records go out; state dropped. */
void ct_gpu_finish(struct ct_gpu_sink *s);

/* CUpti_ActivityMemcpyKind by value: "HtoD", "DtoH", ...; "unknown" past the table. */
const char *ct_gpu_copy_kind(unsigned kind);
/* A CUpti_ActivityMemoryKind's name: "pageable", "pinned", "device", ...; "unknown" past the table. */
const char *ct_gpu_memory_kind(unsigned kind);

#endif
