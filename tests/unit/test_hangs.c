// SPDX-License-Identifier: MIT
/*
 * hangs: a call sent at entry (CT_REC_BEGIN) is held until its thread's
 * next record settles it; past the timeout it is reported stuck once, and
 * its end once more (ended: its own record; gone: another record at its
 * depth or above, or its process's exit); a call that ends in time is
 * never reported. A stuck collective names the rank furthest behind on its
 * communicator, and none when no rank is behind. Held calls are bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "record.h"
#include "config/config.h"
#include "decode/hangs.h"

#define SEC 1000000000ull
#define PID 4000001 /* no such process: nothing is read of it */

static const struct ct_arg args[] = {
	{ .name = "count", .kind = CT_ARG_UINT, CT_SLOT(0), .size = 8 },
};
static const struct ct_api apis[] = {
	{ .symbol = "xAllReduce", .n_args = 1, .args = args, .flags = CT_API_COLLECTIVE },
};
static const struct ct_plugin plugin = { CT_PLUGIN_HEAD, .name = "xccl", .apis = apis, .n_apis = 1 };

struct said {
	int n;
	struct ct_hang last;
	struct ct_event call;
	enum ct_hang_state states[8];
};

static void on_hang(void *ctx, const struct ct_hang *h)
{
	struct said *s = ctx;

	if (s->n < 8)
		s->states[s->n] = h->state;
	s->n++;
	s->last = *h;
	s->call = *h->call;
}

/* A record of thread tid: at its entry (begin) or its return; on communicator `comm_id` (0: none). */
static void note(struct ct_hangs *h, uint32_t pid, uint32_t tid, uint32_t depth, uint64_t ts, uint64_t dur,
		 bool begin, uint64_t comm_id, int32_t rank, uint64_t seq)
{
	struct ct_record r = { .ts_ns = ts, .dur_ns = dur, .pid = pid, .tid = tid, .depth = depth,
			       .flags = begin ? CT_REC_BEGIN : 0 };
	struct ct_comm_info ci = { .rank = rank, .nranks = 2, .id = comm_id, .seq = seq };
	struct ct_event ev = { .rec = &r, .plugin = &plugin, .api = &apis[0], .pid = pid, .tid = tid,
			       .depth = depth, .mono_ns = ts, .dur_ns = dur, .entry_only = begin,
			       .has_result = !begin, .comm_info = comm_id ? &ci : NULL };

	r.args[0] = 1024;
	ct_hangs_note(h, &ev, NULL);
}

static void stuck_then_ended_once(void **state)
{
	struct said s = { 0 };
	struct ct_hangs h;

	ct_hangs_init(&h, SEC, 0, on_hang, &s);
	note(&h, PID, 7, 0, 100, 0, true, 0, -1, 0);
	ct_hangs_check(&h, 100 + SEC - 1);
	assert_int_equal(s.n, 0);
	ct_hangs_check(&h, 100 + SEC);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.last.state, CT_HANG_STUCK);
	assert_int_equal(s.call.dur_ns, SEC);
	assert_int_equal(s.call.fields[0].v, 1024); /* decoded again from the record kept */
	assert_false(s.call.entry_only);
	assert_int_equal(s.last.stuck_in_pid, 1);
	assert_int_equal(ct_hangs_stuck(&h), 1);
	ct_hangs_check(&h, 100 + 5 * SEC);
	assert_int_equal(s.n, 1); /* once */
	note(&h, PID, 7, 0, 100, 7 * SEC, false, 0, -1, 0); /* its own return */
	assert_int_equal(s.n, 2);
	assert_int_equal(s.last.state, CT_HANG_ENDED);
	assert_int_equal(s.call.dur_ns, 7 * SEC);
	assert_true(s.call.has_result);
	assert_int_equal(s.last.stuck_in_pid, 0);
	assert_int_equal(ct_hangs_stuck(&h), 0);
	assert_int_equal(h.held, 0);
	ct_hangs_check(&h, 100 + 9 * SEC);
	assert_int_equal(s.n, 2);
	ct_hangs_free(&h);
}

static void in_time_never_said(void **state)
{
	struct said s = { 0 };
	struct ct_hangs h;

	ct_hangs_init(&h, SEC, 0, on_hang, &s);
	note(&h, PID, 7, 0, 100, 0, true, 0, -1, 0);
	ct_hangs_check(&h, 100 + SEC / 2);
	note(&h, PID, 7, 0, 100, SEC / 2, false, 0, -1, 0);
	ct_hangs_check(&h, 100 + 2 * SEC);
	assert_int_equal(s.n, 0);
	assert_int_equal(h.held, 0);
	ct_hangs_free(&h);
}

/* A later record at the call's depth or above: it returned unseen. Below it: nested, still held. */
static void left_unseen_is_gone(void **state)
{
	struct said s = { 0 };
	struct ct_hangs h;

	ct_hangs_init(&h, SEC, 0, on_hang, &s);
	note(&h, PID, 7, 1, 100, 0, true, 0, -1, 0);
	ct_hangs_check(&h, 100 + SEC);
	note(&h, PID, 7, 2, 200 + SEC, 10, false, 0, -1, 0); /* nested inside: not its end */
	assert_int_equal(s.n, 1);
	assert_int_equal(h.held, 1);
	note(&h, PID, 8, 0, 300 + SEC, 10, false, 0, -1, 0); /* another thread */
	assert_int_equal(h.held, 1);
	note(&h, PID, 7, 0, 400 + SEC, 10, false, 0, -1, 0); /* its caller returned */
	assert_int_equal(s.n, 2);
	assert_int_equal(s.last.state, CT_HANG_GONE);
	assert_int_equal(h.held, 0);
	ct_hangs_free(&h);
}

static void process_exit_is_gone(void **state)
{
	struct said s = { 0 };
	struct ct_hangs h;

	ct_hangs_init(&h, SEC, 0, on_hang, &s);
	note(&h, PID, 7, 0, 100, 0, true, 0, -1, 0);
	ct_hangs_check(&h, 100 + SEC);
	note(&h, PID, 9, 0, 200 + SEC, 0, true, 0, -1, 0); /* not yet past the timeout */
	note(&h, PID + 1, 10, 0, 100, 0, true, 0, -1, 0);
	ct_hangs_check(&h, 100 + SEC + 1); /* PID + 1's too */
	assert_int_equal(s.n, 2);
	ct_hangs_proc_exit(&h, PID, 100 + 3 * SEC);
	assert_int_equal(s.n, 3); /* the reported one is gone; the other dropped unsaid */
	assert_int_equal(s.last.state, CT_HANG_GONE);
	assert_int_equal(s.call.dur_ns, 3 * SEC);
	assert_int_equal(h.held, 1);
	assert_int_equal(ct_hangs_stuck(&h), 1);
	ct_hangs_free(&h);
}

static void names_the_rank_behind(void **state)
{
	struct said s = { 0 };
	struct ct_hangs h;

	ct_hangs_init(&h, SEC, 0, on_hang, &s);
	/* ranks 0, 1, 2 of communicator 0xabc: 3, 2 and 3 collectives begun; another communicator's rank at 1 */
	note(&h, PID + 2, 21, 0, 50, 10, false, 0xabc, 1, 2);
	note(&h, PID + 3, 31, 0, 50, 10, false, 0xabc, 2, 3);
	note(&h, PID + 4, 41, 0, 50, 10, false, 0xdef, 0, 1);
	note(&h, PID, 7, 0, 100, 0, true, 0xabc, 0, 3);
	ct_hangs_check(&h, 100 + SEC);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.last.behind_rank, 1);
	assert_int_equal(s.last.behind_pid, PID + 2);
	assert_int_equal(s.last.behind_seq, 2);
	assert_int_equal(s.call.comm_info->seq, 3);
	/* rank 1 catches up: stuck in the same collective, no one behind */
	note(&h, PID + 2, 21, 0, 200, 0, true, 0xabc, 1, 3);
	ct_hangs_check(&h, 200 + SEC);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.call.pid, PID + 2);
	assert_int_equal(s.last.behind_rank, -1);
	ct_hangs_free(&h);
}

static void bounded(void **state)
{
	struct said s = { 0 };
	struct ct_hangs h;

	ct_hangs_init(&h, SEC, 0, on_hang, &s);
	for (uint32_t t = 0; t <= CT_HANGS_MAX; t++)
		note(&h, PID, 1000 + t, 0, 100, 0, true, 0, -1, 0);
	assert_int_equal(h.held, CT_HANGS_MAX);
	assert_int_equal(h.unwatched, 1);
	ct_hangs_free(&h);
}

/* tracer.hang_timeout: auto is off, and 5m in a daemon; off and a duration win in both. */
static void timeout_default(void **state)
{
	static const struct { bool daemon; const char *v; uint64_t ns; } cases[] = {
		{ false, NULL, 0 }, { true, NULL, 300 * SEC }, { true, "auto", 300 * SEC },
		{ true, "off", 0 }, { false, "30s", 30 * SEC }, { true, "2m", 120 * SEC },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_config c;

		ct_config_init(&c);
		c.tracer.daemon = cases[i].daemon;
		if (cases[i].v)
			assert_int_equal(ct_config_set(&c, "tracer", "hang_timeout", cases[i].v, "test"), 0);
		assert_int_equal(ct_config_hang_timeout(&c), cases[i].ns);
		ct_config_free(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stuck_then_ended_once),   cmocka_unit_test(in_time_never_said),
		cmocka_unit_test(left_unseen_is_gone),     cmocka_unit_test(process_exit_is_gone),
		cmocka_unit_test(names_the_rank_behind),   cmocka_unit_test(bounded),
		cmocka_unit_test(timeout_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
