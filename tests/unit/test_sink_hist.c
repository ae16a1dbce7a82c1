// SPDX-License-Identifier: MIT
/* The log-linear histogram behind the summary's p50/p99, and the hash map the sinks share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "record.h"
#include "sinks/hist.h"
#include "util/u64map.h"

static void test_buckets_tile_the_range(void **state)
{
	/* every value has exactly one bucket, buckets are contiguous and in order */
	for (unsigned i = 0; i < CT_HIST_SUB; i++) {
		assert_int_equal(ct_hist_bucket(i), i);
		assert_int_equal(ct_hist_bucket_low(i), i);
		assert_int_equal(ct_hist_bucket_high(i), i);
	}
	for (unsigned i = 0; i + 1 < CT_HIST_BUCKETS; i++) {
		uint64_t lo = ct_hist_bucket_low(i), hi = ct_hist_bucket_high(i);

		assert_true(lo <= hi);
		assert_int_equal(ct_hist_bucket(lo), i);
		assert_int_equal(ct_hist_bucket(hi), i);
		assert_int_equal(ct_hist_bucket_low(i + 1), hi + 1);
		/* a bucket is never wider than 1/16 of its values */
		assert_true((hi - lo) * CT_HIST_SUB <= lo);
	}
	assert_int_equal(ct_hist_bucket(UINT64_MAX), CT_HIST_BUCKETS - 1);
	assert_true(ct_hist_bucket_high(CT_HIST_BUCKETS - 1) == UINT64_MAX);
	assert_int_equal(ct_hist_bucket(16), 16);
	assert_int_equal(ct_hist_bucket(31), 31);
	assert_int_equal(ct_hist_bucket(32), 32);
	assert_int_equal(ct_hist_bucket(33), 32);
	assert_int_equal(ct_hist_bucket(34), 33);
}

static void test_percentiles_within_bucket_error(void **state)
{
	struct ct_hist *h = malloc(sizeof(*h));
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9, 100 };

	assert_non_null(h);
	ct_hist_init(h);
	assert_int_equal(ct_hist_percentile(h, 50), 0);
	/* 1..100000 once each: the exact nearest-rank p-th percentile is ceil(p * 1000) */
	for (uint64_t v = 1; v <= 100000; v++)
		ct_hist_add(h, v);
	assert_int_equal(h->count, 100000);
	assert_int_equal(h->min, 1);
	assert_int_equal(h->max, 100000);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		double exact = ps[i] * 1000, got = (double)ct_hist_percentile(h, ps[i]);

		/* a midpoint is within half a bucket: 1/32 of the value */
		assert_true(got >= exact * (1 - 1.0 / 32) - 1 && got <= exact * (1 + 1.0 / 32) + 1);
	}
	assert_int_equal(ct_hist_percentile(h, 100), 100000);
	free(h);
}

static void test_percentiles_of_few_values(void **state)
{
	struct ct_hist *h = malloc(sizeof(*h));

	assert_non_null(h);
	ct_hist_init(h);
	ct_hist_add(h, 123456);
	/* one sample: every percentile is that sample, exactly (clamped to min/max) */
	assert_int_equal(ct_hist_percentile(h, 50), 123456);
	assert_int_equal(ct_hist_percentile(h, 99), 123456);
	/* 99 fast calls and one slow one: p50 is fast, p99 still fast, p100 the slow one */
	ct_hist_init(h);
	for (int i = 0; i < 99; i++)
		ct_hist_add(h, 10);
	ct_hist_add(h, 1000000);
	assert_int_equal(ct_hist_percentile(h, 50), 10);
	assert_int_equal(ct_hist_percentile(h, 99), 10);
	assert_int_equal(ct_hist_percentile(h, 100), 1000000);
	/* 98 fast, 2 slow: p99 lands on a slow one, within its bucket */
	ct_hist_init(h);
	for (int i = 0; i < 98; i++)
		ct_hist_add(h, 10);
	ct_hist_add(h, 1000000);
	ct_hist_add(h, 1000000);
	assert_int_equal(ct_hist_bucket(ct_hist_percentile(h, 99)), ct_hist_bucket(1000000));
	assert_true(ct_hist_percentile(h, 99) >= 1000000 - 1000000 / 32);
	free(h);
}

/* Aggregate mode's buckets, as the engine computes them in BPF, are the
 * summary's: every value up to the engine's cap lands in the same bucket. */
static void test_engine_buckets_are_the_summary_s(void **state)
{
	const uint64_t cap = 1ull << CT_AGG_TOP_BIT;

	(void)state;
	for (uint64_t v = 0; v < 4096; v++)
		assert_int_equal(ct_agg_bucket(v), ct_hist_bucket(v));
	for (unsigned e = 12; e < CT_AGG_TOP_BIT; e++) {
		uint64_t p = 1ull << e;
		uint64_t vs[] = { p, p + 1, p + p / 3, p + p / 2 + 7, 2 * p - 1 };

		for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++)
			assert_int_equal(ct_agg_bucket(vs[i]), ct_hist_bucket(vs[i]));
	}
	assert_int_equal(ct_agg_bucket(cap - 1), CT_AGG_BUCKETS - 1);
	assert_int_equal(ct_hist_bucket(cap - 1), CT_AGG_BUCKETS - 1);
	/* Past the cap: the last bucket, not a wild index. */
	assert_int_equal(ct_agg_bucket(cap), CT_AGG_BUCKETS - 1);
	assert_int_equal(ct_agg_bucket(UINT64_MAX), CT_AGG_BUCKETS - 1);
}

static void test_u64map(void **state)
{
	struct ct_u64map m = { 0 };
	uint64_t key, sum = 0;
	void *v;

	assert_null(ct_u64map_get(&m, 1));
	assert_null(ct_u64map_del(&m, 1));
	/* pointer-like keys, many of them sharing low bits */
	for (uint64_t i = 1; i <= 5000; i++)
		assert_int_equal(ct_u64map_put(&m, 0x7f0000000000ull + i * 4096, (void *)(uintptr_t)i), 0);
	assert_int_equal(m.n, 5000);
	assert_int_equal(ct_u64map_put(&m, 0x7f0000000000ull + 4096, (void *)(uintptr_t)77), 0);
	assert_int_equal(m.n, 5000);
	assert_int_equal((uintptr_t)ct_u64map_get(&m, 0x7f0000000000ull + 4096), 77);
	/* delete every other one; the rest must still be found (backward shift) */
	for (uint64_t i = 2; i <= 5000; i += 2)
		assert_int_equal((uintptr_t)ct_u64map_del(&m, 0x7f0000000000ull + i * 4096), i);
	assert_int_equal(m.n, 2500);
	for (uint64_t i = 3; i <= 5000; i += 2)
		assert_int_equal((uintptr_t)ct_u64map_get(&m, 0x7f0000000000ull + i * 4096), i);
	for (uint64_t i = 2; i <= 5000; i += 2)
		assert_null(ct_u64map_get(&m, 0x7f0000000000ull + i * 4096));
	for (size_t it = 0; ct_u64map_next(&m, &it, &key, &v);)
		sum += (uintptr_t)v;
	/* odd numbers 3..4999 plus the replaced 77 */
	assert_int_equal(sum, 2500ull * 2500 - 1 + 77);
	ct_u64map_free(&m);
	assert_int_equal(m.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets_tile_the_range),
		cmocka_unit_test(test_percentiles_within_bucket_error),
		cmocka_unit_test(test_percentiles_of_few_values),
		cmocka_unit_test(test_engine_buckets_are_the_summary_s),
		cmocka_unit_test(test_u64map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
