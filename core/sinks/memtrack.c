// SPDX-License-Identifier: MIT
/* Allocation tracking for the memory, chrome and html sinks: see memtrack.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/memtrack.h"
#include "plugin/number.h"

const char *ct_mem_kind_name(unsigned kind)
{
	static const char *const names[CT_MEM_KINDS] = { "device", "host", "managed" };

	return kind < CT_MEM_KINDS ? names[kind] : "?";
}

static int plugin_number(struct ct_memtrack *t, const struct ct_plugin *pl)
{
	unsigned known = t->n_plugins;
	int pn = CT_PLUGIN_NUMBER(t, pl);

	/* Names are kept: the report may come after the plugin is gone. */
	if (pn >= 0 && (unsigned)pn == known) {
		t->plugin_names[pn] = strdup(pl && pl->name ? pl->name : "?");
		if (!t->plugin_names[pn]) {
			t->n_plugins--;
			return -ENOMEM;
		}
	}
	return pn;
}

/* API names are kept once per API, not once per allocation. */
static const char *api_name(struct ct_memtrack *t, int pn, const struct ct_event *ev)
{
	uint64_t key = (uint64_t)pn << 32 | ev->api_idx;
	char *name = ct_u64map_get(&t->names, key);

	if (name)
		return name;
	name = strdup(ev->api && ev->api->symbol ? ev->api->symbol : "?");
	if (!name || ct_u64map_put(&t->names, key, name)) {
		free(name);
		return NULL;
	}
	return name;
}

static struct ct_mem_space *space_get(struct ct_memtrack *t, int pn, const struct ct_event *ev)
{
	uint64_t key = (uint64_t)ev->pid << 16 | (unsigned)pn;
	struct ct_mem_space *sp = ct_u64map_get(&t->spaces, key);

	if (!sp) {
		sp = calloc(1, sizeof(*sp));
		if (!sp)
			return NULL;
		sp->pid = ev->pid;
		sp->plugin = t->plugin_names[pn];
		sp->began_ns = ev->ts_ns;
		if (ct_u64map_put(&t->spaces, key, sp)) {
			free(sp);
			return NULL;
		}
	}
	if (ev->comm && (!sp->comm[0] || ev->tid == ev->pid)) {
		strncpy(sp->comm, ev->comm, sizeof(sp->comm) - 1);
		sp->comm[sizeof(sp->comm) - 1] = '\0';
	}
	if (ev->ts_ns < sp->began_ns)
		sp->began_ns = ev->ts_ns;
	return sp;
}

static unsigned kind_of(uint32_t flags)
{
	if (flags & CT_API_HOST_MEM)
		return CT_MEM_HOST;
	if (flags & CT_API_MANAGED_MEM)
		return CT_MEM_MANAGED;
	return CT_MEM_DEVICE;
}

static void release(struct ct_mem_space *sp, struct ct_alloc *a)
{
	sp->in_use[a->kind] -= a->size;
	free(a);
}

static int on_alloc(struct ct_memtrack *t, struct ct_mem_space *sp, int pn,
		    const struct ct_event *ev, struct ct_mem_change *ch)
{
	const struct ct_field *f = ct_event_role(ev, CT_ROLE_ALLOC_PTR);
	struct ct_alloc *a, *old;
	uint64_t ptr;

	if (f && f->valid)
		ptr = f->v;
	else if (!f && ev->has_ret_handle)
		ptr = ev->ret_handle; /* runtimes that return the new object */
	else
		return sp->unreadable++, 0;
	if (!ptr)
		return sp->unreadable++, 0;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->ptr = ptr;
	a->size = ct_event_bytes(ev);
	a->ts_ns = ev->ts_ns;
	a->tid = ev->tid;
	a->kind = (uint8_t)kind_of(ev->api->flags);
	a->api = api_name(t, pn, ev);
	if (ev->stack || ev->py_stack) /* NULL (no memory): shown as no stack */
		a->site = ct_sites_get(&t->sites, ev->stack, ev->py_stack);
	if (!a->api) {
		free(a);
		return -ENOMEM;
	}
	/* a live pointer handed out again: its free happened where we did not see it */
	old = ct_u64map_del(&sp->live, ptr);
	if (old) {
		sp->replaced++;
		release(sp, old);
	}
	if (ct_u64map_put(&sp->live, ptr, a)) {
		free(a);
		return -ENOMEM;
	}
	sp->allocs++;
	sp->alloc_bytes += a->size;
	sp->in_use[a->kind] += a->size;
	if (sp->in_use[a->kind] > sp->peak[a->kind])
		sp->peak[a->kind] = sp->in_use[a->kind];
	if (ch)
		*ch = (struct ct_mem_change){ CT_MEMOP_ALLOC, sp, a->kind, ptr, a->size };
	return 0;
}

static int on_free(struct ct_memtrack *t, struct ct_mem_space *sp, int pn,
		   const struct ct_event *ev, struct ct_mem_change *ch)
{
	const struct ct_field *f = ct_event_role(ev, CT_ROLE_FREE_PTR);
	struct ct_alloc *a;

	/* freeing NULL is a no-op that programs use to initialise the runtime */
	if (!f || !f->valid || !f->v)
		return 0;
	a = ct_u64map_get(&sp->live, f->v);
	if (a && a->holds) {
		a->holds--; /* released, but still held by a retain */
		return 0;
	}
	if (a)
		ct_u64map_del(&sp->live, f->v);
	if (!a) {
		struct ct_alloc *u;

		if (sp->unknown < CT_MEM_UNKNOWN_KEEP) {
			u = &sp->unknown_list[sp->unknown];
			u->ptr = f->v;
			u->ts_ns = ev->ts_ns;
			u->tid = ev->tid;
			u->kind = (uint8_t)kind_of(ev->api->flags);
			u->api = api_name(t, pn, ev);
		}
		sp->unknown++;
		if (ch)
			*ch = (struct ct_mem_change){ CT_MEMOP_FREE_UNKNOWN, sp, kind_of(ev->api->flags), f->v, 0 };
		return 0;
	}
	sp->frees++;
	sp->freed_bytes += a->size;
	if (ch)
		*ch = (struct ct_mem_change){ CT_MEMOP_FREE, sp, a->kind, a->ptr, a->size };
	release(sp, a);
	return 0;
}

/* A hold on a live allocation; one on a pointer never seen allocated is not
 * counted: its frees will be, as unknown ones. */
static void on_retain(struct ct_mem_space *sp, const struct ct_event *ev)
{
	const struct ct_field *f = ct_event_role(ev, CT_ROLE_FREE_PTR);
	struct ct_alloc *a = f && f->valid && f->v ? ct_u64map_get(&sp->live, f->v) : NULL;

	if (a) {
		a->holds++;
		sp->retains++;
	}
}

int ct_memtrack_event(struct ct_memtrack *t, const struct ct_event *ev, struct ct_mem_change *ch)
{
	uint32_t flags = ev->api ? ev->api->flags : 0;
	struct ct_mem_space *sp;
	int pn;

	if (ch)
		*ch = (struct ct_mem_change){ 0 };
	pn = plugin_number(t, ev->plugin);
	if (pn < 0)
		return pn;
	/* every event opens the space, so that its start time says when tracing began */
	sp = space_get(t, pn, ev);
	if (!sp)
		return -ENOMEM;
	/* a failed call allocated or freed nothing (one that returns its
	 * allocation failed if it returned NULL and no error code) */
	if (ev->is_error || ev->entry_only || (ev->has_ret_handle && !ev->has_result))
		return 0;
	if (flags & CT_API_ALLOC)
		return on_alloc(t, sp, pn, ev, ch);
	if (flags & CT_API_FREE)
		return on_free(t, sp, pn, ev, ch);
	if (flags & CT_API_RETAIN)
		on_retain(sp, ev);
	return 0;
}

static int cmp_space(const void *x, const void *y)
{
	const struct ct_mem_space *a = *(struct ct_mem_space *const *)x;
	const struct ct_mem_space *b = *(struct ct_mem_space *const *)y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return strcmp(a->plugin, b->plugin);
}

int ct_memtrack_spaces(const struct ct_memtrack *t, struct ct_mem_space ***out, size_t *n)
{
	struct ct_mem_space **v = calloc(t->spaces.n ? t->spaces.n : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; ct_u64map_next(&t->spaces, &i, NULL, (void **)&v[k]);)
		k++;
	qsort(v, k, sizeof(*v), cmp_space);
	*out = v;
	*n = k;
	return 0;
}

size_t ct_memtrack_pid_spaces(const struct ct_memtrack *t, uint32_t pid, struct ct_mem_space *out[64])
{
	size_t k = 0;

	/* looked up by key, one a runtime: never a walk of every process's */
	for (unsigned pn = 0; pn < t->n_plugins; pn++)
		if ((out[k] = ct_u64map_get(&t->spaces, (uint64_t)pid << 16 | pn)))
			k++;
	qsort(out, k, sizeof(*out), cmp_space);
	return k;
}

static int cmp_alloc(const void *x, const void *y)
{
	const struct ct_alloc *a = *(struct ct_alloc *const *)x;
	const struct ct_alloc *b = *(struct ct_alloc *const *)y;

	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	return (a->ptr > b->ptr) - (a->ptr < b->ptr);
}

int ct_memtrack_live(const struct ct_mem_space *sp, struct ct_alloc ***out, size_t *n)
{
	struct ct_alloc **v = calloc(sp->live.n ? sp->live.n : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; ct_u64map_next(&sp->live, &i, NULL, (void **)&v[k]);)
		k++;
	qsort(v, k, sizeof(*v), cmp_alloc);
	*out = v;
	*n = k;
	return 0;
}

static void space_free(struct ct_mem_space *sp)
{
	struct ct_alloc *a;

	for (size_t i = 0; ct_u64map_next(&sp->live, &i, NULL, (void **)&a);)
		free(a);
	ct_u64map_free(&sp->live);
	free(sp);
}

void ct_memtrack_drop_pid_but(struct ct_memtrack *t, uint32_t pid,
			      bool (*keep)(void *arg, const struct ct_mem_space *sp), void *arg)
{
	for (unsigned pn = 0; pn < t->n_plugins; pn++) {
		uint64_t key = (uint64_t)pid << 16 | pn;
		struct ct_mem_space *sp = ct_u64map_get(&t->spaces, key);

		if (sp && (!keep || !keep(arg, sp))) {
			ct_u64map_del(&t->spaces, key);
			space_free(sp);
		}
	}
}

void ct_memtrack_drop_pid(struct ct_memtrack *t, uint32_t pid)
{
	ct_memtrack_drop_pid_but(t, pid, NULL, NULL);
}

void ct_memtrack_free(struct ct_memtrack *t)
{
	struct ct_mem_space *sp;
	char *name;

	for (size_t i = 0; ct_u64map_next(&t->spaces, &i, NULL, (void **)&sp);)
		space_free(sp);
	ct_u64map_free(&t->spaces);
	for (size_t i = 0; ct_u64map_next(&t->names, &i, NULL, (void **)&name);)
		free(name);
	ct_u64map_free(&t->names);
	for (unsigned i = 0; i < t->n_plugins; i++)
		free(t->plugin_names[i]);
	ct_sites_free(&t->sites);
	memset(t, 0, sizeof(*t));
}

static int by_bytes(const void *x, const void *y)
{
	const struct ct_mem_site *a = x, *b = y;

	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return a->count < b->count ? 1 : a->count > b->count ? -1 : 0;
}

int ct_memtrack_live_sites(const struct ct_mem_space *sp, struct ct_mem_site **out, size_t *n)
{
	struct ct_u64map at = { 0 }; /* site key -> index + 1 in v */
	struct ct_mem_site *v = calloc(sp->live.n ? sp->live.n : 1, sizeof(*v));
	struct ct_alloc *a;
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; ct_u64map_next(&sp->live, &i, NULL, (void **)&a);) {
		uint64_t key = a->site ? a->site->key : 0;
		uintptr_t idx = (uintptr_t)ct_u64map_get(&at, key);

		if (!idx) {
			if (ct_u64map_put(&at, key, (void *)(uintptr_t)(k + 1))) {
				ct_u64map_free(&at);
				free(v);
				return -ENOMEM;
			}
			v[k].site = a->site;
			idx = ++k;
		}
		v[idx - 1].count++;
		v[idx - 1].bytes += a->size;
	}
	ct_u64map_free(&at);
	qsort(v, k, sizeof(*v), by_bytes);
	*out = v;
	*n = k;
	return 0;
}
