// SPDX-License-Identifier: MIT
/* GPU activity per process: kernels, copies, devices (gpustats.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/gpustats.h"

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static uint64_t pid_key(uint32_t pid, uint64_t v)
{
	return ((uint64_t)pid << 32 | (v & 0xffffffffu)) * 0x9e3779b97f4a7c15ull ^ (v >> 32);
}

static struct ct_device_stat *device_get(struct ct_gpustats *s, uint32_t pid, int32_t device)
{
	uint64_t key = (uint64_t)pid << 32 | (uint32_t)(device + 1);
	struct ct_device_stat *d = ct_u64map_get(&s->devices, key);

	if (d)
		return d;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->pid = pid;
	d->device = device;
	if (ct_u64map_put(&s->devices, key, d)) {
		free(d);
		return NULL;
	}
	return d;
}

static struct ct_kernel_stat *kernel_get(struct ct_gpustats *s, uint32_t pid, const char *name)
{
	uint64_t key = hash_str(0xcbf29ce484222325ull ^ pid, name);
	struct ct_kernel_stat *head = ct_u64map_get(&s->kernels, key), *k;

	for (k = head; k; k = k->next)
		if (k->pid == pid && !strcmp(k->name, name))
			return k;
	k = calloc(1, sizeof(*k));
	if (!k || !(k->name = strdup(name))) {
		free(k);
		return NULL;
	}
	k->pid = pid;
	ct_hist_init(&k->hist);
	k->next = head;
	if (ct_u64map_put(&s->kernels, key, k)) {
		free(k->name);
		free(k);
		return NULL;
	}
	return k;
}

static struct ct_copy_stat *copy_get(struct ct_gpustats *s, uint32_t pid, const char *kind)
{
	uint64_t key = pid_key(pid, (uintptr_t)kind);
	struct ct_copy_stat *c = ct_u64map_get(&s->copies, key);

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->pid = pid;
	c->kind = kind;
	if (ct_u64map_put(&s->copies, key, c)) {
		free(c);
		return NULL;
	}
	return c;
}

int ct_gpustats_gpu(struct ct_gpustats *s, const struct ct_gpu_event *g)
{
	struct ct_device_stat *d = device_get(s, g->pid, (int32_t)g->device);

	if (!d)
		return -ENOMEM;
	s->gpu_events++;
	if (g->kind == CT_GPU_KERNEL) {
		struct ct_kernel_stat *k = kernel_get(s, g->pid, g->name ? g->name : "(unnamed)");

		if (!k)
			return -ENOMEM;
		ct_hist_add(&k->hist, g->dur_ns);
		d->kernels++;
		d->kernel_ns += g->dur_ns;
	} else {
		struct ct_copy_stat *c = copy_get(s, g->pid, g->kind == CT_GPU_MEMCPY ? g->copy_kind : "memset");

		if (!c)
			return -ENOMEM;
		c->count++;
		c->bytes += g->bytes;
		c->ns += g->dur_ns;
		d->copies++;
		d->copy_bytes += g->bytes;
		d->copy_ns += g->dur_ns;
	}
	return 0;
}

int ct_gpustats_call(struct ct_gpustats *s, const struct ct_event *ev)
{
	struct ct_device_stat *d = device_get(s, ev->pid, ev->device);

	if (!d)
		return -ENOMEM;
	d->calls++;
	if (!ev->entry_only)
		d->call_ns += ev->dur_ns;
	return 0;
}

void ct_gpustats_free(struct ct_gpustats *s)
{
	struct ct_kernel_stat *k, *next;
	void *v;

	for (size_t i = 0; ct_u64map_next(&s->kernels, &i, NULL, (void **)&k);)
		for (; k; k = next) {
			next = k->next;
			free(k->name);
			free(k);
		}
	for (size_t i = 0; ct_u64map_next(&s->copies, &i, NULL, &v);)
		free(v);
	for (size_t i = 0; ct_u64map_next(&s->devices, &i, NULL, &v);)
		free(v);
	ct_u64map_free(&s->kernels);
	ct_u64map_free(&s->copies);
	ct_u64map_free(&s->devices);
}

static int by_kernel_time(const void *a, const void *b)
{
	const struct ct_kernel_stat *x = *(void *const *)a, *y = *(void *const *)b;

	if (x->hist.sum != y->hist.sum)
		return x->hist.sum < y->hist.sum ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_copy_bytes(const void *a, const void *b)
{
	const struct ct_copy_stat *x = *(void *const *)a, *y = *(void *const *)b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return strcmp(x->kind, y->kind);
}

static int by_device(const void *a, const void *b)
{
	const struct ct_device_stat *x = *(void *const *)a, *y = *(void *const *)b;
	/* unknown (-1) after every device */
	uint32_t dx = (uint32_t)x->device, dy = (uint32_t)y->device;

	return dx < dy ? -1 : dx > dy;
}

/* Each value of `m`, or of the chains in it, that belongs to `pid` (every
 * value's first field is its pid), sorted. */
static int pick(const struct ct_u64map *m, uint32_t pid, bool chains, int (*cmp)(const void *, const void *),
		void ***out, size_t *n)
{
	size_t k = 0, total = 0;
	void **v, *val;

	for (size_t i = 0; ct_u64map_next(m, &i, NULL, &val);)
		for (struct ct_kernel_stat *ks = val; ks; ks = chains ? ks->next : NULL)
			total++;
	v = malloc((total + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; ct_u64map_next(m, &i, NULL, &val);)
		for (void *x = val; x; x = chains ? ((struct ct_kernel_stat *)x)->next : NULL)
			if (*(uint32_t *)x == pid)
				v[k++] = x;
	qsort(v, k, sizeof(*v), cmp);
	*out = v;
	*n = k;
	return 0;
}

int ct_gpustats_kernels(const struct ct_gpustats *s, uint32_t pid, struct ct_kernel_stat ***out, size_t *n)
{
	return pick(&s->kernels, pid, true, by_kernel_time, (void ***)out, n);
}

int ct_gpustats_copies(const struct ct_gpustats *s, uint32_t pid, struct ct_copy_stat ***out, size_t *n)
{
	return pick(&s->copies, pid, false, by_copy_bytes, (void ***)out, n);
}

int ct_gpustats_devices(const struct ct_gpustats *s, uint32_t pid, struct ct_device_stat ***out, size_t *n)
{
	return pick(&s->devices, pid, false, by_device, (void ***)out, n);
}

/* The keys of `m` whose value, or a value in its chain, is `pid`'s: collected
 * first, as a delete may move the entries an iteration has yet to see. */
static uint64_t *keys_of(const struct ct_u64map *m, uint32_t pid, bool chains, size_t *n)
{
	uint64_t *v = malloc((m->n + 1) * sizeof(*v)), key;
	void *val;

	*n = 0;
	for (size_t i = 0; v && ct_u64map_next(m, &i, &key, &val);)
		for (void *x = val; x; x = chains ? ((struct ct_kernel_stat *)x)->next : NULL)
			if (*(uint32_t *)x == pid) {
				v[(*n)++] = key;
				break;
			}
	return v;
}

/* Out of memory the process's rows stay: bounded by keep_exited no longer, never wrong. */
void ct_gpustats_drop_pid(struct ct_gpustats *s, uint32_t pid)
{
	struct ct_u64map *flat[] = { &s->copies, &s->devices };
	uint64_t *keys;
	size_t n;

	if ((keys = keys_of(&s->kernels, pid, true, &n))) {
		for (size_t i = 0; i < n; i++) {
			struct ct_kernel_stat *head = ct_u64map_get(&s->kernels, keys[i]), **pp = &head, *k;

			while ((k = *pp)) {
				if (k->pid != pid) {
					pp = &k->next;
					continue;
				}
				*pp = k->next;
				free(k->name);
				free(k);
			}
			/* out and in again: the map is no fuller than it was, so it does not grow */
			ct_u64map_del(&s->kernels, keys[i]);
			if (head)
				ct_u64map_put(&s->kernels, keys[i], head);
		}
		free(keys);
	}
	for (size_t m = 0; m < 2; m++) {
		if (!(keys = keys_of(flat[m], pid, false, &n)))
			continue;
		for (size_t i = 0; i < n; i++)
			free(ct_u64map_del(flat[m], keys[i]));
		free(keys);
	}
}
