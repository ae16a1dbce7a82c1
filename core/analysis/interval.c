// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include "analysis/interval.h"

static int cmp_start(const void *a, const void *b)
{
	const struct ct_iv *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

size_t ct_iv_union(struct ct_iv *v, size_t n, uint64_t lo, uint64_t hi)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		struct ct_iv c = v[i];

		if (c.start < lo)
			c.start = lo;
		if (c.end > hi)
			c.end = hi;
		if (c.start < c.end)
			v[out++] = c;
	}
	if (out < 2)
		return out;
	qsort(v, out, sizeof(*v), cmp_start);
	n = out;
	out = 0;
	for (size_t i = 1; i < n; i++) {
		if (v[i].start <= v[out].end) {
			if (v[i].end > v[out].end)
				v[out].end = v[i].end;
		} else {
			v[++out] = v[i];
		}
	}
	return out + 1;
}

uint64_t ct_iv_total(const struct ct_iv *v, size_t n)
{
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += v[i].end - v[i].start;
	return t;
}
