/* SPDX-License-Identifier: MIT */
/*
 * Steps found from the launch sequence alone: a training loop launches the
 * same kernels in the same order every step, so the sequence of kernel
 * names (as ids) is periodic once the warm-up is past.
 */
#ifndef CT_ANALYSIS_PERIOD_H
#define CT_ANALYSIS_PERIOD_H

#include <stddef.h>
#include <stdint.h>

struct ct_period {
	size_t len;      /* launches a step; 0: none found */
	size_t start;    /* index of the first launch of the first whole step */
	uint32_t anchor; /* the id that opens a step: one that occurs once a period */
};

/*
 * The shortest period of seq[0..n) that holds exactly over its last three
 * quarters (the first quarter may be warm-up) and repeats at least twice
 * there; the step opens at the first name that occurs once per period,
 * and `start` is its first occurrence from which the period holds to the end.
 * 0 and p->len = 0 when there is none.
 */
int ct_period_find(const uint32_t *seq, size_t n, struct ct_period *p);

#endif
