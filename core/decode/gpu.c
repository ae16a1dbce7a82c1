// SPDX-License-Identifier: MIT
/*
 * GPU activity batches to events. Every item's length is checked against
 * the batch before it is read (the batch comes from the traced process),
 * names are looked up by the ids the process sent, and device records are
 * joined with the runtime or driver call that launched them (gpu.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "decode/gpu.h"
#include "decode/graphs.h"
#include "decode/procgpu.h"
#include "symbols/demangle.h"
#include "util/u64map.h"

struct call_slot {
	uint32_t correlation; /* 0: empty */
	uint32_t tid;         /* the tracer's (init namespace) */
	uint32_t name_id;
	uint64_t start;       /* CLOCK_MONOTONIC */
};

struct pending {
	struct ct_gpu_event ev;
	uint32_t alt_correlation; /* a copy's runtime call, tried first */
	uint64_t chunk;           /* the process's batch count when it came */
};

struct gpu_proc {
	uint32_t pid, ns_pid;
	bool hello;
	bool other_version;       /* its library speaks another wire version: skipped */
	int64_t clock_offset;     /* CUPTI ts + this = CLOCK_MONOTONIC */
	uint64_t chunks;
	struct ct_u64map names;   /* id -> char * (demangled) */
	struct ct_u64map tids;    /* namespace tid -> tracer tid + 1 */
	struct call_slot *calls;  /* CT_GPU_CALL_WINDOW, direct-mapped by correlation id */
	struct pending *pend;
	size_t n_pend, cap_pend;
	struct ct_graphs graphs;  /* CUDA graph nodes and the calls that made them */
};

static struct ct_u64map procs; /* pid -> gpu_proc */

static const char *const copy_kinds[] = {
	"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP",
};

/* CUpti_ActivityMemoryKind, by value. */
static const char *const memory_kinds[] = {
	"unknown", "pageable", "pinned", "device", "array", "managed", "device_static", "managed_static",
};

const char *ct_gpu_memory_kind(unsigned kind)
{
	return kind < sizeof(memory_kinds) / sizeof(memory_kinds[0]) ? memory_kinds[kind] : "unknown";
}

const char *ct_gpu_copy_kind(unsigned kind)
{
	return kind < sizeof(copy_kinds) / sizeof(copy_kinds[0]) ? copy_kinds[kind] : "unknown";
}

static struct gpu_proc *proc_get(uint32_t pid)
{
	struct gpu_proc *p = ct_u64map_get(&procs, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = p->ns_pid = pid;
	if (ct_u64map_put(&procs, pid, p)) {
		free(p);
		return NULL;
	}
	return p;
}

static void proc_free(struct gpu_proc *p)
{
	void *v;

	for (size_t i = 0; ct_u64map_next(&p->names, &i, NULL, &v);)
		free(v);
	ct_u64map_free(&p->names);
	ct_u64map_free(&p->tids);
	free(p->calls);
	free(p->pend);
	ct_graphs_free(&p->graphs);
	free(p);
}

/* CUPTI's thread id (gettid() in the process's namespace) as the tracer names the thread. */
static uint32_t tracer_tid(struct gpu_proc *p, uint32_t ns_tid)
{
	char path[64], line[256];
	uintptr_t known;
	struct dirent *d;
	DIR *dir;

	if (p->ns_pid == p->pid || !ns_tid)
		return ns_tid;
	known = (uintptr_t)ct_u64map_get(&p->tids, ns_tid);
	if (known)
		return (uint32_t)(known - 1);
	snprintf(path, sizeof(path), "/proc/%u/task", p->pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		unsigned long tid = strtoul(d->d_name, NULL, 10);
		FILE *f;

		if (!tid)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%lu/status", p->pid, tid);
		f = fopen(path, "re");
		while (f && fgets(line, sizeof(line), f)) {
			/* NSpid: the tid in each namespace, the innermost last */
			char *last = strrchr(line, '\t');

			if (strncmp(line, "NSpid:", 6) || !last)
				continue;
			if (strtoul(last + 1, NULL, 10) == ns_tid)
				ct_u64map_put(&p->tids, ns_tid, (void *)(uintptr_t)(tid + 1));
			break;
		}
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	known = (uintptr_t)ct_u64map_get(&p->tids, ns_tid);
	return known ? (uint32_t)(known - 1) : ns_tid; /* gone already: the namespace's number */
}

static uint64_t mono(const struct gpu_proc *p, uint64_t cupti_ts)
{
	return (uint64_t)((int64_t)cupti_ts + p->clock_offset);
}

static const struct call_slot *call_of(const struct gpu_proc *p, uint32_t correlation)
{
	const struct call_slot *c;

	if (!p->calls || !correlation)
		return NULL;
	c = &p->calls[correlation % CT_GPU_CALL_WINDOW];
	return c->correlation == correlation ? c : NULL;
}

/* The launching call into the event, if its record came; false if not yet. */
static bool correlate(const struct gpu_proc *p, struct ct_gpu_event *ev, uint32_t alt, int64_t wall)
{
	const struct call_slot *c = call_of(p, alt);

	if (!c)
		c = call_of(p, ev->correlation);
	if (!c)
		return false;
	if (c != call_of(p, ev->correlation))
		ev->correlation = alt;
	ev->has_launch = true;
	ev->launch_tid = c->tid;
	ev->launch_api = ct_u64map_get(&p->names, c->name_id);
	ev->launch_mono_ns = c->start;
	ev->launch_ts_ns = (uint64_t)((int64_t)c->start + wall);
	return true;
}

/* A record run from a graph node: the call that made the node (graphs.h), looked up as it goes out. */
static void graph_capture(struct ct_gpu_sink *s, const struct gpu_proc *p, struct ct_gpu_event *ev)
{
	const struct ct_graph_node *n = ct_graphs_made(&p->graphs, ev->graph_node);

	if (n) {
		ev->capture_node = n->made;
		ev->has_capture = n->has_call;
		ev->capture_tid = n->call.tid;
		ev->capture_api = n->call.api;
		ev->capture_mono_ns = n->call.mono_ns;
		ev->capture_ts_ns = n->call.ts_ns;
		ev->capture_site = n->call.site;
	}
	s->stats.graph_records++;
	if (!ev->has_capture)
		s->stats.graph_uncaptured++;
}

static void emit(struct ct_gpu_sink *s, const struct gpu_proc *p, struct ct_gpu_event *ev)
{
	if (ev->graph_node)
		graph_capture(s, p, ev);
	if (ev->kind == CT_GPU_KERNEL) {
		s->stats.kernels++;
		if (!ev->name)
			s->stats.unnamed++;
	} else if (ev->kind == CT_GPU_MEMCPY) {
		s->stats.copies++;
	} else {
		s->stats.sets++;
	}
	if (!ev->has_launch)
		s->stats.uncorrelated++;
	if (s->event)
		s->event(s->ctx, ev);
}

static void pend_remove(struct gpu_proc *p, size_t i)
{
	memmove(&p->pend[i], &p->pend[i + 1], (p->n_pend - i - 1) * sizeof(p->pend[0]));
	p->n_pend--;
}

static void device_record(struct ct_gpu_sink *s, struct gpu_proc *p, struct ct_gpu_event *ev, uint32_t alt)
{
	struct pending *q;

	if (correlate(p, ev, alt, s->wall_offset_ns) || !ev->correlation) {
		emit(s, p, ev);
		return;
	}
	if (p->n_pend == CT_GPU_PENDING_MAX) {
		emit(s, p, &p->pend[0].ev);
		pend_remove(p, 0);
	}
	if (p->n_pend == p->cap_pend) {
		size_t cap = p->cap_pend ? p->cap_pend * 2 : 256;

		q = realloc(p->pend, cap * sizeof(*q));
		if (!q) {
			emit(s, p, ev);
			return;
		}
		p->pend = q;
		p->cap_pend = cap;
	}
	p->pend[p->n_pend++] = (struct pending){ *ev, alt, p->chunks };
}

/* After a batch: what waited and now has its call, or has waited long enough, goes out. */
static void pend_settle(struct ct_gpu_sink *s, struct gpu_proc *p, bool all)
{
	size_t i = 0;

	while (i < p->n_pend) {
		struct pending *q = &p->pend[i];

		if (correlate(p, &q->ev, q->alt_correlation, s->wall_offset_ns) || all ||
		    p->chunks - q->chunk >= CT_GPU_PENDING_CHUNKS) {
			emit(s, p, &q->ev);
			pend_remove(p, i);
		} else {
			i++;
		}
	}
}

static void common(struct gpu_proc *p, struct ct_gpu_event *ev, enum ct_gpu_kind kind, uint64_t start,
		   uint64_t end, uint32_t device, uint32_t context, uint32_t stream, uint32_t correlation,
		   int64_t wall)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->pid = p->pid;
	ev->mono_ns = mono(p, start);
	ev->dur_ns = end > start ? end - start : 0;
	ev->ts_ns = (uint64_t)((int64_t)ev->mono_ns + wall);
	ev->device = device;
	ev->gpu = ct_procgpu_of(p->pid);
	ev->context = context;
	ev->stream = stream;
	ev->correlation = correlation;
}

static void put_name(struct ct_gpu_sink *s, struct gpu_proc *p, uint32_t id, const char *text, size_t max)
{
	char *old = ct_u64map_get(&p->names, id), *name;

	if (!id || strnlen(text, max) == max) /* no NUL inside the item: malformed, dropped */
		return;
	/* An id named again takes its old place; a new one needs room. */
	if (!old && p->names.n >= CT_NAMES_PER_PROC) {
		s->stats.names_dropped++;
		return;
	}
	name = ct_name_keep(text, max);
	if (!name)
		return;
	if (ct_u64map_put(&p->names, id, name)) {
		free(name);
		return;
	}
	free(old);
}

static void put_call(struct gpu_proc *p, const struct ct_w_api *a)
{
	struct call_slot *c;

	if (!a->correlation)
		return;
	if (!p->calls && !(p->calls = calloc(CT_GPU_CALL_WINDOW, sizeof(*p->calls))))
		return;
	c = &p->calls[a->correlation % CT_GPU_CALL_WINDOW];
	*c = (struct call_slot){ a->correlation, tracer_tid(p, a->tid), a->name_id, mono(p, a->start) };
}

/* The smallest size of each item type: its fixed part. */
static const uint16_t item_min[CT_W_MAX] = {
	[CT_W_HELLO] = sizeof(struct ct_w_hello), [CT_W_MSG] = sizeof(struct ct_w_head) + 1,
	[CT_W_NAME] = sizeof(struct ct_w_head) + 1, [CT_W_KERNEL] = sizeof(struct ct_w_kernel),
	[CT_W_MEMCPY] = sizeof(struct ct_w_memcpy), [CT_W_MEMSET] = sizeof(struct ct_w_memset),
	[CT_W_API] = sizeof(struct ct_w_api), [CT_W_DROPPED] = sizeof(struct ct_w_dropped),
	[CT_W_GRAPHNODE] = sizeof(struct ct_w_graphnode),
};

static void item(struct ct_gpu_sink *s, struct gpu_proc *p, const struct ct_w_head *h)
{
	int64_t wall = s->wall_offset_ns;
	struct ct_gpu_event ev;

	switch (h->type) {
	case CT_W_HELLO: {
		const struct ct_w_hello *w = (const void *)h;

		if (!p->hello)
			s->stats.processes++;
		p->hello = true;
		/* Items of another version may be framed alike and mean otherwise. */
		p->other_version = h->aux != CT_GPU_WIRE_VERSION;
		if (p->other_version && s->message) {
			char text[160];

			snprintf(text, sizeof(text), "the injection library speaks wire version %u, this tracer %u: "
				 "its records are skipped (install both from one build)", h->aux, CT_GPU_WIRE_VERSION);
			s->message(s->ctx, p->pid, CT_W_ERROR, text);
		}
		p->ns_pid = w->ns_pid;
		p->clock_offset = (w->flags & CT_W_CLOCK_MONOTONIC) ? 0 : w->clock_offset;
		return;
	}
	case CT_W_MSG: {
		const char *text = (const char *)(h + 1);
		size_t max = h->len - sizeof(*h);

		if (strnlen(text, max) == max) {
			s->stats.malformed++;
			return;
		}
		if (s->message)
			s->message(s->ctx, p->pid, h->aux <= CT_W_ERROR ? (enum ct_wire_level)h->aux : CT_W_ERROR, text);
		return;
	}
	}
	if (p->other_version) {
		s->stats.malformed++;
		return;
	}
	switch (h->type) {
	case CT_W_NAME:
		put_name(s, p, h->aux, (const char *)(h + 1), h->len - sizeof(*h));
		return;
	case CT_W_API:
		put_call(p, (const void *)h);
		return;
	case CT_W_KERNEL: {
		const struct ct_w_kernel *k = (const void *)h;

		common(p, &ev, CT_GPU_KERNEL, k->start, k->end, k->device, k->context, k->stream, k->correlation, wall);
		ev.name = k->name_id ? ct_u64map_get(&p->names, k->name_id) : NULL;
		memcpy(ev.grid, k->grid, sizeof(ev.grid));
		memcpy(ev.block, k->block, sizeof(ev.block));
		ev.shared_bytes = k->shared_bytes;
		ev.graph_id = k->graph_id;
		ev.graph_node = k->graph_node;
		device_record(s, p, &ev, 0);
		return;
	}
	case CT_W_MEMCPY: {
		const struct ct_w_memcpy *m = (const void *)h;

		common(p, &ev, CT_GPU_MEMCPY, m->start, m->end, m->device, m->context, m->stream, m->correlation, wall);
		ev.bytes = m->bytes;
		ev.copy_kind = ct_gpu_copy_kind(m->copy_kind);
		ev.src_kind = ct_gpu_memory_kind(m->src_kind);
		ev.dst_kind = ct_gpu_memory_kind(m->dst_kind);
		ev.graph_id = m->graph_id;
		ev.graph_node = m->graph_node;
		device_record(s, p, &ev, m->rt_correlation);
		return;
	}
	case CT_W_MEMSET: {
		const struct ct_w_memset *m = (const void *)h;

		common(p, &ev, CT_GPU_MEMSET, m->start, m->end, m->device, m->context, m->stream, m->correlation, wall);
		ev.bytes = m->bytes;
		ev.set_value = m->value;
		ev.graph_id = m->graph_id;
		ev.graph_node = m->graph_node;
		device_record(s, p, &ev, 0);
		return;
	}
	case CT_W_GRAPHNODE: {
		const struct ct_w_graphnode *w = (const void *)h;
		int err = ct_graphs_put(&p->graphs, w->node, w->original, w->graph_id, tracer_tid(p, w->tid), w->ts);

		if (err == -EINVAL)
			s->stats.malformed++;
		else if (err)
			s->stats.graph_nodes_dropped++;
		else
			s->stats.graph_nodes++;
		return;
	}
	case CT_W_DROPPED: {
		const struct ct_w_dropped *d = (const void *)h;

		s->stats.cupti_dropped += d->cupti;
		s->stats.names_cut += d->names_cut;
		return;
	}
	}
}

void ct_gpu_decode(struct ct_gpu_sink *s, uint32_t pid, uint32_t tid, const void *data, size_t len)
{
	const uint8_t *b = data;
	struct gpu_proc *p = proc_get(pid);
	size_t off = 0;

	if (!p)
		return;
	p->chunks++;
	while (off + sizeof(struct ct_w_head) <= len) {
		struct ct_w_head h;
		/* Items are 8-aligned in the batch, but the batch is where the ring put it. */
		_Alignas(8) uint8_t copy[CT_GPU_BATCH_MAX];

		memcpy(&h, b + off, sizeof(h));
		if (h.len < sizeof(h) || h.len % 8 || h.len > len - off) {
			s->stats.malformed++;
			break; /* the rest cannot be framed */
		}
		if (h.type && h.type < CT_W_MAX && h.len >= item_min[h.type]) {
			memcpy(copy, b + off, h.len);
			item(s, p, (const struct ct_w_head *)copy);
		} else {
			s->stats.malformed++;
		}
		off += h.len;
	}
	pend_settle(s, p, false);
}

void ct_gpu_note_call(struct ct_gpu_sink *s, const struct ct_event *ev)
{
	struct gpu_proc *p = ct_graphs_any_waiting() ? ct_u64map_get(&procs, ev->pid) : NULL;

	if (p)
		ct_graphs_call(&p->graphs, ev);
}

void ct_gpu_forget(struct ct_gpu_sink *s, uint32_t pid)
{
	struct gpu_proc *p = ct_u64map_del(&procs, pid);

	if (!p)
		return;
	pend_settle(s, p, true);
	proc_free(p);
}

void ct_gpu_finish(struct ct_gpu_sink *s)
{
	struct gpu_proc *p;

	for (size_t i = 0; ct_u64map_next(&procs, &i, NULL, (void **)&p);)
		pend_settle(s, p, true);
	for (size_t i = 0; ct_u64map_next(&procs, &i, NULL, (void **)&p);)
		proc_free(p);
	ct_u64map_free(&procs);
}
