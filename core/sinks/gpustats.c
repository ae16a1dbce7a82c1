// SPDX-License-Identifier: MIT
/* GPU activity per process: kernels, copies, devices (gpustats.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/gpustats.h"
#include "sinks/sink.h"

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* A process's rows, so that its tables are read and dropped without a walk
 * of every process's (a report of 40,000 processes). */
enum { ROW_KERNEL, ROW_COPY, ROW_DEVICE, ROW_KINDS };

struct gpu_proc {
	void **v[ROW_KINDS];
	size_t n[ROW_KINDS], cap[ROW_KINDS];
};

static int row_note(struct ct_gpustats *s, uint32_t pid, int kind, void *row)
{
	struct gpu_proc *p = ct_u64map_get(&s->procs, pid);

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p || ct_u64map_put(&s->procs, pid, p)) {
			free(p);
			return -ENOMEM;
		}
	}
	if (p->n[kind] == p->cap[kind]) {
		size_t cap = p->cap[kind] ? 2 * p->cap[kind] : 4;
		void **v = realloc(p->v[kind], cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->v[kind] = v;
		p->cap[kind] = cap;
	}
	p->v[kind][p->n[kind]++] = row;
	return 0;
}

static void gpu_proc_free(struct gpu_proc *p)
{
	for (int i = 0; i < ROW_KINDS; i++)
		free(p->v[i]);
	free(p);
}

static uint64_t pid_key(uint32_t pid, uint64_t v)
{
	return ((uint64_t)pid << 32 | (v & 0xffffffffu)) * 0x9e3779b97f4a7c15ull ^ (v >> 32);
}

/* The key of a device's row: minors are 0..253, indices far below 2^24. */
static uint64_t device_key(uint32_t pid, int32_t device, int32_t minor)
{
	return (uint64_t)pid << 32 | ((uint32_t)(device + 1) & 0xffffffu) | (uint32_t)(minor + 1) << 24;
}

static struct ct_device_stat *device_get(struct ct_gpustats *s, uint32_t pid, int32_t device,
					 const struct ct_gpu_info *gpu)
{
	uint64_t key = device_key(pid, device, gpu ? gpu->minor : -1);
	struct ct_device_stat *d = ct_u64map_get(&s->devices, key);

	if (d)
		return d;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->pid = pid;
	d->device = device;
	d->gpu_minor = gpu ? gpu->minor : -1;
	if (gpu) {
		memcpy(d->gpu_uuid, gpu->uuid, sizeof(d->gpu_uuid));
		memcpy(d->gpu_bus, gpu->bus, sizeof(d->gpu_bus));
	}
	if (ct_u64map_put(&s->devices, key, d)) {
		free(d);
		return NULL;
	}
	if (row_note(s, pid, ROW_DEVICE, d)) {
		free(ct_u64map_del(&s->devices, key));
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
	if (row_note(s, pid, ROW_KERNEL, k)) {
		free(k->name);
		free(k);
		return NULL;
	}
	k->next = head;
	if (ct_u64map_put(&s->kernels, key, k)) {
		struct gpu_proc *p = ct_u64map_get(&s->procs, pid);

		p->n[ROW_KERNEL]--; /* noted just now: the last */
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
	if (row_note(s, pid, ROW_COPY, c)) {
		free(ct_u64map_del(&s->copies, key));
		return NULL;
	}
	return c;
}

int ct_gpustats_gpu(struct ct_gpustats *s, const struct ct_gpu_event *g)
{
	struct ct_device_stat *d = device_get(s, g->pid, (int32_t)g->device, g->gpu);

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

static int calls_add(struct ct_gpustats *s, uint32_t pid, int32_t device, const struct ct_gpu_info *gpu,
		     uint64_t calls, uint64_t ns)
{
	struct ct_device_stat *d = device_get(s, pid, device, gpu);

	if (!d)
		return -ENOMEM;
	d->calls += calls;
	d->call_ns += ns;
	return 0;
}

int ct_gpustats_call(struct ct_gpustats *s, const struct ct_event *ev)
{
	return calls_add(s, ev->pid, ev->device, ev->gpu, 1, ev->entry_only ? 0 : ev->dur_ns);
}

int ct_gpustats_totals(struct ct_gpustats *s, const struct ct_totals *t, uint64_t calls, uint64_t ns)
{
	s->by_process = true;
	if (!calls && !ns)
		return 0;
	return calls_add(s, t->pid, t->device_from ? t->device : -1, t->gpu, calls, ns);
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
	for (size_t i = 0; ct_u64map_next(&s->procs, &i, NULL, &v);)
		gpu_proc_free(v);
	ct_u64map_free(&s->kernels);
	ct_u64map_free(&s->copies);
	ct_u64map_free(&s->devices);
	ct_u64map_free(&s->procs);
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

	return dx != dy ? (dx < dy ? -1 : 1) : strcmp(x->gpu_uuid, y->gpu_uuid);
}

/* The process's rows of one kind, sorted. */
static int pick(const struct ct_gpustats *s, uint32_t pid, int kind, int (*cmp)(const void *, const void *),
		void ***out, size_t *n)
{
	const struct gpu_proc *p = ct_u64map_get(&s->procs, pid);
	size_t k = p ? p->n[kind] : 0;
	void **v = malloc((k + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	if (k)
		memcpy(v, p->v[kind], k * sizeof(*v));
	qsort(v, k, sizeof(*v), cmp);
	*out = v;
	*n = k;
	return 0;
}

int ct_gpustats_kernels(const struct ct_gpustats *s, uint32_t pid, struct ct_kernel_stat ***out, size_t *n)
{
	return pick(s, pid, ROW_KERNEL, by_kernel_time, (void ***)out, n);
}

int ct_gpustats_copies(const struct ct_gpustats *s, uint32_t pid, struct ct_copy_stat ***out, size_t *n)
{
	return pick(s, pid, ROW_COPY, by_copy_bytes, (void ***)out, n);
}

int ct_gpustats_devices(const struct ct_gpustats *s, uint32_t pid, struct ct_device_stat ***out, size_t *n)
{
	return pick(s, pid, ROW_DEVICE, by_device, (void ***)out, n);
}

void ct_gpustats_drop_pid(struct ct_gpustats *s, uint32_t pid)
{
	struct gpu_proc *p = ct_u64map_del(&s->procs, pid);

	if (!p)
		return;
	for (size_t i = 0; i < p->n[ROW_KERNEL]; i++) {
		struct ct_kernel_stat *k = p->v[ROW_KERNEL][i];
		uint64_t key = hash_str(0xcbf29ce484222325ull ^ pid, k->name);
		struct ct_kernel_stat *head = ct_u64map_del(&s->kernels, key), **pp = &head;

		while (*pp != k)
			pp = &(*pp)->next;
		*pp = k->next;
		/* out and in again: the map is no fuller than it was, so it does not grow */
		if (head)
			ct_u64map_put(&s->kernels, key, head);
		free(k->name);
		free(k);
	}
	for (size_t i = 0; i < p->n[ROW_COPY]; i++) {
		struct ct_copy_stat *c = p->v[ROW_COPY][i];

		free(ct_u64map_del(&s->copies, pid_key(pid, (uintptr_t)c->kind)));
	}
	for (size_t i = 0; i < p->n[ROW_DEVICE]; i++) {
		struct ct_device_stat *d = p->v[ROW_DEVICE][i];

		free(ct_u64map_del(&s->devices, device_key(pid, d->device, d->gpu_minor)));
	}
	gpu_proc_free(p);
}
