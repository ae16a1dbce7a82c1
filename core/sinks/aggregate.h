/* SPDX-License-Identifier: MIT */
#ifndef CT_AGGREGATE_H
#define CT_AGGREGATE_H

#include <stdio.h>
#include <cudatracer/plugin.h>
#include <cudatracer/record.h>

/* Approximate percentile (0..100) of a log2 duration histogram: the upper bound of its bucket. */
uint64_t ct_agg_percentile(const struct ct_agg *a, double pct);

/* Print the per-API table of one plugin's aggregates (APIs never called are left out). */
void ct_agg_print(FILE *out, const struct ct_plugin *p, const struct ct_agg *aggs);

#endif
