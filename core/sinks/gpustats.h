/* SPDX-License-Identifier: MIT */
/*
 * GPU time per kernel, copy throughput per kind, and per-device totals of
 * the calls and of the device's work, per process: what the summary and
 * html sinks show of --gpu-activity (docs/gpu.md). Names are copied: the
 * report outlives the decoder's tables.
 */
#ifndef CT_GPUSTATS_H
#define CT_GPUSTATS_H

#include <stdbool.h>
#include <stdint.h>
#include <cudatracer/event.h>
#include "sinks/hist.h"
#include "util/u64map.h"

struct ct_totals;

struct ct_kernel_stat {
	uint32_t pid;
	char *name;             /* "(unnamed)" for kernels whose name never came */
	struct ct_hist hist;    /* device time of each run; count, min, max, sum */
	struct ct_kernel_stat *next; /* same hash */
};

struct ct_copy_stat {
	uint32_t pid;
	const char *kind;       /* a copy kind, or "memset" (static strings) */
	uint64_t count, bytes, ns;
};

/* One process on one device (device -1: calls whose device is not known),
 * and on one GPU where it is known (the one the process holds open: empty
 * uuid where not). */
struct ct_device_stat {
	uint32_t pid;
	int32_t device;
	int32_t gpu_minor; /* -1: no GPU known */
	char gpu_uuid[sizeof(((struct ct_gpu_info *)0)->uuid)], gpu_bus[sizeof(((struct ct_gpu_info *)0)->bus)];
	uint64_t calls, call_ns;          /* API calls made with it current */
	uint64_t kernels, kernel_ns;      /* work it ran */
	uint64_t copies, copy_bytes, copy_ns;
};

struct ct_gpustats {
	struct ct_u64map kernels;  /* hash of (pid, name) -> ct_kernel_stat chain */
	struct ct_u64map copies;   /* (pid, kind) -> ct_copy_stat */
	struct ct_u64map devices;  /* (pid, device, GPU minor) -> ct_device_stat */
	struct ct_u64map procs;    /* pid -> its rows of each of the three (gpustats.c) */
	uint64_t gpu_events;
	bool by_process;           /* rows from aggregate totals: the process's device, not the thread's */
};

int ct_gpustats_gpu(struct ct_gpustats *s, const struct ct_gpu_event *g);
/* An API call, for its device's row. */
int ct_gpustats_call(struct ct_gpustats *s, const struct ct_event *ev);
/* Aggregate mode: calls the kernel counted since the last look, for the
 * row of the process's device (struct ct_totals: device known where
 * device_from says). */
int ct_gpustats_totals(struct ct_gpustats *s, const struct ct_totals *t, uint64_t calls, uint64_t ns);
void ct_gpustats_free(struct ct_gpustats *s);
/* Forget a process (one that ended, past the sink's keep_exited). */
void ct_gpustats_drop_pid(struct ct_gpustats *s, uint32_t pid);

/* A process's rows, the caller frees the array: kernels by total device
 * time, copies by bytes, devices by number (unknown last). */
int ct_gpustats_kernels(const struct ct_gpustats *s, uint32_t pid, struct ct_kernel_stat ***out, size_t *n);
int ct_gpustats_copies(const struct ct_gpustats *s, uint32_t pid, struct ct_copy_stat ***out, size_t *n);
int ct_gpustats_devices(const struct ct_gpustats *s, uint32_t pid, struct ct_device_stat ***out, size_t *n);

/* Bytes per second over the copies' own device time (0 when none). */
static inline double ct_copy_gbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes / (double)ns : 0.0; /* bytes/ns = GB/s */
}

#endif
