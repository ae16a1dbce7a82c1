// SPDX-License-Identifier: MIT
/*
 * NVTX ranges (docs/nvtx.md). A thread's push/pop ranges are a linked
 * stack of reference-counted nodes: a push adds a node over the top, a pop
 * takes the top off, so a snapshot of the stack is one pointer. Each
 * thread keeps the snapshots of its last CT_NVTX_HISTORY changes with their
 * times, which is how a kernel, whose record comes long after its launch,
 * finds the ranges its launching call ran in. Domains have stacks of their
 * own in NVTX: a pop takes the innermost range of its domain, and the
 * ranges above it are pushed again as new nodes (a rare case: one pointer
 * per snapshot is kept for the common one).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ct_nvtx.h"
#include "decode/nvtx.h"

/* Domains a process may name; more are named by their handle. */
#define NVTX_DOMAINS_MAX 4096

struct node {
	uint32_t refs;
	uint32_t depth;      /* ranges under it when it was pushed */
	struct node *up;     /* the range it was pushed in; a reference */
	uint64_t domain_id;
	const char *domain;  /* the process's (struct nvtx_proc), or NULL */
	uint64_t mono_ns;
	char name[];
};

struct snapshot {
	uint64_t mono_ns;    /* from then on, the stack was `top` */
	struct node *top;    /* a reference; NULL: empty */
};

struct nvtx_thread {
	uint32_t pid, tid;
	struct node *top;    /* a reference */
	uint32_t n;          /* nodes in the stack */
	uint32_t over;       /* pushes past CT_NVTX_DEPTH still open */
	uint32_t h_next, h_n;
	struct snapshot h[CT_NVTX_HISTORY];
};

struct started {
	uint32_t tid;
	uint64_t mono_ns;
	const char *domain;
	char name[];
};

struct nvtx_proc {
	struct ct_u64map domains; /* handle -> its name (char *) */
	struct ct_u64map started; /* id -> struct started */
};

static uint64_t thread_key(uint32_t pid, uint32_t tid)
{
	return (uint64_t)pid << 32 | tid;
}

static void unref(struct node *nd)
{
	while (nd && !--nd->refs) {
		struct node *up = nd->up;

		free(nd);
		nd = up;
	}
}

static struct node *ref(struct node *nd)
{
	if (nd)
		nd->refs++;
	return nd;
}

void ct_nvtx_init(struct ct_nvtx *n, int64_t wall_offset, void (*emit)(void *ctx, const struct ct_nvtx_event *r),
		  void *ctx)
{
	memset(n, 0, sizeof(*n));
	n->wall_offset = wall_offset;
	n->emit = emit;
	n->ctx = ctx;
}

static struct nvtx_proc *proc_of(struct ct_nvtx *n, uint32_t pid)
{
	struct nvtx_proc *p = ct_u64map_get(&n->procs, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p || ct_u64map_put(&n->procs, pid, p)) {
		free(p);
		n->st.no_memory++;
		return NULL;
	}
	return p;
}

static void thread_free(struct nvtx_thread *t);

/* Room for one more thread: one with no range open goes (threads are not
 * told to have exited: a program that makes threads without end would
 * otherwise grow this without end). False: every one has a range open. */
static bool thread_room(struct ct_nvtx *n)
{
	uint64_t key;
	void *v;

	if (n->threads.n < CT_NVTX_THREADS)
		return true;
	for (size_t it = 0; ct_u64map_next(&n->threads, &it, &key, &v);) {
		if (!((struct nvtx_thread *)v)->n && !((struct nvtx_thread *)v)->over) {
			thread_free(ct_u64map_del(&n->threads, key));
			return true;
		}
	}
	return false;
}

static struct nvtx_thread *thread_of(struct ct_nvtx *n, uint32_t pid, uint32_t tid, bool make)
{
	struct nvtx_thread *t = ct_u64map_get(&n->threads, thread_key(pid, tid));

	if (t || !make)
		return t;
	if (!thread_room(n)) {
		n->st.threads_dropped++;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t || ct_u64map_put(&n->threads, thread_key(pid, tid), t)) {
		free(t);
		n->st.no_memory++;
		return NULL;
	}
	t->pid = pid;
	t->tid = tid;
	return t;
}

/* A domain's name; a handle no ct_nvtx_domain named (its record was lost)
 * is named by its value, once. NULL: the default domain (or no memory). */
static const char *domain_name(struct ct_nvtx *n, struct nvtx_proc *p, uint64_t id)
{
	char buf[32], *name;

	if (!id || !p)
		return NULL;
	name = ct_u64map_get(&p->domains, id);
	if (name)
		return name;
	if (p->domains.n >= NVTX_DOMAINS_MAX) {
		n->st.too_many++;
		return NULL;
	}
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)id);
	name = strdup(buf);
	if (!name || ct_u64map_put(&p->domains, id, name)) {
		free(name);
		n->st.no_memory++;
		return NULL;
	}
	return name;
}

static void name_domain(struct ct_nvtx *n, struct nvtx_proc *p, uint64_t id, const char *text)
{
	char *name;

	/* A name given once stays: the ranges open in it point to it. */
	if (!id || !p || ct_u64map_get(&p->domains, id))
		return;
	if (p->domains.n >= NVTX_DOMAINS_MAX) {
		n->st.too_many++;
		return;
	}
	name = strdup(text);
	if (!name || ct_u64map_put(&p->domains, id, name)) {
		free(name);
		n->st.no_memory++;
	}
}

static void emit(struct ct_nvtx *n, struct ct_nvtx_event *r)
{
	r->ts_ns = r->mono_ns + (uint64_t)n->wall_offset;
	r->end_ns = r->end_mono_ns + (uint64_t)n->wall_offset;
	if (r->open)
		n->st.left_open++;
	n->emit(n->ctx, r);
}

static void emit_node(struct ct_nvtx *n, const struct nvtx_thread *t, const struct node *nd, uint64_t end,
		      bool open)
{
	struct ct_nvtx_event r = { .open = open, .pid = t->pid, .tid = t->tid, .domain = nd->domain,
				   .name = nd->name, .mono_ns = nd->mono_ns, .end_mono_ns = end,
				   .depth = (int32_t)nd->depth };

	emit(n, &r);
}

/* The stack changed at mono_ns: remember it for the kernels launched from now. */
static void snapshot(struct nvtx_thread *t, uint64_t mono_ns)
{
	struct snapshot *s = &t->h[t->h_next];

	unref(s->top);
	*s = (struct snapshot){ mono_ns, ref(t->top) };
	t->h_next = (t->h_next + 1) % CT_NVTX_HISTORY;
	if (t->h_n < CT_NVTX_HISTORY)
		t->h_n++;
}

static struct node *new_node(const char *name, uint64_t domain_id, const char *domain, uint64_t mono_ns,
			     uint32_t depth, struct node *up)
{
	size_t len = strlen(name);
	struct node *nd = malloc(sizeof(*nd) + len + 1);

	if (!nd)
		return NULL;
	*nd = (struct node){ .refs = 1, .depth = depth, .up = ref(up), .domain_id = domain_id,
			     .domain = domain, .mono_ns = mono_ns };
	memcpy(nd->name, name, len + 1);
	return nd;
}

static void push(struct ct_nvtx *n, struct nvtx_thread *t, struct nvtx_proc *p, uint64_t domain_id,
		 const char *name, uint64_t mono_ns)
{
	struct node *nd;

	if (t->n >= CT_NVTX_DEPTH) {
		t->over++;
		n->st.too_deep++;
		return;
	}
	nd = new_node(name, domain_id, domain_name(n, p, domain_id), mono_ns, t->n, t->top);
	if (!nd) {
		n->st.no_memory++;
		return;
	}
	unref(t->top);
	t->top = nd;
	t->n++;
	snapshot(t, mono_ns);
}

/* The ranges above the popped one are pushed again over what it was in. */
static int rebuild(struct nvtx_thread *t, struct node *gone, struct node *const *above, unsigned n_above)
{
	struct node *top = ref(gone->up);

	for (unsigned i = n_above; i-- > 0;) {
		const struct node *a = above[i];
		struct node *nd = new_node(a->name, a->domain_id, a->domain, a->mono_ns, a->depth, top);

		unref(top);
		if (!nd)
			return -ENOMEM;
		top = nd;
	}
	unref(t->top);
	t->top = top;
	return 0;
}

static void pop(struct ct_nvtx *n, struct nvtx_thread *t, uint64_t domain_id, uint64_t mono_ns)
{
	struct node *above[CT_NVTX_DEPTH], *nd = t->top;
	unsigned n_above = 0;

	if (t->over) { /* the pop of a push that was not kept */
		t->over--;
		return;
	}
	while (nd && nd->domain_id != domain_id && n_above < CT_NVTX_DEPTH) {
		above[n_above++] = nd;
		nd = nd->up;
	}
	if (!nd || nd->domain_id != domain_id) {
		n->st.pops_unmatched++;
		return;
	}
	emit_node(n, t, nd, mono_ns, false);
	ref(nd); /* the rebuild drops the stack's hold on it */
	if (rebuild(t, nd, above, n_above)) {
		n->st.no_memory++;
		t->top = NULL;
		t->n = 0;
	} else {
		t->n--;
	}
	unref(nd);
	snapshot(t, mono_ns);
}

static void start(struct ct_nvtx *n, const struct ct_event *ev, struct nvtx_proc *p, uint64_t domain_id,
		  const char *name, uint64_t id)
{
	size_t len = strlen(name);
	struct started *s, *old;

	if (p->started.n >= CT_NVTX_OPEN_MAX) {
		n->st.too_many++;
		return;
	}
	s = malloc(sizeof(*s) + len + 1);
	if (!s) {
		n->st.no_memory++;
		return;
	}
	*s = (struct started){ ev->tid, ev->mono_ns, domain_name(n, p, domain_id) };
	memcpy(s->name, name, len + 1);
	old = ct_u64map_get(&p->started, id);
	if (ct_u64map_put(&p->started, id, s)) {
		free(s);
		n->st.no_memory++;
		return;
	}
	free(old); /* an id given twice: the later start wins */
}

static void emit_started(struct ct_nvtx *n, uint32_t pid, const struct started *s, uint64_t end, bool open)
{
	struct ct_nvtx_event r = { .open = open, .pid = pid, .tid = s->tid, .domain = s->domain, .name = s->name,
				   .mono_ns = s->mono_ns, .end_mono_ns = end, .depth = -1 };

	emit(n, &r);
}

static void end(struct ct_nvtx *n, const struct ct_event *ev, struct nvtx_proc *p, uint64_t id)
{
	struct started *s = ct_u64map_del(&p->started, id);

	if (!s) {
		n->st.ends_unmatched++;
		return;
	}
	emit_started(n, ev->pid, s, ev->mono_ns, false);
	free(s);
}

static uint64_t arg(const struct ct_event *ev, unsigned i)
{
	return i < ev->n_fields && ev->fields[i].valid ? ev->fields[i].v : 0;
}

/* The name of a push, start, mark or domain: args[1], its flags args[2]. */
static const char *name_of(struct ct_nvtx *n, const struct ct_event *ev)
{
	const struct ct_field *f = ev->n_fields > 1 ? &ev->fields[1] : NULL;

	if (arg(ev, 2) & CT_NVTX_CUT)
		n->st.names_cut++;
	return f && f->valid && f->str ? f->str : "";
}

void ct_nvtx_take(struct ct_nvtx *n, const struct ct_event *ev)
{
	struct nvtx_proc *p = proc_of(n, ev->pid);
	struct nvtx_thread *t;
	struct ct_nvtx_event r;

	if (!p)
		return;
	switch (ev->api_idx) {
	case CT_NVTX_DOMAIN:
		name_domain(n, p, arg(ev, 0), name_of(n, ev));
		break;
	case CT_NVTX_PUSH:
	case CT_NVTX_POP:
		t = thread_of(n, ev->pid, ev->tid, true);
		if (!t)
			break;
		if (ev->api_idx == CT_NVTX_PUSH)
			push(n, t, p, arg(ev, 0), name_of(n, ev), ev->mono_ns);
		else
			pop(n, t, arg(ev, 0), ev->mono_ns);
		break;
	case CT_NVTX_START:
		start(n, ev, p, arg(ev, 0), name_of(n, ev), arg(ev, 3));
		break;
	case CT_NVTX_END:
		end(n, ev, p, arg(ev, 1));
		break;
	case CT_NVTX_MARK:
		r = (struct ct_nvtx_event){ .mark = true, .pid = ev->pid, .tid = ev->tid,
					    .domain = domain_name(n, p, arg(ev, 0)), .name = name_of(n, ev),
					    .mono_ns = ev->mono_ns, .end_mono_ns = ev->mono_ns, .depth = -1 };
		emit(n, &r);
		break;
	}
}

/* The stack under `top`, outermost first, into n->list. */
static uint32_t list_of(struct ct_nvtx *n, const struct node *top)
{
	uint32_t k = 0;

	for (const struct node *nd = top; nd && k < CT_NVTX_DEPTH; nd = nd->up)
		k++;
	for (uint32_t i = k; i-- > 0; top = top->up)
		n->list[i] = top->name;
	return k;
}

void ct_nvtx_note(struct ct_nvtx *n, struct ct_event *ev)
{
	const struct nvtx_thread *t = thread_of(n, ev->pid, ev->tid, false);

	ev->nvtx = n->list;
	ev->n_nvtx = t ? list_of(n, t->top) : 0;
}

void ct_nvtx_note_gpu(struct ct_nvtx *n, struct ct_gpu_event *g)
{
	const struct nvtx_thread *t = g->has_launch ? thread_of(n, g->pid, g->launch_tid, false) : NULL;

	g->nvtx = n->list;
	g->n_nvtx = 0;
	if (!t)
		return;
	/* The newest change at or before the launch; older than all that are
	 * kept, the ranges are not known (none are given). */
	for (uint32_t i = 0; i < t->h_n; i++) {
		const struct snapshot *s = &t->h[(t->h_next + CT_NVTX_HISTORY - 1 - i) % CT_NVTX_HISTORY];

		if (s->mono_ns <= g->launch_mono_ns) {
			g->n_nvtx = list_of(n, s->top);
			return;
		}
	}
}

static void thread_free(struct nvtx_thread *t)
{
	for (uint32_t i = 0; i < CT_NVTX_HISTORY; i++)
		unref(t->h[i].top);
	unref(t->top);
	free(t);
}

/* The thread's open ranges, innermost first (as their pops would come). */
static void close_thread(struct ct_nvtx *n, struct nvtx_thread *t, uint64_t end)
{
	for (const struct node *nd = t->top; nd; nd = nd->up)
		emit_node(n, t, nd, end, true);
}

static void proc_free(void *v)
{
	struct nvtx_proc *p = v;

	ct_u64map_free_all(&p->domains, free);
	ct_u64map_free_all(&p->started, free);
	free(p);
}

static void close_proc(struct ct_nvtx *n, uint32_t pid, struct nvtx_proc *p, uint64_t end)
{
	uint64_t key;
	void *v;

	for (size_t it = 0; ct_u64map_next(&p->started, &it, &key, &v);)
		emit_started(n, pid, v, end, true);
}

void ct_nvtx_proc_exit(struct ct_nvtx *n, uint32_t pid, uint64_t mono_ns)
{
	struct nvtx_proc *p = ct_u64map_get(&n->procs, pid);
	uint64_t key;
	void *v;

	if (!p)
		return;
	/* Threads first: their nodes point to the process's domain names. */
	for (size_t it = 0; ct_u64map_next(&n->threads, &it, &key, &v);) {
		if ((uint32_t)(key >> 32) != pid)
			continue;
		close_thread(n, v, mono_ns);
		thread_free(ct_u64map_del(&n->threads, key));
		it = 0; /* the deletion moved entries: look again from the start */
	}
	close_proc(n, pid, p, mono_ns);
	proc_free(ct_u64map_del(&n->procs, pid));
}

void ct_nvtx_finish(struct ct_nvtx *n, uint64_t mono_ns)
{
	uint64_t key;
	void *v;

	for (size_t it = 0; ct_u64map_next(&n->threads, &it, &key, &v);)
		close_thread(n, v, mono_ns);
	for (size_t it = 0; ct_u64map_next(&n->procs, &it, &key, &v);)
		close_proc(n, (uint32_t)key, v, mono_ns);
	ct_nvtx_free(n);
}

static void thread_free_v(void *v)
{
	thread_free(v);
}

void ct_nvtx_free(struct ct_nvtx *n)
{
	ct_u64map_free_all(&n->threads, thread_free_v);
	ct_u64map_free_all(&n->procs, proc_free);
}
