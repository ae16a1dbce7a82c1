// SPDX-License-Identifier: MIT
/*
 * Calls in flight that can hang: held by thread and depth, reported past
 * the timeout (hangs.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "record.h"
#include "decode/decode.h"
#include "decode/hangs.h"
#include "symbols/symbolizer.h"

/* One call held: its record as the engine sent it at entry, and what the
 * event had then that a later decode would not give again (the stacks'
 * frames, the communicator's count at that call). */
struct held {
	struct ct_record rec;
	const struct ct_plugin *plugin;
	const char *parent_plugin, *parent_api;
	struct ct_comm_info comm;
	bool has_comm, reported;
	struct ct_callstack stack; /* frames and their strings in one block, once named */
	bool has_stack;
	uint64_t *pcs;             /* the stack as sent, until it is named */
	struct ct_hang_pcs raw;
	struct ct_py_frames *py;   /* likewise */
};

struct ct_hang_thread {
	struct held *at[CT_MAX_DEPTH]; /* by depth */
	unsigned n;
};

struct ct_hang_rank {
	uint64_t id;
	int32_t rank;
	uint32_t pid;
	uint64_t seq; /* the last collective it began on the communicator */
};

void ct_hangs_init(struct ct_hangs *h, uint64_t timeout_ns, int64_t wall_offset, ct_hang_fn report, void *ctx)
{
	memset(h, 0, sizeof(*h));
	h->timeout_ns = timeout_ns;
	h->wall_offset = wall_offset;
	h->report = report;
	h->ctx = ctx;
}

static size_t str_room(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

static const char *str_keep(char **w, const char *s)
{
	char *at = *w;
	size_t n = str_room(s);

	if (!s)
		return NULL;
	memcpy(at, s, n);
	*w += n;
	return at;
}

/* The event's native frames, kept after it: one block, frames then strings. */
static bool keep_stack(struct held *k, const struct ct_callstack *cs)
{
	size_t bytes = cs->n * sizeof(struct ct_frame_info);
	struct ct_frame_info *fr;
	char *w;

	for (uint32_t i = 0; i < cs->n; i++)
		bytes += str_room(cs->frames[i].module) + str_room(cs->frames[i].function) +
			 str_room(cs->frames[i].src_file);
	fr = malloc(bytes ? bytes : 1);
	if (!fr)
		return false;
	w = (char *)(fr + cs->n);
	for (uint32_t i = 0; i < cs->n; i++) {
		fr[i] = cs->frames[i];
		fr[i].module = str_keep(&w, cs->frames[i].module);
		fr[i].function = str_keep(&w, cs->frames[i].function);
		fr[i].src_file = str_keep(&w, cs->frames[i].src_file);
	}
	k->stack = (struct ct_callstack){ fr, cs->n, cs->site };
	k->has_stack = true;
	return true;
}

static bool keep_py(struct held *k, const struct ct_py_frames *py)
{
	size_t bytes = sizeof(*py) + py->n * sizeof(py->f[0]);
	char *w;

	for (uint32_t i = 0; i < py->n; i++)
		bytes += str_room(py->f[i].function) + str_room(py->f[i].file) + str_room(py->f[i].why);
	k->py = malloc(bytes);
	if (!k->py)
		return false;
	k->py->n = py->n;
	k->py->truncated = py->truncated;
	w = (char *)&k->py->f[py->n];
	for (uint32_t i = 0; i < py->n; i++) {
		k->py->f[i] = py->f[i];
		k->py->f[i].function = str_keep(&w, py->f[i].function);
		k->py->f[i].file = str_keep(&w, py->f[i].file);
		k->py->f[i].why = str_keep(&w, py->f[i].why);
	}
	return true;
}

static void held_free(struct held *k)
{
	if (!k)
		return;
	free((void *)k->stack.frames);
	free(k->pcs);
	free(k->py);
	free(k);
}

static uint64_t rank_key(uint64_t id, int32_t rank)
{
	uint64_t z = id ^ (0x9e3779b97f4a7c15ull * ((uint64_t)(uint32_t)rank + 1));

	return (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ull;
}

/* What a collective tells of its rank's progress on its communicator. */
static void note_rank(struct ct_hangs *h, const struct ct_event *ev)
{
	const struct ct_comm_info *c = ev->comm_info;
	struct ct_hang_rank *r;
	uint64_t key;

	if (!c || !c->id || c->rank < 0 || !c->seq)
		return;
	key = rank_key(c->id, c->rank);
	r = ct_u64map_get(&h->ranks, key);
	if (!r) {
		if (h->ranks.n >= CT_HANGS_RANKS || !(r = calloc(1, sizeof(*r))))
			return;
		if (ct_u64map_put(&h->ranks, key, r)) {
			free(r);
			return;
		}
		r->id = c->id;
		r->rank = c->rank;
	}
	if (r->id != c->id || r->rank != c->rank) /* another pair of the same key: not followed */
		return;
	r->pid = ev->pid;
	if (c->seq > r->seq)
		r->seq = c->seq;
}

static void stuck_add(struct ct_hangs *h, uint32_t pid, int d)
{
	uintptr_t n = (uintptr_t)ct_u64map_get(&h->stuck, pid);

	n = d > 0 ? n + 1 : n ? n - 1 : 0;
	if (n)
		ct_u64map_put(&h->stuck, pid, (void *)n);
	else
		ct_u64map_del(&h->stuck, pid);
}

uint64_t ct_hangs_stuck(const struct ct_hangs *h)
{
	uint64_t sum = 0, key;
	void *v;

	for (size_t i = 0; ct_u64map_next(&h->stuck, &i, &key, &v);)
		sum += (uintptr_t)v;
	return sum;
}

/* The rank furthest behind on the held collective's communicator, if one is behind it. */
static void find_behind(const struct ct_hangs *h, const struct held *k, struct ct_hang *out)
{
	const struct ct_hang_rank *low = NULL;
	uint64_t key;
	void *v;

	out->behind_rank = -1;
	if (!k->has_comm || !k->comm.id || !k->comm.seq)
		return;
	for (size_t i = 0; ct_u64map_next(&h->ranks, &i, &key, &v);) {
		const struct ct_hang_rank *r = v;

		if (r->id == k->comm.id && (!low || r->seq < low->seq || (r->seq == low->seq && r->rank < low->rank)))
			low = r;
	}
	if (low && low->seq < k->comm.seq) {
		out->behind_rank = low->rank;
		out->behind_pid = low->pid;
		out->behind_seq = low->seq;
	}
}

/*
 * Report a held call: its event decoded again from the record kept (its
 * arguments and names), with what was kept from entry. `end` is its own
 * record when it ended.
 */
static void say(struct ct_hangs *h, struct held *k, enum ct_hang_state state, uint64_t now,
		const struct ct_event *end)
{
	struct ct_event ev;
	struct ct_hang r = { .state = state, .call = &ev, .timeout_ns = h->timeout_ns };

	if (ct_decode(k->plugin, &k->rec, h->wall_offset, &ev))
		return;
	if (!k->has_stack && k->pcs) { /* named once, at its first report */
		const struct ct_callstack *cs = ct_sym_stack(k->rec.pid, k->raw.hash, k->pcs, k->raw.n, k->raw.end);

		if (cs)
			keep_stack(k, cs);
		free(k->pcs);
		k->pcs = NULL;
	}
	ev.parent_plugin = k->parent_plugin;
	ev.parent_api = k->parent_api;
	ev.comm_info = k->has_comm ? &k->comm : NULL;
	ev.stack = k->has_stack ? &k->stack : NULL;
	ev.py_stack = k->py;
	ev.entry_only = false;
	ev.dur_ns = now > k->rec.ts_ns ? now - k->rec.ts_ns : 0;
	if (end) {
		ev.dur_ns = end->dur_ns;
		ev.has_result = end->has_result;
		ev.result = end->result;
		ev.result_name = end->result_name;
		ev.is_error = end->is_error;
	}
	if (state == CT_HANG_STUCK) {
		k->reported = true;
		h->reported++;
		stuck_add(h, ev.pid, 1);
	} else {
		stuck_add(h, ev.pid, -1);
	}
	r.ts_ns = (uint64_t)((int64_t)now + h->wall_offset);
	r.stuck_in_pid = (uint32_t)(uintptr_t)ct_u64map_get(&h->stuck, ev.pid);
	find_behind(h, k, &r);
	h->report(h->ctx, &r);
}

/* The thread's call at depth d is settled: by its own record (end), or left unseen. */
static void settle(struct ct_hangs *h, struct ct_hang_thread *t, unsigned d, uint64_t now,
		   const struct ct_event *end)
{
	struct held *k = t->at[d];

	if (k->reported)
		say(h, k, end ? CT_HANG_ENDED : CT_HANG_GONE, end ? k->rec.ts_ns + end->dur_ns : now, end);
	held_free(k);
	t->at[d] = NULL;
	t->n--;
	h->held--;
}

static struct held *hold(struct ct_hangs *h, const struct ct_event *ev, const struct ct_hang_pcs *stack)
{
	struct held *k;

	if (h->held >= CT_HANGS_MAX || !(k = calloc(1, sizeof(*k)))) {
		h->unwatched++;
		return NULL;
	}
	k->rec = *ev->rec;
	k->plugin = ev->plugin;
	k->parent_plugin = ev->parent_plugin;
	k->parent_api = ev->parent_api;
	if (ev->comm_info) {
		k->comm = *ev->comm_info;
		k->has_comm = true;
	}
	/* A stack that cannot be kept is shown as none, as a call's that could not be taken. */
	if (stack && stack->n && (k->pcs = malloc(stack->n * sizeof(*k->pcs)))) {
		memcpy(k->pcs, stack->pcs, stack->n * sizeof(*k->pcs));
		k->raw = *stack;
		k->raw.pcs = NULL;
	}
	if (ev->py_stack)
		keep_py(k, ev->py_stack);
	return k;
}

void ct_hangs_note(struct ct_hangs *h, const struct ct_event *ev, const struct ct_hang_pcs *stack)
{
	bool begin = ev->rec && (ev->rec->flags & CT_REC_BEGIN);
	struct ct_hang_thread *t = ct_u64map_get(&h->threads, ev->tid);
	unsigned d = ev->depth < CT_MAX_DEPTH ? ev->depth : CT_MAX_DEPTH - 1;
	struct held *now;

	if (ev->api->flags & CT_API_COLLECTIVE)
		note_rank(h, ev);
	if (!t && !begin)
		return;
	/* Kept before a report decodes another record: the decoder's copies
	 * (the communicator, the thread's name) are the last decode's. */
	now = begin ? hold(h, ev, stack) : NULL;
	for (unsigned k = CT_MAX_DEPTH; t && k-- > d;) {
		const struct held *c = t->at[k];
		bool own;

		if (!c)
			continue;
		own = !begin && k == d && c->rec.ts_ns == ev->mono_ns && c->rec.call == ev->rec->call;
		settle(h, t, k, ev->mono_ns, own ? ev : NULL);
	}
	if (now && !t && (t = calloc(1, sizeof(*t))) && ct_u64map_put(&h->threads, ev->tid, t)) {
		free(t);
		t = NULL;
	}
	if (now && t) {
		t->at[d] = now;
		t->n++;
		h->held++;
	} else if (now) {
		held_free(now);
		h->unwatched++;
	}
	if (t && !t->n)
		free(ct_u64map_del(&h->threads, ev->tid));
}

void ct_hangs_check(struct ct_hangs *h, uint64_t now)
{
	uint64_t key;
	void *v;

	if (!h->held)
		return;
	for (size_t i = 0; ct_u64map_next(&h->threads, &i, &key, &v);) {
		struct ct_hang_thread *t = v;

		for (unsigned d = 0; d < CT_MAX_DEPTH; d++) {
			struct held *k = t->at[d];

			if (k && !k->reported && now >= k->rec.ts_ns && now - k->rec.ts_ns >= h->timeout_ns)
				say(h, k, CT_HANG_STUCK, now, NULL);
		}
	}
}

void ct_hangs_proc_exit(struct ct_hangs *h, uint32_t pid, uint64_t now)
{
	uint64_t *gone = NULL, key;
	size_t n = 0, cap = 0;
	void *v;

	for (size_t i = 0; h->held && ct_u64map_next(&h->threads, &i, &key, &v);) {
		const struct ct_hang_thread *t = v;

		for (unsigned d = 0; d < CT_MAX_DEPTH; d++) {
			if (!t->at[d] || t->at[d]->rec.pid != pid)
				continue;
			if (n == cap) {
				uint64_t *g = realloc(gone, (cap = cap ? cap * 2 : 16) * sizeof(*g));

				if (!g)
					goto out;
				gone = g;
			}
			gone[n++] = key;
			break;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct ct_hang_thread *t = ct_u64map_del(&h->threads, gone[i]);

		for (unsigned d = 0; t && d < CT_MAX_DEPTH; d++)
			if (t->at[d])
				settle(h, t, d, now, NULL);
		free(t);
	}
out:
	free(gone);
	ct_u64map_del(&h->stuck, pid);
}

static void thread_free(void *p)
{
	struct ct_hang_thread *t = p;

	for (unsigned d = 0; d < CT_MAX_DEPTH; d++)
		held_free(t->at[d]);
	free(t);
}

void ct_hangs_free(struct ct_hangs *h)
{
	ct_u64map_free_all(&h->threads, thread_free);
	ct_u64map_free_all(&h->ranks, free);
	ct_u64map_free(&h->stuck);
	h->held = 0;
}
