/* SPDX-License-Identifier: MIT */
/*
 * Intervals of GPU time, [start, end) in ns: their union (the GPU is busy
 * when any kernel, copy or set runs, on any stream) and the gaps between.
 */
#ifndef CT_ANALYSIS_INTERVAL_H
#define CT_ANALYSIS_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

struct ct_iv {
	uint64_t start, end;
};

/*
 * The union of v[0..n) clipped to [lo, hi), in place: sorted, disjoint,
 * not touching (abutting intervals are merged), empty ones dropped.
 * Returns how many are left.
 */
size_t ct_iv_union(struct ct_iv *v, size_t n, uint64_t lo, uint64_t hi);
/* The summed length of disjoint intervals. */
uint64_t ct_iv_total(const struct ct_iv *v, size_t n);

#endif
