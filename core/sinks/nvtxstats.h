/* SPDX-License-Identifier: MIT */
/*
 * The summary's "by NVTX range" figures (docs/nvtx.md), per process and
 * range name: the ranges themselves (count, time), the calls made inside
 * them and the GPU time of the kernels launched inside them. A call or a
 * kernel counts once for each distinct name open around it (an outer and
 * an inner range both count it).
 */
#ifndef CT_NVTXSTATS_H
#define CT_NVTXSTATS_H

#include <stddef.h>
#include <stdint.h>
#include <cudatracer/event.h>
#include "util/u64map.h"

struct ct_nvtx_stat {
	uint32_t pid;
	uint64_t ranges, range_ns;
	uint64_t calls, call_ns;
	uint64_t kernels, gpu_ns;
	char name[];
};

struct ct_nvtxstats {
	struct ct_u64map rows; /* a hash of (pid, name), probed on -> struct ct_nvtx_stat */
};

int ct_nvtxstats_range(struct ct_nvtxstats *st, const struct ct_nvtx_event *r);
int ct_nvtxstats_call(struct ct_nvtxstats *st, const struct ct_event *ev);
int ct_nvtxstats_gpu(struct ct_nvtxstats *st, const struct ct_gpu_event *g);
/* The process's rows, most range time first (the caller frees *out). */
int ct_nvtxstats_sorted(const struct ct_nvtxstats *st, uint32_t pid, struct ct_nvtx_stat ***out, size_t *n);
void ct_nvtxstats_free(struct ct_nvtxstats *st);

#endif
