/* SPDX-License-Identifier: MIT */
/*
 * The in-process engine's clock, the tracer's side: where the TSC may
 * stand in for CLOCK_MONOTONIC, the preload library stamps records with
 * rdtsc (one instruction, no vDSO call) and the tracer turns the cycles
 * into CLOCK_MONOTONIC ns as it reads them, by factors it measures against
 * clock_gettime at start and keeps in step at intervals (perf's mmap page
 * has the same mult/shift/zero for its users).
 */
#ifndef CT_CAPTURE_TSC_H
#define CT_CAPTURE_TSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One linear piece: ns = zero + ((cycles - at) * mult >> CT_TSC_SHIFT). */
#define CT_TSC_SHIFT 32
struct ct_tsc_piece {
	uint64_t at, zero, mult;
};

struct ct_tsc_clock {
	struct ct_tsc_piece cur, prev; /* prev: for records stamped before the last check */
	uint64_t rate;                 /* ns per cycle << CT_TSC_SHIFT as last measured, unslewed: for durations */
	uint64_t meas_c, meas_n;       /* the last measured pair (cycles, CLOCK_MONOTONIC ns) */
	uint64_t interval_ns, next_ns; /* when to check again (doubling up to a second) */
	uint64_t checks, snaps;        /* checks made; of them, steps too large to slew */
};

/* Whether rdtsc counts CLOCK_MONOTONIC's time here: invariant (cpuinfo's
 * constant_tsc and nonstop_tsc) and the kernel's own clocksource. If not,
 * why not, into why. */
bool ct_tsc_usable(char *why, size_t len);
/* Calibrate (~10 ms). */
int ct_tsc_clock_start(struct ct_tsc_clock *c);
/* Measure again if it is time (now: CLOCK_MONOTONIC ns) and bend the
 * conversion towards it without a step: times stay continuous and
 * increasing. */
void ct_tsc_clock_check(struct ct_tsc_clock *c, uint64_t now);
uint64_t ct_tsc_ns(const struct ct_tsc_clock *c, uint64_t cycles);
uint64_t ct_tsc_dur_ns(const struct ct_tsc_clock *c, uint64_t cycles);
/* The piece that follows `cur` once the pair (c, n) is measured, the one
 * before being (prev_c, prev_n); *snapped: a step, not a slew (unit test). */
struct ct_tsc_piece ct_tsc_next_piece(const struct ct_tsc_piece *cur, uint64_t c, uint64_t n, uint64_t prev_c,
				      uint64_t prev_n, bool *snapped);

#endif
