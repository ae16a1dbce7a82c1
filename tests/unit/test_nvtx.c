// SPDX-License-Identifier: MIT
/*
 * decode/nvtx.c: the nvtx plugin's calls into ranges and marks, and the
 * lists calls and kernels are given. What the integration test cannot
 * reach without a GPU or a hostile program: a pop in a domain whose range
 * is not the innermost (the ranges above it stay open), a kernel that
 * finds the ranges its launch ran in from the thread's history, pushes
 * past the depth kept, ends of ids never started, ranges left open at a
 * process's exit, and the summary's figures by name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ct_nvtx.h"
#include "decode/nvtx.h"
#include "sinks/nvtxstats.h"

#define MAX_OUT 512
static struct ct_nvtx_event out[MAX_OUT];
static char names[MAX_OUT][64];
static unsigned n_out;

static void take(void *ctx, const struct ct_nvtx_event *r)
{
	(void)ctx;
	assert_true(n_out < MAX_OUT);
	out[n_out] = *r;
	snprintf(names[n_out], sizeof(names[n_out]), "%s", r->name);
	out[n_out].name = names[n_out];
	out[n_out].domain = NULL; /* the tracker's; compared while it lives below */
	n_out++;
}

/* One of the plugin's calls by pid 7 (thread tid) at time t. */
static void call(struct ct_nvtx *n, enum ct_nvtx_api api, uint32_t tid, uint64_t t, uint64_t domain,
		 const char *name, uint32_t flags, uint64_t id)
{
	struct ct_event ev = { .api_idx = api, .pid = 7, .tid = tid, .mono_ns = t, .n_fields = 4 };

	ev.fields[0] = (struct ct_field){ .v = domain, .valid = true };
	ev.fields[1] = (struct ct_field){ .str = name, .valid = true };
	ev.fields[2] = (struct ct_field){ .v = flags, .valid = true };
	ev.fields[3] = (struct ct_field){ .v = id, .valid = true };
	if (api == CT_NVTX_END)
		ev.fields[1] = (struct ct_field){ .v = id, .valid = true };
	ct_nvtx_take(n, &ev);
}

static void list_is(struct ct_nvtx *n, uint32_t tid, const char *want)
{
	struct ct_event ev = { .pid = 7, .tid = tid };
	char got[256] = "";

	ct_nvtx_note(n, &ev);
	for (uint32_t i = 0; i < ev.n_nvtx; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? "," : "", ev.nvtx[i]);
	assert_string_equal(got, want);
}

static void domain_pop_below_top(void **state)
{
	struct ct_nvtx n;

	(void)state;
	n_out = 0;
	ct_nvtx_init(&n, 1000, take, NULL);
	call(&n, CT_NVTX_DOMAIN, 1, 5, 0xd0, "io", 0, 0);
	call(&n, CT_NVTX_PUSH, 1, 10, 0, "a", 0, 0);
	call(&n, CT_NVTX_PUSH, 1, 20, 0xd0, "b", 0, 0);
	call(&n, CT_NVTX_PUSH, 1, 30, 0, "c", 0, 0);
	list_is(&n, 1, "a,b,c");
	list_is(&n, 2, ""); /* another thread: none */
	/* The default domain's pop takes c; then io's pop takes b under nothing;
	 * then the default's takes a. */
	call(&n, CT_NVTX_PUSH, 1, 35, 0, "d", 0, 0);
	call(&n, CT_NVTX_POP, 1, 40, 0xd0, NULL, 0, 0); /* b: under c and d */
	assert_int_equal(n_out, 1);
	assert_string_equal(out[0].name, "b");
	assert_int_equal(out[0].mono_ns, 20);
	assert_int_equal(out[0].end_mono_ns, 40);
	assert_int_equal(out[0].ts_ns, 1020); /* + the wall offset */
	assert_int_equal(out[0].depth, 1);
	list_is(&n, 1, "a,c,d");
	call(&n, CT_NVTX_POP, 1, 50, 0, NULL, 0, 0);
	assert_string_equal(out[1].name, "d");
	assert_int_equal(out[1].depth, 3); /* its depth when pushed */
	list_is(&n, 1, "a,c");
	call(&n, CT_NVTX_POP, 1, 60, 0xd0, NULL, 0, 0); /* io has none open */
	assert_int_equal(n_out, 2);
	assert_int_equal(n.st.pops_unmatched, 1);
	ct_nvtx_finish(&n, 100);
	assert_int_equal(n_out, 4); /* c, then a: innermost first */
	assert_string_equal(out[2].name, "c");
	assert_string_equal(out[3].name, "a");
	assert_true(out[2].open && out[3].open);
	assert_int_equal(out[3].end_mono_ns, 100);
	assert_int_equal(n.st.left_open, 2);
}

static void kernels_from_history(void **state)
{
	struct ct_nvtx n;
	struct ct_gpu_event g = { .kind = CT_GPU_KERNEL, .pid = 7, .has_launch = true, .launch_tid = 1 };

	(void)state;
	n_out = 0;
	ct_nvtx_init(&n, 0, take, NULL);
	call(&n, CT_NVTX_PUSH, 1, 100, 0, "step", 0, 0);
	call(&n, CT_NVTX_PUSH, 1, 200, 0, "fwd", 0, 0);
	call(&n, CT_NVTX_POP, 1, 300, 0, NULL, 0, 0);
	call(&n, CT_NVTX_POP, 1, 400, 0, NULL, 0, 0);
	/* Their records come after every pop: each finds its launch's ranges. */
	g.launch_mono_ns = 250;
	ct_nvtx_note_gpu(&n, &g);
	assert_int_equal(g.n_nvtx, 2);
	assert_string_equal(g.nvtx[0], "step");
	assert_string_equal(g.nvtx[1], "fwd");
	g.launch_mono_ns = 350;
	ct_nvtx_note_gpu(&n, &g);
	assert_int_equal(g.n_nvtx, 1);
	g.launch_mono_ns = 450;
	ct_nvtx_note_gpu(&n, &g);
	assert_int_equal(g.n_nvtx, 0);
	g.launch_mono_ns = 50; /* before the thread's first push */
	ct_nvtx_note_gpu(&n, &g);
	assert_int_equal(g.n_nvtx, 0);
	g.has_launch = false;
	g.launch_mono_ns = 250;
	ct_nvtx_note_gpu(&n, &g);
	assert_int_equal(g.n_nvtx, 0);
	/* Past the history kept, the oldest launches are not known. */
	for (uint64_t i = 0; i < CT_NVTX_HISTORY; i++)
		call(&n, i % 2 ? CT_NVTX_POP : CT_NVTX_PUSH, 1, 1000 + i, 0, "later", 0, 0);
	g.has_launch = true;
	ct_nvtx_note_gpu(&n, &g);
	assert_int_equal(g.n_nvtx, 0);
	ct_nvtx_free(&n);
}

static void bounds(void **state)
{
	struct ct_nvtx n;

	(void)state;
	n_out = 0;
	ct_nvtx_init(&n, 0, take, NULL);
	for (int i = 0; i < CT_NVTX_DEPTH + 3; i++)
		call(&n, CT_NVTX_PUSH, 1, 10 + i, 0, "deep", i == 0 ? CT_NVTX_CUT : 0, 0);
	assert_int_equal(n.st.too_deep, 3);
	assert_int_equal(n.st.names_cut, 1);
	/* The pops of the pushes not kept are theirs: no range, nothing unmatched. */
	for (int i = 0; i < 4; i++)
		call(&n, CT_NVTX_POP, 1, 200 + i, 0, NULL, 0, 0);
	assert_int_equal(n_out, 1);
	assert_int_equal(out[0].depth, CT_NVTX_DEPTH - 1);
	assert_int_equal(n.st.pops_unmatched, 0);
	call(&n, CT_NVTX_END, 1, 300, 0, NULL, 0, 99); /* never started */
	assert_int_equal(n.st.ends_unmatched, 1);
	call(&n, CT_NVTX_START, 1, 310, 0, "s", 0, 5);
	call(&n, CT_NVTX_MARK, 2, 320, 0, "m", 0, 0);
	assert_int_equal(n_out, 2);
	assert_true(out[1].mark);
	assert_int_equal(out[1].tid, 2);
	assert_int_equal(out[1].depth, -1);
	call(&n, CT_NVTX_END, 2, 330, 0, NULL, 0, 5); /* ended by another thread: the starter's */
	assert_int_equal(n_out, 3);
	assert_string_equal(out[2].name, "s");
	assert_int_equal(out[2].tid, 1);
	assert_int_equal(out[2].depth, -1);
	assert_int_equal(out[2].end_mono_ns, 330);
	call(&n, CT_NVTX_END, 2, 340, 0, NULL, 0, 5); /* twice */
	assert_int_equal(n.st.ends_unmatched, 2);
	/* The process exits with ranges open: they end then, open. */
	call(&n, CT_NVTX_START, 1, 350, 0, "s2", 0, 6);
	ct_nvtx_proc_exit(&n, 7, 400);
	assert_int_equal(n_out, 3 + CT_NVTX_DEPTH - 1 + 1);
	for (unsigned i = 3; i < n_out; i++)
		assert_true(out[i].open && out[i].end_mono_ns == 400);
	list_is(&n, 1, "");
	ct_nvtx_finish(&n, 500); /* nothing left */
	assert_int_equal(n_out, 3 + CT_NVTX_DEPTH);
}

/* Threads are never said to have exited: past CT_NVTX_THREADS, one with no
 * range open makes room; when all have one open, a new thread is not followed. */
static void threads_bounded(void **state)
{
	struct ct_nvtx n;

	(void)state;
	n_out = 0;
	ct_nvtx_init(&n, 0, take, NULL);
	for (uint32_t tid = 1; tid <= CT_NVTX_THREADS; tid++)
		call(&n, CT_NVTX_PUSH, tid, tid, 0, "open", 0, 0);
	call(&n, CT_NVTX_POP, 5, 100000, 0, NULL, 0, 0); /* thread 5: empty, may go */
	call(&n, CT_NVTX_PUSH, 100000, 100001, 0, "new", 0, 0);
	assert_int_equal(n.st.threads_dropped, 0);
	list_is(&n, 100000, "new");
	list_is(&n, 5, "");
	call(&n, CT_NVTX_PUSH, 100001, 100002, 0, "dropped", 0, 0);
	assert_int_equal(n.st.threads_dropped, 1);
	list_is(&n, 100001, "");
	list_is(&n, 7, "open");
	assert_int_equal(n.threads.n, CT_NVTX_THREADS);
	ct_nvtx_free(&n);
}

static void stats_by_name(void **state)
{
	struct ct_nvtxstats st = { 0 };
	const char *l[] = { "step", "fwd", "step" };
	struct ct_event ev = { .pid = 7, .dur_ns = 10, .nvtx = l, .n_nvtx = 3 };
	struct ct_gpu_event g = { .kind = CT_GPU_KERNEL, .pid = 7, .dur_ns = 1000, .nvtx = l, .n_nvtx = 2 };
	struct ct_nvtx_event r = { .pid = 7, .name = "step", .mono_ns = 5, .end_mono_ns = 105 };
	struct ct_nvtx_stat **v;
	size_t n;

	(void)state;
	assert_int_equal(ct_nvtxstats_call(&st, &ev), 0);
	assert_int_equal(ct_nvtxstats_gpu(&st, &g), 0);
	g.kind = CT_GPU_MEMCPY; /* kernels only */
	assert_int_equal(ct_nvtxstats_gpu(&st, &g), 0);
	assert_int_equal(ct_nvtxstats_range(&st, &r), 0);
	r.mark = true;
	assert_int_equal(ct_nvtxstats_range(&st, &r), 0);
	assert_int_equal(ct_nvtxstats_sorted(&st, 7, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0]->name, "step"); /* most range time first */
	assert_int_equal(v[0]->ranges, 1);
	assert_int_equal(v[0]->range_ns, 100);
	assert_int_equal(v[0]->calls, 1); /* named twice in the list, counted once */
	assert_int_equal(v[0]->call_ns, 10);
	assert_int_equal(v[0]->kernels, 1);
	assert_int_equal(v[0]->gpu_ns, 1000);
	assert_string_equal(v[1]->name, "fwd");
	assert_int_equal(v[1]->ranges, 0);
	free(v);
	assert_int_equal(ct_nvtxstats_sorted(&st, 8, &v, &n), 0);
	assert_int_equal(n, 0);
	free(v);
	ct_nvtxstats_free(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(domain_pop_below_top),
		cmocka_unit_test(kernels_from_history),
		cmocka_unit_test(bounds),
		cmocka_unit_test(threads_bounded),
		cmocka_unit_test(stats_by_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
