// SPDX-License-Identifier: MIT
/*
 * One timeline for every input. A clock domain is a host and its boot: the
 * traces of one domain share CLOCK_MONOTONIC, so each is rebased through it
 * onto the first trace's wall-clock offset (their own offsets differ by the
 * NTP steps between their starts). Each other domain is shifted onto the
 * first by the median, over the collectives both saw, of the difference
 * between the median end of the call on the first domain's ranks and on
 * its own: every rank leaves a collective when the last one has joined it,
 * so the ends coincide where the clocks agree. A shift smaller than the
 * tolerance is not applied: the clocks agree as well as call ends can tell.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "merge/merge.h"
#include "util/log.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int64_t median(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2;
}

static int domain_of(const struct ct_merge *m, const struct ct_mevent *e)
{
	return m->traces[m->procs[e->proc].trace].domain;
}

/* Recorded time rebased onto the domain's offset: mono + base. */
static uint64_t rebased(const struct ct_merge *m, const struct ct_mevent *e)
{
	const struct ct_mtrace *t = &m->traces[m->procs[e->proc].trace];

	return e->ts_ns - (uint64_t)t->wall_offset_ns + (uint64_t)m->domains[t->domain].base_offset_ns;
}

uint64_t ct_merge_ts(const struct ct_merge *m, const struct ct_mevent *e)
{
	return rebased(m, e) + (uint64_t)m->domains[domain_of(m, e)].shift_ns;
}

/* Collective calls, sorted by (id, seq), for matching across ranks. */
static int cmp_coll(const void *a, const void *b)
{
	const struct ct_mevent *x = *(struct ct_mevent *const *)a, *y = *(struct ct_mevent *const *)b;

	if (x->comm_id != y->comm_id)
		return x->comm_id < y->comm_id ? -1 : 1;
	if (x->comm_seq != y->comm_seq)
		return x->comm_seq < y->comm_seq ? -1 : 1;
	return x->proc - y->proc;
}

static int collectives(const struct ct_merge *m, struct ct_mevent ***out, size_t *n)
{
	struct ct_mevent **v = malloc((m->n_events ? m->n_events : 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_events; i++)
		if (m->events[i].collective)
			v[(*n)++] = &m->events[i];
	qsort(v, *n, sizeof(*v), cmp_coll);
	*out = v;
	return 0;
}

/* The shift of domain d onto domain 0 from the collectives both saw. */
static int shift_of(struct ct_merge *m, int d, struct ct_mevent **c, size_t nc)
{
	int64_t *diffs = malloc((nc ? nc : 1) * sizeof(*diffs));
	int64_t *e0 = malloc((nc ? nc : 1) * sizeof(*e0)), *ed = malloc((nc ? nc : 1) * sizeof(*ed));
	size_t nd = 0;

	if (!diffs || !e0 || !ed) {
		free(diffs), free(e0), free(ed);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nc;) {
		size_t k = i, n0 = 0, nn = 0;

		for (; k < nc && c[k]->comm_id == c[i]->comm_id && c[k]->comm_seq == c[i]->comm_seq; k++) {
			int dk = domain_of(m, c[k]);
			int64_t end = (int64_t)(rebased(m, c[k]) + c[k]->dur_ns);

			if (dk == 0)
				e0[n0++] = end;
			else if (dk == d)
				ed[nn++] = end;
		}
		if (n0 && nn)
			diffs[nd++] = median(e0, n0) - median(ed, nn);
		i = k;
	}
	m->domains[d].matched = (int)nd;
	if (nd) {
		int64_t s = median(diffs, nd);

		m->domains[d].aligned = s > m->tolerance_ns || s < -m->tolerance_ns;
		m->domains[d].shift_ns = m->domains[d].aligned ? s : 0;
	}
	free(diffs), free(e0), free(ed);
	return 0;
}

int ct_merge_align(struct ct_merge *m)
{
	struct ct_mevent **c;
	size_t nc;
	int err;

	m->domains = calloc(m->n_traces, sizeof(*m->domains));
	if (!m->domains)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_traces; i++) {
		struct ct_mtrace *t = &m->traces[i];
		size_t d;

		for (d = 0; d < m->n_domains; d++)
			if (!strcmp(m->domains[d].host, t->host) && !strcmp(m->domains[d].boot_id, t->boot_id))
				break;
		if (d == m->n_domains) {
			m->domains[d] = (struct ct_mdomain){ .host = t->host, .boot_id = t->boot_id,
							     .base_offset_ns = t->wall_offset_ns };
			m->n_domains++;
		}
		t->domain = (int)d;
	}
	err = collectives(m, &c, &nc);
	if (err)
		return err;
	for (size_t d = 1; d < m->n_domains && !err; d++)
		err = shift_of(m, (int)d, c, nc);
	free(c);
	return err;
}

int ct_merge_check_overlap(const struct ct_merge *m)
{
	for (size_t i = 0; i < m->n_traces; i++) {
		const struct ct_mtrace *t = &m->traces[i];
		const struct ct_mdomain *d = &m->domains[t->domain];
		int64_t to = d->base_offset_ns - t->wall_offset_ns + d->shift_ns;
		bool overlaps = m->n_traces == 1;

		for (size_t k = 0; k < m->n_traces && !overlaps; k++) {
			const struct ct_mtrace *u = &m->traces[k];
			const struct ct_mdomain *du = &m->domains[u->domain];
			int64_t uo = du->base_offset_ns - u->wall_offset_ns + du->shift_ns;

			overlaps = k != i && (int64_t)t->first_ns + to <= (int64_t)u->last_ns + uo &&
				   (int64_t)u->first_ns + uo <= (int64_t)t->last_ns + to;
		}
		if (!overlaps) {
			ct_err("merge: %s does not overlap in time with any other input: "
			       "traces of different runs?", t->path);
			return -EINVAL;
		}
	}
	return 0;
}

static int cmp_straggler(const void *a, const void *b)
{
	const struct ct_straggler *x = a, *y = b;

	return x->first_ns < y->first_ns ? -1 : x->first_ns > y->first_ns;
}

int ct_merge_stragglers(const struct ct_merge *m, struct ct_straggler **out, size_t *n)
{
	struct ct_mevent **c;
	struct ct_straggler *v;
	size_t nc;
	int err = collectives(m, &c, &nc);

	*n = 0;
	*out = NULL;
	if (err)
		return err;
	v = malloc((nc ? nc : 1) * sizeof(*v));
	if (!v) {
		free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nc;) {
		struct ct_straggler s = { .comm_id = c[i]->comm_id, .seq = c[i]->comm_seq, .api = c[i]->api,
					  .first_ns = UINT64_MAX };
		size_t k = i;

		for (; k < nc && c[k]->comm_id == s.comm_id && c[k]->comm_seq == s.seq; k++) {
			uint64_t at = ct_merge_ts(m, c[k]);

			s.ranks++;
			if (at < s.first_ns)
				s.first_ns = at;
			if (at >= s.last_ns) {
				s.last_ns = at;
				s.last_proc = c[k]->proc;
			}
		}
		if (s.ranks > 1)
			v[(*n)++] = s;
		i = k;
	}
	free(c);
	qsort(v, *n, sizeof(*v), cmp_straggler);
	*out = v;
	return 0;
}
