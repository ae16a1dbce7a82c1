// SPDX-License-Identifier: MIT
/*
 * Aggregate mode's output: the per-API totals that the BPF engine kept in
 * its `agg` map, as a table. Percentiles come from log2 buckets, so they
 * are upper bounds within a factor of two; the average and maximum are exact.
 */
#include <inttypes.h>
#include "sinks/aggregate.h"

uint64_t ct_agg_percentile(const struct ct_agg *a, double pct)
{
	uint64_t want, seen = 0;

	if (!a->calls)
		return 0;
	want = (uint64_t)(a->calls * pct / 100.0 + 0.5);
	if (want < 1)
		want = 1;
	for (int b = 0; b < CT_AGG_BUCKETS; b++) {
		seen += a->hist[b];
		if (seen >= want) {
			uint64_t upper = b ? (1ull << b) - 1 : 0;

			return upper < a->max_ns ? upper : a->max_ns;
		}
	}
	return a->max_ns;
}

void ct_agg_print(FILE *out, const struct ct_plugin *p, const struct ct_agg *aggs)
{
	uint64_t total = 0;

	for (size_t i = 0; i < p->n_apis; i++)
		total += aggs[i].total_ns;
	fprintf(out, "# %s: per-API totals counted in the kernel (mode = aggregate)\n", p->name);
	fprintf(out, "%-32s %10s %8s %12s %6s %10s %10s %10s %10s %14s\n", "API", "CALLS", "ERRORS",
		"TOTAL_US", "TIME%", "AVG_NS", "P50_NS<=", "P99_NS<=", "MAX_NS", "BYTES");
	for (size_t i = 0; i < p->n_apis; i++) {
		const struct ct_agg *a = &aggs[i];

		if (!a->calls)
			continue;
		fprintf(out, "%-32s %10" PRIu64 " %8" PRIu64 " %12.1f %6.2f %10" PRIu64 " %10" PRIu64
			" %10" PRIu64 " %10" PRIu64 " %14" PRIu64 "\n",
			p->apis[i].symbol, a->calls, a->errors, a->total_ns / 1e3,
			total ? 100.0 * a->total_ns / total : 0.0, a->total_ns / a->calls,
			ct_agg_percentile(a, 50), ct_agg_percentile(a, 99), a->max_ns, a->bytes);
	}
}
