// SPDX-License-Identifier: MIT
/* The summary's figures by NVTX range name (nvtxstats.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/nvtxstats.h"

/* Names kept; a program that makes up names without end shares one row past it. */
#define NVTXSTATS_MAX 16384
#define OTHER_NAMES "(other names)"

static uint64_t hash(uint32_t pid, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull ^ pid;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001b3ull;
	return h;
}

/* The row of (pid, name), made when missing; NULL: no memory. Colliding
 * hashes take the next free key. */
static struct ct_nvtx_stat *row(struct ct_nvtxstats *st, uint32_t pid, const char *name)
{
	uint64_t k = hash(pid, name);
	struct ct_nvtx_stat *r;
	size_t len;

	for (; (r = ct_u64map_get(&st->rows, k)); k++)
		if (r->pid == pid && !strcmp(r->name, name))
			return r;
	if (st->rows.n >= NVTXSTATS_MAX && strcmp(name, OTHER_NAMES))
		return row(st, pid, OTHER_NAMES);
	len = strlen(name);
	r = calloc(1, sizeof(*r) + len + 1);
	if (!r)
		return NULL;
	r->pid = pid;
	memcpy(r->name, name, len + 1);
	if (ct_u64map_put(&st->rows, k, r)) {
		free(r);
		return NULL;
	}
	return r;
}

int ct_nvtxstats_range(struct ct_nvtxstats *st, const struct ct_nvtx_event *r)
{
	struct ct_nvtx_stat *s;

	if (r->mark)
		return 0;
	s = row(st, r->pid, r->name);
	if (!s)
		return -ENOMEM;
	s->ranges++;
	s->range_ns += r->end_mono_ns - r->mono_ns;
	return 0;
}

/* Each distinct name of the list once: `outer` around `outer` counts one. */
static int add(struct ct_nvtxstats *st, uint32_t pid, const char *const *l, uint32_t n, bool kernel, uint64_t ns)
{
	for (uint32_t i = 0; i < n; i++) {
		struct ct_nvtx_stat *s;
		bool again = false;

		for (uint32_t j = 0; j < i && !again; j++)
			again = !strcmp(l[i], l[j]);
		if (again)
			continue;
		s = row(st, pid, l[i]);
		if (!s)
			return -ENOMEM;
		if (kernel) {
			s->kernels++;
			s->gpu_ns += ns;
		} else {
			s->calls++;
			s->call_ns += ns;
		}
	}
	return 0;
}

int ct_nvtxstats_call(struct ct_nvtxstats *st, const struct ct_event *ev)
{
	return add(st, ev->pid, ev->nvtx, ev->n_nvtx, false, ev->entry_only ? 0 : ev->dur_ns);
}

int ct_nvtxstats_gpu(struct ct_nvtxstats *st, const struct ct_gpu_event *g)
{
	if (g->kind != CT_GPU_KERNEL)
		return 0;
	return add(st, g->pid, g->nvtx, g->n_nvtx, true, g->dur_ns);
}

static int by_time(const void *a, const void *b)
{
	const struct ct_nvtx_stat *x = *(const struct ct_nvtx_stat *const *)a, *y = *(const struct ct_nvtx_stat *const *)b;

	if (x->range_ns != y->range_ns)
		return x->range_ns < y->range_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

int ct_nvtxstats_sorted(const struct ct_nvtxstats *st, uint32_t pid, struct ct_nvtx_stat ***out, size_t *n)
{
	struct ct_nvtx_stat **v = malloc((st->rows.n + 1) * sizeof(*v));
	uint64_t k;
	void *r;

	*n = 0;
	if (!v)
		return -ENOMEM;
	for (size_t it = 0; ct_u64map_next(&st->rows, &it, &k, &r);)
		if (((struct ct_nvtx_stat *)r)->pid == pid)
			v[(*n)++] = r;
	qsort(v, *n, sizeof(*v), by_time);
	*out = v;
	return 0;
}

void ct_nvtxstats_free(struct ct_nvtxstats *st)
{
	ct_u64map_free_all(&st->rows, free);
}
