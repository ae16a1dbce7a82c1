/* SPDX-License-Identifier: MIT */
/*
 * Log-linear histogram of durations, for percentiles without keeping the
 * samples: each power of two is split into CT_HIST_SUB equal buckets, so a
 * value is known to within 1/CT_HIST_SUB of itself (6.25%), and a reported
 * percentile (a bucket's midpoint) to within half that. Values below
 * CT_HIST_SUB are exact. Fixed size: memory does not grow with the run.
 */
#ifndef CT_HIST_H
#define CT_HIST_H

#include <stdint.h>

#define CT_HIST_SUB_BITS 4
#define CT_HIST_SUB (1u << CT_HIST_SUB_BITS)
#define CT_HIST_BUCKETS ((64 - CT_HIST_SUB_BITS + 1) * CT_HIST_SUB)

struct ct_hist {
	uint64_t count;
	uint64_t min, max;
	uint64_t sum;
	uint64_t b[CT_HIST_BUCKETS];
};

void ct_hist_init(struct ct_hist *h);
void ct_hist_add(struct ct_hist *h, uint64_t v);
/* The p-th percentile (0 < p <= 100), within bucket error; 0 if empty. */
uint64_t ct_hist_percentile(const struct ct_hist *h, double p);

/* Bucket arithmetic, exposed for the tests. */
unsigned ct_hist_bucket(uint64_t v);
uint64_t ct_hist_bucket_low(unsigned idx);
uint64_t ct_hist_bucket_high(unsigned idx); /* inclusive */

#endif
