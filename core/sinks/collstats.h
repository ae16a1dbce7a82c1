/* SPDX-License-Identifier: MIT */
/*
 * Per-process totals of a communication library's calls (API flags
 * CT_API_COLLECTIVE or CT_API_P2P), by API and datatype: calls, errors,
 * bytes, time, and the bus bandwidth nccl-tests would report where the
 * communicator's size is known. For the summary sink; runtime-agnostic
 * (flags, roles and the decoder's communicator info, never API names).
 */
#ifndef CT_COLLSTATS_H
#define CT_COLLSTATS_H

#include <stdbool.h>
#include <stdint.h>
#include <cudatracer/event.h>
#include "util/u64map.h"

struct ct_coll_stat {
	const char *plugin, *api; /* the plugin's own strings: it outlives the sink */
	char dtype[48];           /* the datatype's name, or its number */
	uint32_t flags;
	uint64_t calls, errors;
	uint64_t bytes, ns;       /* successful calls */
	/* Successful calls whose communicator's size was known: their time and
	 * the bytes the bus moved for them (nccl-tests' factors). */
	uint64_t bus_ns;
	double bus_bytes;
	int32_t nranks;           /* the last known size; -1 none */
	/* --gpu-activity: the kernels launched inside these calls (a launch by
	 * the call's thread during its time), their device time, and the bus
	 * bytes of the calls they ran for whose size was known. */
	uint64_t gpu_kernels, gpu_ns, gpu_bus_ns;
	double gpu_bus_bytes;
};

struct ct_collstats {
	struct ct_u64map procs; /* pid -> struct ct_coll_proc */
	bool gpu;               /* a GPU event came: --gpu-activity is on */
};

/* A recent successful call: kernels launched during it are its own. Calls
 * arrive when they return, their kernels' records later (CUPTI flushes in
 * buffers), so the last CT_COLL_SPANS calls of a process are kept. */
#define CT_COLL_SPANS 256
struct ct_coll_span {
	uint32_t tid;
	uint64_t start, end; /* CLOCK_MONOTONIC */
	size_t row;
	double bus_bytes;    /* < 0: the communicator's size was not known */
	bool has_gpu;        /* a kernel was counted for it */
};

struct ct_coll_proc {
	struct ct_coll_stat *v;
	size_t n;
	struct ct_coll_span spans[CT_COLL_SPANS];
	size_t next_span;    /* calls seen; the ring's next slot modulo its size */
};

/* Count the event if its API is a collective or point-to-point call. */
int ct_collstats_add(struct ct_collstats *s, const struct ct_event *ev);
/* Add a GPU event to the call that launched it, if a kernel launched inside
 * one of the recent calls (ev->launch_tid, ev->launch_mono_ns); and note that
 * GPU events come. */
int ct_collstats_gpu(struct ct_collstats *s, const struct ct_gpu_event *g);
/* The process's rows, in the order first seen; NULL if none. */
const struct ct_coll_proc *ct_collstats_proc(const struct ct_collstats *s, uint32_t pid);
/* Bytes per second, 0 when no time: algbw over all successful calls, busbw
 * over those of a known size (-1: none). */
double ct_coll_algbw(const struct ct_coll_stat *c);
double ct_coll_busbw(const struct ct_coll_stat *c);
/* Bus bandwidth over the device time of the calls' kernels: -1 when no
 * kernel ran for a call of known size. */
double ct_coll_gpu_busbw(const struct ct_coll_stat *c);
void ct_collstats_free(struct ct_collstats *s);
/* Forget a process (one that ended, past the sink's keep_exited). */
void ct_collstats_drop_pid(struct ct_collstats *s, uint32_t pid);

#endif
