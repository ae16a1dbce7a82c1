/* SPDX-License-Identifier: MIT */
/*
 * Per-process kernel statistics from launch calls, like Nsight Systems'
 * cuda_gpu_kern_sum but from the host side: a kernel's launches, errors,
 * distinct grid and block shapes, and the time of its launch calls. A
 * launch made inside another traced call (a driver launch inside the
 * runtime's) is that call's launch again and is not counted twice. Fed by
 * flags and roles only: LAUNCH APIs, their KERNEL, GRID and BLOCK fields.
 */
#ifndef CT_KERNSTATS_H
#define CT_KERNSTATS_H

#include <stdbool.h>
#include <stdint.h>
#include <cudatracer/event.h>
#include "util/u64map.h"

struct ct_kern_shape {
	uint64_t v[3];
	uint8_t n; /* 0: not known */
};

struct ct_kern_stat {
	char *name;    /* the kernel's (demangled) name, or its address or handle in hex */
	char *plugin;
	uint64_t launches, errors, total_ns;
	struct ct_u64map grids, blocks; /* distinct shapes, by a hash of the shape */
	struct ct_kern_shape grid, block; /* the first seen */
};

struct ct_kernstats {
	struct ct_u64map procs; /* pid -> struct ct_kern_proc */
	uint64_t launches;
};

int ct_kernstats_add(struct ct_kernstats *k, const struct ct_event *ev);
/* A process's kernels, most launch time first; *n = 0 if none. The caller
 * frees the array (not its members). */
int ct_kernstats_sorted(const struct ct_kernstats *k, uint32_t pid, struct ct_kern_stat ***out, size_t *n);
void ct_kernstats_free(struct ct_kernstats *k);
/* Forget a process (one that ended, past the sink's keep_exited). */
void ct_kernstats_drop_pid(struct ct_kernstats *k, uint32_t pid);

static inline uint64_t ct_kern_avg(const struct ct_kern_stat *s)
{
	return s->launches ? s->total_ns / s->launches : 0;
}

/* "(x,y,z)" into buf (as dim3 is shown everywhere), or "-" if not known. */
void ct_kern_shape_text(char *buf, size_t n, const struct ct_kern_shape *s);

/* A name cut to `width` bytes for a table (at a UTF-8 boundary, "..." at
 * the end); false when it fit whole. */
bool ct_kern_name_cut(char *buf, size_t n, const char *name, size_t width);

#endif
