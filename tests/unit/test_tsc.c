// SPDX-License-Identifier: MIT
/*
 * The in-process engine's TSC clock (core/capture/tsc.c): a made-up TSC of
 * 2.5 GHz against a CLOCK_MONOTONIC that runs 40 ppm fast (NTP slewing it),
 * checked as the tracer checks it. The conversion never steps, stays
 * increasing, and comes onto CLOCK_MONOTONIC by the next check; durations
 * use the measured rate; a jump (a VM paused) is stepped over, not slewed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "capture/tsc.h"

#define GHZ25(ns) ((ns) * 5 / 2) /* cycles of a 2.5 GHz TSC */

/* CLOCK_MONOTONIC at a cycle count: 40 ppm faster than the TSC says. */
static uint64_t mono_at(uint64_t c)
{
	return 1000000000ull + c * 2 / 5 + c * 2 / 5 / 25000;
}

static struct ct_tsc_clock start(uint64_t c0, uint64_t c1)
{
	struct ct_tsc_clock c = { 0 };

	c.cur = (struct ct_tsc_piece){ c1, mono_at(c1), ((mono_at(c1) - mono_at(c0)) << CT_TSC_SHIFT) / (c1 - c0) };
	c.prev = c.cur;
	c.rate = c.cur.mult;
	c.meas_c = c1;
	c.meas_n = mono_at(c1);
	return c;
}

static void check(struct ct_tsc_clock *c, uint64_t cy)
{
	bool snapped;

	c->prev = c->cur;
	c->cur = ct_tsc_next_piece(&c->prev, cy, mono_at(cy), c->meas_c, c->meas_n, &snapped);
	c->rate = ((mono_at(cy) - c->meas_n) << CT_TSC_SHIFT) / (cy - c->meas_c);
	c->meas_c = cy;
	c->meas_n = mono_at(cy);
	assert_false(snapped);
}

static void continuous_and_converging(void **state)
{
	/* The first rate measured with a pair 100 ns off. */
	struct ct_tsc_clock c = start(0, GHZ25(10000000ull));
	uint64_t at = GHZ25(10000000ull), last = 0;

	(void)state;
	c.cur.zero += 100;
	c.meas_n += 100;
	for (uint64_t interval = 20000000ull; interval <= 640000000ull; interval *= 2) {
		uint64_t next = at + GHZ25(interval), before = ct_tsc_ns(&c, next - 1);

		check(&c, next);
		/* No step at the join, and increasing across it. */
		assert_true(ct_tsc_ns(&c, next) >= before);
		assert_true(ct_tsc_ns(&c, next) - before <= 2);
		/* Records stamped before the check still convert with the piece they were in. */
		assert_int_equal(ct_tsc_ns(&c, next - 1), before);
		for (uint64_t k = at; k < next; k += GHZ25(1000000ull)) {
			assert_true(ct_tsc_ns(&c, k) >= last);
			last = ct_tsc_ns(&c, k);
		}
		at = next;
	}
	/* After the checks, on CLOCK_MONOTONIC to within a few ns, one interval on. */
	at += GHZ25(640000000ull);
	assert_true(ct_tsc_ns(&c, at) + 5 >= mono_at(at) && ct_tsc_ns(&c, at) <= mono_at(at) + 5);
	/* A 100 ms call: its duration at the measured rate (40 ppm above 100 ms). */
	assert_true(ct_tsc_dur_ns(&c, GHZ25(100000000ull)) >= 100004000 - 2 &&
		    ct_tsc_dur_ns(&c, GHZ25(100000000ull)) <= 100004000 + 2);
}

static void jump_is_stepped(void **state)
{
	struct ct_tsc_clock c = start(0, GHZ25(10000000ull));
	uint64_t cy = GHZ25(30000000ull);
	bool snapped;
	struct ct_tsc_piece p = ct_tsc_next_piece(&c.cur, cy, mono_at(cy) + 5000000, c.meas_c, c.meas_n, &snapped);

	(void)state;
	assert_true(snapped);
	assert_int_equal(p.at, cy);
	assert_int_equal(p.zero, mono_at(cy) + 5000000);
	/* A TSC that went backwards: stepped too, at the last rate. */
	p = ct_tsc_next_piece(&c.cur, c.meas_c - 10, mono_at(cy), c.meas_c, c.meas_n, &snapped);
	assert_true(snapped);
	assert_int_equal(p.mult, c.cur.mult);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(continuous_and_converging),
		cmocka_unit_test(jump_is_stepped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
