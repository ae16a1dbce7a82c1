// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include "analysis/period.h"

/* seq[from..n) has period p. */
static bool holds(const uint32_t *seq, size_t n, size_t from, size_t p)
{
	for (size_t i = from; i + p < n; i++)
		if (seq[i] != seq[i + p])
			return false;
	return true;
}

/* An id of seq[at..at+p) that occurs once in it: its offset, or p. */
static size_t unique_in(const uint32_t *seq, size_t at, size_t p)
{
	for (size_t i = 0; i < p; i++) {
		size_t k = 0;

		for (size_t j = 0; j < p && k < 2; j++)
			k += seq[at + j] == seq[at + i];
		if (k == 1)
			return i;
	}
	return p;
}

int ct_period_find(const uint32_t *seq, size_t n, struct ct_period *p)
{
	size_t from = n / 4, len = 0;

	p->len = 0;
	for (size_t q = 1; q <= (n - from) / 2 && !len; q++)
		/* Cheap rejections first: most wrong lengths fail at once. */
		if (seq[n - 1] == seq[n - 1 - q] && seq[from] == seq[from + q] && holds(seq, n, from, q))
			len = q;
	if (!len)
		return 0;
	/* Back into the warm-up as far as the period holds. */
	while (from > 0 && seq[from - 1] == seq[from - 1 + len])
		from--;
	size_t off = unique_in(seq, from, len);

	if (off == len)
		return 0;
	p->len = len;
	p->start = from + off;
	p->anchor = seq[p->start];
	return 0;
}
