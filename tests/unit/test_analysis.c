// SPDX-License-Identifier: MIT
/*
 * The analysis layer's parts on hand-made input: the union of GPU
 * intervals, the period of a launch sequence, the API classes, and steps
 * from a Python function's entries (a new invocation told by its line going
 * back) with their busy and idle time.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "analysis/analysis.h"
#include "analysis/apiclass.h"
#include "analysis/interval.h"
#include "analysis/period.h"
#include "report/json.h"

static void union_merges_overlaps_and_abutting(void **state)
{
	/* Two streams: [0,10) and [5,20) overlap, [20,25) abuts, [30,40) is apart,
	 * [45,45) is empty, [50,70) is cut by hi = 60, [0,2) by lo = 1. */
	struct ct_iv v[] = { { 30, 40 }, { 5, 20 }, { 0, 10 }, { 20, 25 }, { 45, 45 }, { 50, 70 }, { 0, 2 } };
	size_t n = ct_iv_union(v, 7, 1, 60);

	(void)state;
	assert_int_equal(n, 3);
	assert_int_equal(v[0].start, 1);
	assert_int_equal(v[0].end, 25);
	assert_int_equal(v[1].start, 30);
	assert_int_equal(v[1].end, 40);
	assert_int_equal(v[2].start, 50);
	assert_int_equal(v[2].end, 60);
	assert_int_equal(ct_iv_total(v, n), 24 + 10 + 10);
}

static void union_nested_and_outside(void **state)
{
	struct ct_iv v[] = { { 100, 200 }, { 120, 130 }, { 150, 210 }, { 300, 400 }, { 0, 50 } };
	size_t n = ct_iv_union(v, 5, 100, 250);

	(void)state;
	assert_int_equal(n, 1);
	assert_int_equal(v[0].start, 100);
	assert_int_equal(v[0].end, 210);
	assert_int_equal(ct_iv_union(v, 0, 0, 10), 0);
}

static void period_after_warmup(void **state)
{
	/* Warm-up 9 9 7, then 1 2 3 2 4 repeating: period 5, opened by the
	 * first name that occurs once in it (1), from its first whole step. */
	uint32_t seq[] = { 9, 9, 7, 1, 2, 3, 2, 4, 1, 2, 3, 2, 4, 1, 2, 3, 2, 4, 1, 2, 3, 2, 4, 1, 2 };
	struct ct_period p;

	(void)state;
	assert_int_equal(ct_period_find(seq, sizeof(seq) / sizeof(seq[0]), &p), 0);
	assert_int_equal(p.len, 5);
	assert_int_equal(p.anchor, 1);
	assert_int_equal(p.start, 3);
}

static void period_none(void **state)
{
	/* No repetition twice over the last three quarters. */
	uint32_t seq[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	/* A period whose every name repeats in it has no anchor. */
	uint32_t twice[] = { 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2 };
	struct ct_period p;

	(void)state;
	assert_int_equal(ct_period_find(seq, 12, &p), 0);
	assert_int_equal(p.len, 0);
	assert_int_equal(ct_period_find(twice, 16, &p), 0);
	assert_int_equal(p.len, 0);
}

static void api_classes(void **state)
{
	(void)state;
	assert_int_equal(ct_api_class_of("cudaStreamSynchronize", 21), CT_CLASS_SYNC);
	assert_int_equal(ct_api_class_of("cudaStreamSynchronize_ptsz", 26), CT_CLASS_SYNC);
	assert_int_equal(ct_api_class_of("cuCtxSynchronize", 16), CT_CLASS_SYNC);
	assert_int_equal(ct_api_class_of("cuMemcpyDtoH_v2", 15), CT_CLASS_SYNC_COPY);
	assert_int_equal(ct_api_class_of("cudaMemcpy", 10), CT_CLASS_SYNC_COPY);
	assert_int_equal(ct_api_class_of("cudaMemcpyAsync", 15), CT_CLASS_ASYNC_COPY);
	assert_int_equal(ct_api_class_of("cudaLaunchKernel_ptsz", 21), CT_CLASS_LAUNCH);
	assert_int_equal(ct_api_class_of("ncclAllReduce", 13), CT_CLASS_COLLECTIVE);
	assert_int_equal(ct_api_class_of("cudaMalloc", 10), CT_CLASS_OTHER);
	/* Only whole names: a longer one is not the API. */
	assert_int_equal(ct_api_class_of("cudaMemcpyAsyncX", 16), CT_CLASS_OTHER);
}

static struct ct_an_rec launch(uint64_t ts, uint32_t line, const char *site)
{
	return (struct ct_an_rec){ .pid = 1, .tid = 1, .ts = ts, .end = ts + 10, .api = "cudaLaunchKernel",
				   .kname = "k", .site = site, .in_fn = line != 0, .fn_line = line };
}

static struct ct_an_rec kernel(uint64_t ts, uint64_t end)
{
	return (struct ct_an_rec){ .pid = 1, .ts = ts, .end = end, .op = CT_AN_KERNEL, .name = "k" };
}

static void function_steps(void **state)
{
	struct ct_an_opts o = CT_AN_OPTS_DEFAULT;
	struct ct_an a;
	struct ct_an_proc *p;

	(void)state;
	o.py_function = "step";
	o.host_gap_ns = 100;
	assert_int_equal(ct_an_init(&a, &o), 0);
	/* Three invocations of step(), back to back (no call outside it between):
	 * lines 10, 12, then 10 again starts a new one. A call outside it (line 0)
	 * starts nothing. Each invocation: kernels [s+20, s+50) and [s+60, s+70),
	 * launched at s and s+55 (45 after the first call's end: launch-bound). */
	for (int k = 0; k < 3; k++) {
		uint64_t s = 1000 + 1000 * (uint64_t)k;
		struct ct_an_rec l1 = launch(s, 10, "a (x.py:1)"), l2 = launch(s + 55, 12, "b (x.py:2)");
		struct ct_an_rec g1 = kernel(s + 20, s + 50), g2 = kernel(s + 60, s + 70);

		assert_int_equal(ct_an_call(&a, &l1), 0);
		assert_int_equal(ct_an_gpu(&a, &g1), 0);
		assert_int_equal(ct_an_call(&a, &l2), 0);
		assert_int_equal(ct_an_gpu(&a, &g2), 0);
	}
	struct ct_an_rec out = launch(4000, 0, "main (x.py:9)");

	assert_int_equal(ct_an_call(&a, &out), 0);
	ct_an_finish(&a);
	p = ct_u64map_get(&a.procs, 1);
	assert_non_null(p);
	/* Entries at 1000, 2000, 3000: two whole steps. */
	assert_int_equal(p->n_steps_done, 2);
	assert_int_equal(p->wall, 2000);
	assert_int_equal(p->busy, 2 * 40);
	assert_int_equal(p->idle, 2000 - 80);
	/* Gap [s, s+20): the launch at s came 935 after the thread's last call
	 * (host work; the first step's launch has no call before it: pause 0,
	 * launch-bound); [s+50, s+60): launched at s+55, 45 after the call before
	 * (launch-bound); [s+70, s+1000): the next launch is 935 later (host). */
	assert_int_equal(p->cause[CT_CAUSE_LAUNCH].ns, 20 + 2 * 10);
	assert_int_equal(p->cause[CT_CAUSE_LAUNCH].n, 3);
	assert_int_equal(p->cause[CT_CAUSE_HOST].ns, 20 + 2 * 930);
	assert_int_equal(p->cause[CT_CAUSE_HOST].n, 3);
	assert_int_equal(p->cause[CT_CAUSE_SYNC].ns, 0);
	ct_an_free(&a);
}

static struct ct_an_rec call_at_line(const char *api, uint64_t ts, uint64_t end, uint32_t line)
{
	return (struct ct_an_rec){ .pid = 1, .tid = 1, .ts = ts, .end = end, .api = api, .kname = "k",
				   .site = "f (x.py:1)", .in_fn = true, .fn_line = line };
}

static struct ct_an_rec op(enum ct_an_op o, uint64_t ts, uint64_t end)
{
	return (struct ct_an_rec){ .pid = 1, .ts = ts, .end = end, .op = o, .name = "k" };
}

/*
 * One step [0, 10000) with every cause: kernels [100, 1000), [3100, 4000),
 * [5000, 6000) and a synchronous copy [7000, 7500). [0, 100): the first
 * launch, no call before it (launch-bound); [1000, 3100): the host inside
 * ncclAllReduce [500, 3000] (collective); [4000, 5000): the kernel was
 * queued at 3500, no launch in the gap (GPU waiting); [6000, 7000): the
 * copy's call came 2,990 after the call before (host work); [7500, 10000):
 * the host inside cudaMemcpy [6500, 7600] when the GPU ran dry (sync).
 */
static void every_cause(void **state)
{
	struct ct_an_opts o = CT_AN_OPTS_DEFAULT;
	struct ct_an a;
	struct ct_an_proc *p;
	struct ct_an_rec recs[] = {
		call_at_line("cudaLaunchKernel", 0, 10, 1), op(CT_AN_KERNEL, 100, 1000),
		call_at_line("ncclAllReduce", 500, 3000, 2),
		call_at_line("cudaLaunchKernel_ptsz", 3050, 3060, 3), op(CT_AN_KERNEL, 3100, 4000),
		call_at_line("cudaLaunchKernel", 3500, 3510, 4), op(CT_AN_KERNEL, 5000, 6000),
		call_at_line("cudaMemcpy", 6500, 7600, 5), op(CT_AN_MEMCPY, 7000, 7500),
		call_at_line("cudaLaunchKernel", 10000, 10010, 1),
	};

	(void)state;
	o.py_function = "f";
	o.host_gap_ns = 100;
	assert_int_equal(ct_an_init(&a, &o), 0);
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		assert_int_equal(recs[i].op || recs[i].api == NULL ? ct_an_gpu(&a, &recs[i]) : ct_an_call(&a, &recs[i]), 0);
	ct_an_finish(&a);
	p = ct_u64map_get(&a.procs, 1);
	assert_non_null(p);
	assert_int_equal(p->n_steps_done, 1);
	assert_int_equal(p->busy, 900 + 900 + 1000 + 500);
	assert_int_equal(p->idle, 10000 - 3300);
	assert_int_equal(p->cause[CT_CAUSE_LAUNCH].ns, 100);
	assert_int_equal(p->cause[CT_CAUSE_COLLECTIVE].ns, 2100);
	assert_int_equal(p->cause[CT_CAUSE_OTHER].ns, 1000);
	assert_int_equal(p->cause[CT_CAUSE_HOST].ns, 1000);
	assert_int_equal(p->cause[CT_CAUSE_SYNC].ns, 2500);
	for (int c = CT_CAUSE_SYNC; c <= CT_CAUSE_OTHER; c++)
		assert_int_equal(p->cause[c].n, 1);
	ct_an_free(&a);
}

/* The JSON reader's strings, scanned 16 bytes at a time: an escape, a
 * control byte, a byte past 0x7f and the closing quote at every place of
 * two blocks read as the byte-by-byte reader did. */
static void json_strings_across_blocks(void **state)
{
	(void)state;
	for (size_t at = 0; at < 40; at++) {
		char line[64], out[64];
		struct ct_jp j;
		size_t len;

		/* An escape at `at`: "aaa\n" reads back as a line break there. */
		memset(line, 'a', sizeof(line));
		line[0] = '"';
		memcpy(line + 1 + at, "\\n\"", 3);
		j = (struct ct_jp){ line, line + 1 + at + 3 };
		assert_int_equal(ct_jp_string_len(&j, out, sizeof(out), &len), 0);
		assert_int_equal(len, at + 1);
		assert_int_equal(out[at], '\n');
		assert_true(ct_jp_at_end(&j));
		/* A raw control byte at `at` is refused. */
		memset(line, 'a', sizeof(line));
		line[0] = '"';
		line[1 + at] = 0x1f;
		line[50] = '"';
		j = (struct ct_jp){ line, line + 51 };
		assert_int_equal(ct_jp_string_len(&j, out, sizeof(out), &len), -EINVAL);
		/* A byte past 0x7f is kept; the quote ends the string where it is;
		 * a cut buffer keeps its start. */
		line[1 + at] = (char)0xe9;
		line[1 + at + 1] = '"';
		j = (struct ct_jp){ line, line + 64 };
		assert_int_equal(ct_jp_string_len(&j, out, 8, &len), 0);
		assert_int_equal(len, at + 1);
		assert_int_equal(strlen(out), at + 1 < 7 ? at + 1 : 7);
		assert_int_equal(j.p - line, (long)at + 3);
		/* No closing quote: refused. */
		j = (struct ct_jp){ line, line + 1 + at };
		assert_int_equal(ct_jp_string_len(&j, NULL, 0, NULL), -EINVAL);
	}
}

/* Integers: up to 19 digits read in one pass, past that by strtoull; a
 * fraction, an exponent or a sign is not an unsigned integer. */
static void json_u64(void **state)
{
	static const struct {
		const char *text;
		int err;
		uint64_t v;
		size_t used;
	} cases[] = {
		{ "0", 0, 0, 1 },
		{ " 1800000000000000000,", 0, 1800000000000000000ull, 20 },
		{ "9999999999999999999}", 0, 9999999999999999999ull, 19 },
		{ "18446744073709551615", 0, UINT64_MAX, 20 },
		{ "18446744073709551616", -EINVAL, 0, 0 },
		{ "1.5", -EINVAL, 0, 0 },
		{ "1e3", -EINVAL, 0, 0 },
		{ "-1", -EINVAL, 0, 0 },
		{ "x", -EINVAL, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_jp j = { cases[i].text, cases[i].text + strlen(cases[i].text) };
		uint64_t v = 0;

		assert_int_equal(ct_jp_u64(&j, &v), cases[i].err);
		if (!cases[i].err) {
			assert_true(v == cases[i].v);
			assert_int_equal(j.p - cases[i].text, (long)cases[i].used);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(union_merges_overlaps_and_abutting),
		cmocka_unit_test(union_nested_and_outside),
		cmocka_unit_test(period_after_warmup),
		cmocka_unit_test(period_none),
		cmocka_unit_test(api_classes),
		cmocka_unit_test(function_steps),
		cmocka_unit_test(every_cause),
		cmocka_unit_test(json_strings_across_blocks),
		cmocka_unit_test(json_u64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
