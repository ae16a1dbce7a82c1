// SPDX-License-Identifier: MIT
/* Log-linear histogram: see hist.h. */
#include <math.h>
#include <string.h>
#include "sinks/hist.h"

void ct_hist_init(struct ct_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned ct_hist_bucket(uint64_t v)
{
	unsigned shift;

	if (v < CT_HIST_SUB)
		return (unsigned)v;
	/* v has its top bit at e >= SUB_BITS; keep the SUB_BITS bits below it */
	shift = (unsigned)(63 - __builtin_clzll(v)) - CT_HIST_SUB_BITS;
	return (shift + 1) * CT_HIST_SUB + (unsigned)((v >> shift) - CT_HIST_SUB);
}

uint64_t ct_hist_bucket_low(unsigned idx)
{
	unsigned shift;

	if (idx < CT_HIST_SUB)
		return idx;
	shift = idx / CT_HIST_SUB - 1;
	return (uint64_t)(CT_HIST_SUB + idx % CT_HIST_SUB) << shift;
}

uint64_t ct_hist_bucket_high(unsigned idx)
{
	if (idx < CT_HIST_SUB)
		return idx;
	return ct_hist_bucket_low(idx) + ((1ull << (idx / CT_HIST_SUB - 1)) - 1);
}

void ct_hist_add(struct ct_hist *h, uint64_t v)
{
	h->b[ct_hist_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

uint64_t ct_hist_percentile(const struct ct_hist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	/* nearest-rank definition: the smallest value with p% at or below it */
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	/* the extremes are known exactly */
	if (rank >= h->count)
		return h->max;
	if (rank == 1)
		return h->min;
	for (unsigned i = 0; i < CT_HIST_BUCKETS; i++) {
		uint64_t lo, hi, mid;

		seen += h->b[i];
		if (seen < rank)
			continue;
		lo = ct_hist_bucket_low(i);
		hi = ct_hist_bucket_high(i);
		mid = lo + (hi - lo) / 2;
		/* never report past the extremes */
		if (mid < h->min)
			mid = h->min;
		if (mid > h->max)
			mid = h->max;
		return mid;
	}
	return h->max;
}
