// SPDX-License-Identifier: MIT
/* Aggregation of decoded events into per-process, per-API statistics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/apistats.h"
#include "sinks/sink.h"
#include "plugin/number.h"

/* A process's figures; `comm` names it when main (its main thread's) or none yet. */
static struct ct_proc_stat *proc_get(struct ct_apistats *s, uint32_t pid, uint64_t ts_ns,
				     const char *comm, bool main)
{
	struct ct_proc_stat *p = ct_u64map_get(&s->procs, pid);

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return NULL;
		p->pid = pid;
		p->first_ns = ts_ns;
		if (ct_u64map_put(&s->procs, pid, p)) {
			free(p);
			return NULL;
		}
	}
	/* the main thread's comm names the process; any thread's will do until then */
	if (comm && (!p->comm[0] || main)) {
		strncpy(p->comm, comm, sizeof(p->comm) - 1);
		p->comm[sizeof(p->comm) - 1] = '\0';
	}
	return p;
}

static struct ct_api_stat *api_get(struct ct_apistats *s, struct ct_proc_stat *p,
				   const struct ct_plugin *pl, uint32_t api_idx, const struct ct_api *api)
{
	int pn = CT_PLUGIN_NUMBER(s, pl);
	uint64_t key;
	struct ct_api_stat *a;

	if (pn < 0)
		return NULL;
	key = (uint64_t)pn << 32 | api_idx;
	a = ct_u64map_get(&p->apis, key);
	if (a)
		return a;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	/* copies: the report may outlive the plugin's tables */
	a->plugin = strdup(pl && pl->name ? pl->name : "?");
	a->api = strdup(api && api->symbol ? api->symbol : "?");
	a->flags = api ? api->flags : 0;
	ct_hist_init(&a->hist);
	if (!a->plugin || !a->api || ct_u64map_put(&p->apis, key, a)) {
		free(a->plugin);
		free(a->api);
		free(a);
		return NULL;
	}
	return a;
}

/* One more call under `name` in a list of (name, calls, bytes). */
static int kind_add(struct ct_kind_stat **v, size_t *n, const char *name, uint64_t bytes)
{
	struct ct_kind_stat *k;

	for (size_t i = 0; i < *n; i++) {
		if (!strcmp((*v)[i].name, name)) {
			(*v)[i].calls++;
			(*v)[i].bytes += bytes;
			return 0;
		}
	}
	k = realloc(*v, (*n + 1) * sizeof(*k));
	if (!k)
		return -ENOMEM;
	*v = k;
	k = &k[*n];
	k->name = strdup(name);
	if (!k->name)
		return -ENOMEM;
	k->calls = 1;
	k->bytes = bytes;
	(*n)++;
	return 0;
}

/* One more failed call with error `name`, at the event's site if it has a stack. */
static int err_add(struct ct_api_stat *a, const char *name, const struct ct_event *ev)
{
	struct ct_err_stat *e = NULL;
	struct ct_site *site;

	for (size_t i = 0; i < a->n_errs && !e; i++)
		if (!strcmp(a->errs[i].name, name))
			e = &a->errs[i];
	if (!e) {
		e = realloc(a->errs, (a->n_errs + 1) * sizeof(*e));
		if (!e)
			return -ENOMEM;
		a->errs = e;
		e = &e[a->n_errs];
		*e = (struct ct_err_stat){ .name = strdup(name) };
		if (!e->name)
			return -ENOMEM;
		a->n_errs++;
	}
	e->calls++;
	if (!ev->stack && !ev->py_stack)
		return 0;
	e->stacked++;
	if (!ct_u64map_get(&e->sites.by_key, ct_site_key(ev->stack, ev->py_stack)) &&
	    e->sites.by_key.n >= CT_ERR_SITES_MAX) {
		e->unlisted++;
		return 0;
	}
	site = ct_sites_get(&e->sites, ev->stack, ev->py_stack);
	if (!site)
		return -ENOMEM;
	site->count++;
	return 0;
}

int ct_apistats_add(struct ct_apistats *s, const struct ct_event *ev)
{
	struct ct_proc_stat *p = proc_get(s, ev->pid, ev->ts_ns, ev->comm, ev->tid == ev->pid);
	struct ct_api_stat *a;
	uint32_t flags;

	if (!p)
		return -ENOMEM;
	a = api_get(s, p, ev->plugin, ev->api_idx, ev->api);
	if (!a)
		return -ENOMEM;
	a->calls++;
	p->calls++;
	s->calls++;
	if (ev->is_error) {
		char num[32];
		int err;

		a->errors++;
		p->errors++;
		snprintf(num, sizeof(num), "%lld", (long long)ev->result);
		err = err_add(a, ev->result_name ? ev->result_name : num, ev);
		if (err)
			return err;
	}
	if (ct_event_nested(ev))
		a->nested++;
	if (!ev->entry_only) {
		a->timed++;
		a->total_ns += ev->dur_ns;
		ct_hist_add(&a->hist, ev->dur_ns);
		if (!ct_event_nested(ev)) {
			a->outer_ns += ev->dur_ns;
			p->total_ns += ev->dur_ns;
			s->total_ns += ev->dur_ns;
		}
	}
	if (ev->ts_ns < p->first_ns)
		p->first_ns = ev->ts_ns;
	if (ev->ts_ns + ev->dur_ns > p->last_ns)
		p->last_ns = ev->ts_ns + ev->dur_ns;

	/* a failed copy moved nothing and a failed allocation holds nothing */
	flags = ev->api ? ev->api->flags : 0;
	if (!ev->is_error && ct_api_has_bytes(flags)) {
		uint64_t bytes = ct_event_bytes(ev);

		a->bytes += bytes;
		if (flags & CT_API_MOVES_BYTES) {
			const struct ct_field *k = ct_event_role(ev, CT_ROLE_COPY_KIND);
			const char *name = "";
			char num[32];

			if (k && k->enum_name) {
				name = k->enum_name;
			} else if (k) {
				snprintf(num, sizeof(num), "%lld", (long long)k->v);
				name = num;
			}
			return kind_add(&a->kinds, &a->n_kinds, name, bytes);
		}
	}
	return 0;
}

int ct_apistats_set(struct ct_apistats *s, const struct ct_totals *t, uint64_t *more_calls, uint64_t *more_ns)
{
	const struct ct_api *api = t->api_idx < t->plugin->n_apis ? &t->plugin->apis[t->api_idx] : NULL;
	struct ct_proc_stat *p = proc_get(s, t->pid, 0, t->comm, false);
	struct ct_api_stat *a;
	uint64_t total = t->timed ? t->total_ns : 0;

	if (!p)
		return -ENOMEM;
	a = api_get(s, p, t->plugin, t->api_idx, api);
	if (!a)
		return -ENOMEM;
	/* The kernel's figures are since the start: replace, not add. */
	*more_calls = t->calls - a->calls;
	*more_ns = total - a->total_ns;
	p->calls += t->calls - a->calls;
	s->calls += t->calls - a->calls;
	p->errors += t->errors - a->errors;
	p->total_ns += total - a->total_ns;
	s->total_ns += total - a->total_ns;
	a->calls = t->calls;
	a->errors = t->errors;
	a->total_ns = total;
	a->outer_ns = total; /* the kernel counts no nesting */
	a->bytes = t->bytes;
	ct_hist_init(&a->hist);
	a->timed = 0;
	if (t->timed) {
		a->timed = t->calls;
		a->hist.count = t->calls;
		a->hist.sum = t->total_ns;
		a->hist.min = t->min_ns;
		a->hist.max = t->max_ns;
		for (unsigned b = 0; b < t->n_hist && b < CT_HIST_BUCKETS; b++)
			a->hist.b[b] = t->hist[b];
	}
	return 0;
}

static void api_free(struct ct_api_stat *a)
{
	for (size_t k = 0; k < a->n_kinds; k++)
		free(a->kinds[k].name);
	free(a->kinds);
	for (size_t k = 0; k < a->n_errs; k++) {
		free(a->errs[k].name);
		ct_sites_free(&a->errs[k].sites);
	}
	free(a->errs);
	free(a->plugin);
	free(a->api);
	free(a);
}

static void proc_free(struct ct_proc_stat *p)
{
	struct ct_api_stat *a;

	for (size_t j = 0; ct_u64map_next(&p->apis, &j, NULL, (void **)&a);)
		api_free(a);
	ct_u64map_free(&p->apis);
	free(p);
}

void ct_apistats_free(struct ct_apistats *s)
{
	struct ct_proc_stat *p;

	for (size_t i = 0; ct_u64map_next(&s->procs, &i, NULL, (void **)&p);)
		proc_free(p);
	ct_u64map_free(&s->procs);
	if (s->ended)
		proc_free(s->ended);
	memset(s, 0, sizeof(*s));
}

/* Room for every kind and error of `from` that `to` lacks, so that adding cannot fail part-way. */
static int api_reserve(struct ct_api_stat *to, const struct ct_api_stat *from)
{
	struct ct_kind_stat *k = realloc(to->kinds, (to->n_kinds + from->n_kinds + 1) * sizeof(*k));
	struct ct_err_stat *e;

	if (!k)
		return -ENOMEM;
	to->kinds = k;
	e = realloc(to->errs, (to->n_errs + from->n_errs + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	to->errs = e;
	return 0;
}

/* The entry named `name` in an array of `size`-byte structs that begin with
 * their name (kinds, errors), added zeroed if not there, after api_reserve();
 * NULL when the name cannot be copied. */
static void *named(void *v, size_t *n, size_t size, const char *name)
{
	char *e = v;

	for (size_t i = 0; i < *n; i++, e += size)
		if (!strcmp(*(char **)e, name))
			return e;
	memset(e, 0, size);
	if (!(*(char **)e = strdup(name)))
		return NULL;
	(*n)++;
	return e;
}

/* `from`'s figures added to `to` (the same API), after api_reserve(). Out of
 * memory, a kind or error is left out of the split; its calls stay in the API's. */
static void api_add(struct ct_api_stat *to, const struct ct_api_stat *from)
{
	to->calls += from->calls;
	to->errors += from->errors;
	to->timed += from->timed;
	to->total_ns += from->total_ns;
	to->nested += from->nested;
	to->outer_ns += from->outer_ns;
	to->bytes += from->bytes;
	for (size_t i = 0; i < from->n_kinds; i++) {
		struct ct_kind_stat *k = named(to->kinds, &to->n_kinds, sizeof(*k), from->kinds[i].name);

		if (k) {
			k->calls += from->kinds[i].calls;
			k->bytes += from->kinds[i].bytes;
		}
	}
	for (size_t i = 0; i < from->n_errs; i++) {
		struct ct_err_stat *e = named(to->errs, &to->n_errs, sizeof(*e), from->errs[i].name);

		if (e) {
			e->calls += from->errs[i].calls;
			e->stacked += from->errs[i].stacked;
			e->unlisted += from->errs[i].stacked; /* its sites go with the process */
		}
	}
	if (from->hist.count) {
		if (!to->hist.count || from->hist.min < to->hist.min)
			to->hist.min = from->hist.min;
		if (from->hist.max > to->hist.max)
			to->hist.max = from->hist.max;
		to->hist.count += from->hist.count;
		to->hist.sum += from->hist.sum;
		for (unsigned b = 0; b < CT_HIST_BUCKETS; b++)
			to->hist.b[b] += from->hist.b[b];
	}
}

int ct_apistats_fold(struct ct_apistats *s, uint32_t pid)
{
	struct ct_proc_stat *p = ct_u64map_get(&s->procs, pid), *e = s->ended;
	struct ct_api_stat *a, *to;
	uint64_t key;
	int err = 0;

	if (!p)
		return 0;
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		snprintf(e->comm, sizeof(e->comm), "(ended)");
		e->first_ns = p->first_ns;
		s->ended = e;
	}
	/* an API the ended row lacks takes the process's own, moved */
	for (size_t i = 0; ct_u64map_next(&p->apis, &i, &key, (void **)&a) && !err;)
		if (!ct_u64map_get(&e->apis, key))
			err = ct_u64map_put(&e->apis, key, a);
	for (size_t i = 0; ct_u64map_next(&p->apis, &i, &key, (void **)&a) && !err;)
		if ((to = ct_u64map_get(&e->apis, key)) != a)
			err = api_reserve(to, a);
	if (err) { /* undo the moves: the process stays whole */
		for (size_t i = 0; ct_u64map_next(&p->apis, &i, &key, (void **)&a);)
			if (ct_u64map_get(&e->apis, key) == a)
				ct_u64map_del(&e->apis, key);
		return err;
	}
	for (size_t i = 0; ct_u64map_next(&p->apis, &i, &key, (void **)&a);) {
		to = ct_u64map_get(&e->apis, key);
		if (to != a) {
			api_add(to, a);
			api_free(a);
		}
	}
	e->calls += p->calls;
	e->errors += p->errors;
	e->total_ns += p->total_ns;
	if (p->first_ns < e->first_ns)
		e->first_ns = p->first_ns;
	if (p->last_ns > e->last_ns)
		e->last_ns = p->last_ns;
	ct_u64map_free(&p->apis);
	ct_u64map_del(&s->procs, pid);
	free(p);
	s->n_ended++;
	return 0;
}

static int cmp_proc(const void *x, const void *y)
{
	const struct ct_proc_stat *a = *(struct ct_proc_stat *const *)x;
	const struct ct_proc_stat *b = *(struct ct_proc_stat *const *)y;

	return (a->pid > b->pid) - (a->pid < b->pid);
}

int ct_apistats_procs(const struct ct_apistats *s, struct ct_proc_stat ***out, size_t *n)
{
	struct ct_proc_stat **v = calloc(s->procs.n ? s->procs.n : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; ct_u64map_next(&s->procs, &i, NULL, (void **)&v[k]);)
		k++;
	qsort(v, k, sizeof(*v), cmp_proc);
	*out = v;
	*n = k;
	return 0;
}

static int cmp_api(const void *x, const void *y)
{
	const struct ct_api_stat *a = *(struct ct_api_stat *const *)x;
	const struct ct_api_stat *b = *(struct ct_api_stat *const *)y;
	int c;

	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	c = strcmp(a->plugin, b->plugin);
	return c ? c : strcmp(a->api, b->api);
}

int ct_apistats_sorted(const struct ct_proc_stat *p, struct ct_api_stat ***out, size_t *n)
{
	struct ct_api_stat **v = calloc(p->apis.n ? p->apis.n : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; ct_u64map_next(&p->apis, &i, NULL, (void **)&v[k]);)
		k++;
	qsort(v, k, sizeof(*v), cmp_api);
	*out = v;
	*n = k;
	return 0;
}
