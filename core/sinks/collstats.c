// SPDX-License-Identifier: MIT
/*
 * Collective and point-to-point totals. Bus bandwidth is algbw times a
 * factor that depends on the pattern and on n, the communicator's size
 * (nccl-tests' doc/PERFORMANCE.md): all-reduce 2(n-1)/n; a pattern whose
 * bytes are one rank's share of an n-rank buffer (all-gather,
 * reduce-scatter, all-to-all) moves n-1 shares over the bus; broadcast,
 * reduce and point-to-point, 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/collstats.h"

static double bus_factor(uint32_t flags, int32_t n)
{
	if (flags & CT_API_BUS_ALLREDUCE)
		return 2.0 * (n - 1) / n;
	if (flags & CT_API_BUS_SHARE)
		return (double)(n - 1);
	return 1.0;
}

static struct ct_coll_stat *row(struct ct_coll_proc *p, const struct ct_event *ev, const char *dtype)
{
	struct ct_coll_stat *v;

	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].api == ev->api->symbol && p->v[i].plugin == ev->plugin->name &&
		    !strcmp(p->v[i].dtype, dtype))
			return &p->v[i];
	v = realloc(p->v, (p->n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	p->v = v;
	v = &p->v[p->n++];
	*v = (struct ct_coll_stat){ .plugin = ev->plugin->name, .api = ev->api->symbol,
				    .flags = ev->api->flags, .nranks = -1 };
	snprintf(v->dtype, sizeof(v->dtype), "%s", dtype);
	return v;
}

int ct_collstats_add(struct ct_collstats *s, const struct ct_event *ev)
{
	const struct ct_field *t;
	struct ct_coll_proc *p;
	struct ct_coll_stat *c;
	struct ct_coll_span *sp;
	char num[24];
	const char *dtype = "-";
	int32_t n;

	if (!ev->api || !(ev->api->flags & (CT_API_COLLECTIVE | CT_API_P2P)))
		return 0;
	/* One made inside another of its own library's calls (ncclBcast calls
	 * ncclBroadcast) is part of that one. */
	if (ev->depth && !ev->parent_api)
		return 0;
	p = ct_u64map_get(&s->procs, ev->pid);
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p || ct_u64map_put(&s->procs, ev->pid, p)) {
			free(p);
			return -ENOMEM;
		}
	}
	t = ct_event_role(ev, CT_ROLE_ELEM_TYPE);
	if (t && t->valid && t->enum_name) {
		dtype = t->enum_name;
	} else if (t && t->valid) {
		snprintf(num, sizeof(num), "%lld", (long long)t->v);
		dtype = num;
	}
	c = row(p, ev, dtype);
	if (!c)
		return -ENOMEM;
	c->calls++;
	if (ev->is_error) {
		c->errors++;
		return 0;
	}
	c->bytes += ct_event_bytes(ev);
	c->ns += ev->dur_ns;
	n = ev->comm_info ? ev->comm_info->nranks : -1;
	sp = &p->spans[p->next_span++ % CT_COLL_SPANS];
	*sp = (struct ct_coll_span){ .tid = ev->tid, .start = ev->mono_ns, .end = ev->mono_ns + ev->dur_ns,
				     .row = (size_t)(c - p->v), .bus_bytes = -1.0 };
	if (n > 0) {
		c->nranks = n;
		c->bus_ns += ev->dur_ns;
		sp->bus_bytes = (double)ct_event_bytes(ev) * bus_factor(c->flags, n);
		c->bus_bytes += sp->bus_bytes;
	}
	return 0;
}

int ct_collstats_gpu(struct ct_collstats *s, const struct ct_gpu_event *g)
{
	struct ct_coll_proc *p;
	size_t kept;

	s->gpu = true;
	if (g->kind != CT_GPU_KERNEL || !g->has_launch)
		return 0;
	p = ct_u64map_get(&s->procs, g->pid);
	if (!p)
		return 0;
	kept = p->next_span < CT_COLL_SPANS ? p->next_span : CT_COLL_SPANS;
	for (size_t i = 0; i < kept; i++) {
		struct ct_coll_span *sp = &p->spans[i];
		struct ct_coll_stat *c = &p->v[sp->row];

		if (sp->tid != g->launch_tid || g->launch_mono_ns < sp->start || g->launch_mono_ns > sp->end)
			continue;
		c->gpu_kernels++;
		c->gpu_ns += g->dur_ns;
		if (sp->bus_bytes >= 0) {
			c->gpu_bus_ns += g->dur_ns;
			if (!sp->has_gpu)
				c->gpu_bus_bytes += sp->bus_bytes;
		}
		sp->has_gpu = true;
		return 0;
	}
	return 0;
}

const struct ct_coll_proc *ct_collstats_proc(const struct ct_collstats *s, uint32_t pid)
{
	return ct_u64map_get(&s->procs, pid);
}

double ct_coll_algbw(const struct ct_coll_stat *c)
{
	return c->ns ? (double)c->bytes * 1e9 / (double)c->ns : 0.0;
}

double ct_coll_busbw(const struct ct_coll_stat *c)
{
	if (c->nranks < 0)
		return -1.0;
	return c->bus_ns ? c->bus_bytes * 1e9 / (double)c->bus_ns : 0.0;
}

double ct_coll_gpu_busbw(const struct ct_coll_stat *c)
{
	if (!c->gpu_bus_ns)
		return -1.0;
	return c->gpu_bus_bytes * 1e9 / (double)c->gpu_bus_ns;
}

void ct_collstats_free(struct ct_collstats *s)
{
	uint64_t key;
	void *val;

	for (size_t it = 0; ct_u64map_next(&s->procs, &it, &key, &val);) {
		free(((struct ct_coll_proc *)val)->v);
		free(val);
	}
	ct_u64map_free(&s->procs);
}

void ct_collstats_drop_pid(struct ct_collstats *s, uint32_t pid)
{
	struct ct_coll_proc *p = ct_u64map_del(&s->procs, pid);

	if (p) {
		free(p->v);
		free(p);
	}
}
