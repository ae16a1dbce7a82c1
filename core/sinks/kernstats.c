// SPDX-License-Identifier: MIT
/* Kernels by launches: see kernstats.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/kernstats.h"

struct ct_kern_proc {
	struct ct_u64map by_key; /* hash of (runtime, name) -> struct ct_kern_stat */
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#define FNV_SEED 0xcbf29ce484222325ull

/* The shape of a role: one DIM3 or SIZES3 field, or up to three UINT
 * fields in a row (x, y, z). A dimension left out is 1. */
static struct ct_kern_shape shape_of(const struct ct_event *ev, enum ct_role role)
{
	struct ct_kern_shape s = { { 1, 1, 1 }, 0 };
	int dims = 0;

	for (int i = 0; i < ev->n_fields; i++) {
		const struct ct_field *f = &ev->fields[i];

		if (f->arg->role != role)
			continue;
		if (!f->valid)
			return (struct ct_kern_shape){ { 0 }, 0 };
		if (f->arg->kind == CT_ARG_DIM3 || f->arg->kind == CT_ARG_SIZES3) {
			for (int k = 0; k < f->n3 && k < 3; k++)
				s.v[k] = f->v3[k];
			s.n = 3;
			return s;
		}
		if (dims < 3)
			s.v[dims++] = f->v;
		s.n = 3; /* dimensions not given are 1 */
	}
	return s;
}

static int shape_note(struct ct_u64map *m, const struct ct_kern_shape *s, struct ct_kern_shape *first)
{
	uint64_t h;

	if (!s->n)
		return 0;
	h = fnv(FNV_SEED, s->v, sizeof(s->v));
	if (!first->n)
		*first = *s;
	return ct_u64map_get(m, h) ? 0 : ct_u64map_put(m, h, (void *)1);
}

/* The kernel's name as the sinks show it: its own, or the value in hex. */
static const char *kernel_name(const struct ct_field *f, char *hex, size_t n)
{
	if (!f || !f->valid)
		return "?";
	if (f->str)
		return f->str;
	snprintf(hex, n, "0x%" PRIx64, f->v);
	return hex;
}

static struct ct_kern_stat *stat_get(struct ct_kern_proc *p, const char *plugin, const char *name)
{
	uint64_t h = fnv(fnv(FNV_SEED, plugin, strlen(plugin) + 1), name, strlen(name));
	struct ct_kern_stat *s;

	/* Another (runtime, name) on the same hash: the next key. */
	while ((s = ct_u64map_get(&p->by_key, h)) && (strcmp(s->name, name) || strcmp(s->plugin, plugin)))
		h = h * 0x9e3779b97f4a7c15ull + 1;
	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->name = strdup(name);
	s->plugin = strdup(plugin);
	if (!s->name || !s->plugin || ct_u64map_put(&p->by_key, h, s)) {
		free(s->name);
		free(s->plugin);
		free(s);
		return NULL;
	}
	return s;
}

int ct_kernstats_add(struct ct_kernstats *k, const struct ct_event *ev)
{
	const struct ct_field *kf = ct_event_role(ev, CT_ROLE_KERNEL);
	struct ct_kern_shape grid, block;
	struct ct_kern_proc *p;
	struct ct_kern_stat *s;
	char hex[24];
	int err;

	/* A graph launch runs no one kernel; a launch inside another traced
	 * call is the outer one's (a runtime launch calls the driver's). */
	if (!ev->api || !(ev->api->flags & CT_API_LAUNCH) || !kf || ev->parent_api)
		return 0;
	p = ct_u64map_get(&k->procs, ev->pid);
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p || ct_u64map_put(&k->procs, ev->pid, p)) {
			free(p);
			return -ENOMEM;
		}
	}
	s = stat_get(p, ev->plugin && ev->plugin->name ? ev->plugin->name : "?", kernel_name(kf, hex, sizeof(hex)));
	if (!s)
		return -ENOMEM;
	s->launches++;
	k->launches++;
	if (ev->is_error)
		s->errors++;
	if (!ev->entry_only)
		s->total_ns += ev->dur_ns;
	grid = shape_of(ev, CT_ROLE_GRID);
	block = shape_of(ev, CT_ROLE_BLOCK);
	err = shape_note(&s->grids, &grid, &s->grid);
	return err ? err : shape_note(&s->blocks, &block, &s->block);
}

static int cmp_kern(const void *x, const void *y)
{
	const struct ct_kern_stat *a = *(struct ct_kern_stat *const *)x;
	const struct ct_kern_stat *b = *(struct ct_kern_stat *const *)y;
	int c;

	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	if (a->launches != b->launches)
		return a->launches > b->launches ? -1 : 1;
	c = strcmp(a->plugin, b->plugin);
	return c ? c : strcmp(a->name, b->name);
}

int ct_kernstats_sorted(const struct ct_kernstats *k, uint32_t pid, struct ct_kern_stat ***out, size_t *n)
{
	const struct ct_kern_proc *p = ct_u64map_get(&k->procs, pid);
	struct ct_kern_stat **v = calloc(p && p->by_key.n ? p->by_key.n : 1, sizeof(*v));
	size_t m = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; p && ct_u64map_next(&p->by_key, &i, NULL, (void **)&v[m]);)
		m++;
	qsort(v, m, sizeof(*v), cmp_kern);
	*out = v;
	*n = m;
	return 0;
}

static void kern_proc_free(struct ct_kern_proc *p)
{
	struct ct_kern_stat *s;

	for (size_t j = 0; ct_u64map_next(&p->by_key, &j, NULL, (void **)&s);) {
		ct_u64map_free(&s->grids);
		ct_u64map_free(&s->blocks);
		free(s->name);
		free(s->plugin);
		free(s);
	}
	ct_u64map_free(&p->by_key);
	free(p);
}

void ct_kernstats_free(struct ct_kernstats *k)
{
	struct ct_kern_proc *p;

	for (size_t i = 0; ct_u64map_next(&k->procs, &i, NULL, (void **)&p);)
		kern_proc_free(p);
	ct_u64map_free(&k->procs);
	memset(k, 0, sizeof(*k));
}

void ct_kernstats_drop_pid(struct ct_kernstats *k, uint32_t pid)
{
	struct ct_kern_proc *p = ct_u64map_del(&k->procs, pid);

	if (p)
		kern_proc_free(p);
}

void ct_kern_shape_text(char *buf, size_t n, const struct ct_kern_shape *s)
{
	if (!s->n)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "(%" PRIu64 ",%" PRIu64 ",%" PRIu64 ")", s->v[0], s->v[1], s->v[2]);
}

bool ct_kern_name_cut(char *buf, size_t n, const char *name, size_t width)
{
	size_t len = strlen(name), cut;

	if (len <= width || width < 4) {
		snprintf(buf, n, "%s", name);
		return false;
	}
	cut = width - 3;
	/* not inside a UTF-8 sequence: back to the byte that starts one */
	while (cut && ((unsigned char)name[cut] & 0xc0) == 0x80)
		cut--;
	snprintf(buf, n, "%.*s...", (int)cut, name);
	return true;
}
