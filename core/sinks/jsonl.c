// SPDX-License-Identifier: MIT
/*
 * jsonl: one JSON object per call (schema in docs/events.md). The hot path:
 * each line is built in one buffer with hand-rolled formatters and handed
 * to stdio in large writes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "record.h"
#include "sinks/hangtext.h"
#include "sinks/runmeta.h"
#include "sinks/sink.h"
#include "sinks/sinkio.h"
#include "sinks/stackfmt.h"
#include "util/strbuf.h"

#define JSONL_FLUSH (64 * 1024)
/* The most a line takes beside its API's text and names and its strings:
 * the numbers (12 fields of up to 64 bytes), the literals, a thread's text
 * (a comm escaped is at most 98 bytes), and the 64 bytes a cached piece's
 * copy may write past its end. */
#define JSONL_LINE_FIXED 2048

/*
 * The parts of a line that depend only on the API (its plugin and name, the
 * argument keys) are escaped once and kept, keyed by the API's row.
 */
#define JSONL_CACHE 1024 /* slots; APIs of all plugins together are far fewer */

struct api_text {
	const struct ct_api *api;
	struct ct_sb head;           /* ,"plugin":"cudart","api":"cudaMalloc" */
	/* ,"args":{"devPtr":  then  ,"size":  (the first opens the object) */
	struct ct_sb keys[CT_MAX_ARGS];
	/* The most the API's lines take beside their own numbers and the
	 * strings of its fields: the text above, its enum and result names. */
	size_t need;
};

/*
 * Pieces that repeat from event to event, kept as text: a thread's
 * ,"pid":1,"tid":2,"comm":"python3","depth":0 and a result's
 * ,"result":0,"result_name":"cudaSuccess","error":false. A few threads make
 * most calls and most calls succeed, so small direct-mapped tables hit
 * nearly always; a slot holds the last key that hashed to it.
 */
#define JSONL_PIECE 192 /* a thread's piece takes at most 153 bytes */
#define JSONL_SLOT_BITS 6
#define JSONL_SLOTS (1u << JSONL_SLOT_BITS)

struct piece {
	uint16_t len; /* 0: empty slot */
	char text[JSONL_PIECE];
};

struct thread_piece {
	uint32_t pid, tid, depth;
	char comm[CT_COMM_LEN]; /* NUL-padded */
	struct piece p;
};

struct result_piece {
	int64_t result;
	/* From the plugin's error table, which outlives the sink: one address,
	 * one text. */
	const char *name;
	bool is_error;
	struct piece p;
};

/*
 * A cgroup's keys, ,"cgroup":"/…","container":"…","pod":"…", escaped once:
 * a node's calls come from a few cgroups. Direct-mapped by id; ids are
 * never reused, so a slot's text is its id's for good.
 */
#define JSONL_CG_SLOTS 16

struct cgroup_piece {
	uint64_t id; /* 0: empty slot */
	struct ct_sb text;
};

struct jsonl_sink {
	struct ct_sink_common c;
	struct ct_sb b;
	char host[256];
	int64_t skew_ns; /* test hook: CUDATRACER_TEST_CLOCK_SKEW_NS */
	struct api_text *cache;
	struct ct_sb_ts_cache ts;
	struct thread_piece threads[JSONL_SLOTS];
	struct result_piece results[JSONL_SLOTS];
	struct cgroup_piece cgroups[JSONL_CG_SLOTS];
};

/*
 * The cached pieces are short: copied at a constant size (a few vector
 * moves, no call to memcpy), of which only n bytes count. Their buffers
 * hold at least 64 bytes, and the line's room is reserved per event.
 */
static inline char *put_text(char *w, const char *text, size_t n)
{
	/* Four unaligned vector moves, spelled out: for a 64-byte memcpy from a
	 * source whose alignment it knows, GCC may emit rep movs, slow to start. */
	typedef char v16 __attribute__((vector_size(16), aligned(1), may_alias));

	if (n > 64)
		return ct_w_put(w, text, n);
	((v16 *)w)[0] = ((const v16 *)text)[0];
	((v16 *)w)[1] = ((const v16 *)text)[1];
	((v16 *)w)[2] = ((const v16 *)text)[2];
	((v16 *)w)[3] = ((const v16 *)text)[3];
	return w + n;
}

static inline char *put_cached(char *w, const struct ct_sb *piece)
{
	return put_text(w, piece->p, piece->len);
}

/* Keep the text from `from` to `to` as the piece, if it fits. */
static void piece_keep(struct piece *p, const char *from, const char *to)
{
	size_t n = (size_t)(to - from);

	p->len = n <= sizeof(p->text) ? (uint16_t)n : 0;
	if (p->len)
		memcpy(p->text, from, n);
}

/* The longest name in a table, escaped and quoted. */
static size_t names_max(const struct ct_enum *e)
{
	size_t m = 0;

	for (size_t i = 0; e && e->v && i < e->n; i++)
		if (e->v[i].name && strlen(e->v[i].name) > m)
			m = strlen(e->v[i].name);
	return 6 * m + 2;
}

static struct api_text *api_text(struct jsonl_sink *s, const struct ct_event *ev)
{
	size_t h = ((uintptr_t)ev->api >> 4) % JSONL_CACHE;

	for (size_t i = 0; i < JSONL_CACHE; i++, h = (h + 1) % JSONL_CACHE) {
		struct api_text *t = &s->cache[h];

		if (t->api == ev->api)
			return t;
		if (t->api)
			continue;
		/* Escaped, a byte takes up to 6; then the quotes and keys. Pieces
		 * are copied 64 bytes at a time: at least that much room. */
		if (!ct_sb_room(&t->head, 6 * (strlen(ev->plugin->name) + strlen(ev->api->symbol)) + 64))
			return NULL;
		ct_sb_lit(&t->head, ",\"plugin\":");
		ct_sb_json_str(&t->head, ev->plugin->name);
		ct_sb_lit(&t->head, ",\"api\":");
		ct_sb_json_str(&t->head, ev->api->symbol);
		t->need = t->head.len + names_max(ev->plugin->errors);
		for (size_t k = 0; k < ev->api->n_args && k < CT_MAX_ARGS; k++) {
			if (!ct_sb_room(&t->keys[k], 6 * strlen(ev->api->args[k].name) + 64))
				return NULL;
			if (k)
				ct_sb_ch(&t->keys[k], ',');
			else
				ct_sb_lit(&t->keys[k], ",\"args\":{");
			ct_sb_json_str(&t->keys[k], ev->api->args[k].name);
			ct_sb_ch(&t->keys[k], ':');
			t->need += t->keys[k].len;
			if (ev->api->args[k].kind == CT_ARG_ENUM)
				t->need += names_max(ev->api->args[k].names);
		}
		t->api = ev->api;
		return t;
	}
	return NULL;
}

/*
 * Whether the cached comm (NUL-padded) is the event's. The record's own comm
 * field is CT_COMM_LEN bytes, NUL-padded by the kernel: compared whole, in
 * two loads. Any other string is read only up to its NUL.
 */
static bool same_comm(const char *cached, const struct ct_event *ev)
{
	const char *comm = ev->comm;

	if (ev->rec && comm == ev->rec->comm)
		return !memcmp(cached, comm, CT_COMM_LEN);
	for (int i = 0; i < CT_COMM_LEN; i++) {
		if (cached[i] != comm[i])
			return false;
		if (!comm[i])
			return true;
	}
	return false;
}

static char *put_thread(struct jsonl_sink *s, char *w, const struct ct_event *ev)
{
	/* The top bits of a multiplicative hash: one process's tids are
	 * consecutive numbers, and nested calls differ only in depth. */
	uint32_t h = (ev->tid ^ ev->pid << 8 ^ ev->depth << 16) * 0x9e3779b1u >> (32 - JSONL_SLOT_BITS);
	struct thread_piece *t = &s->threads[h];
	char *from = w;
	size_t n;

	if (t->p.len && t->tid == ev->tid && t->pid == ev->pid && t->depth == ev->depth &&
	    ev->comm && same_comm(t->comm, ev))
		return put_text(w, t->p.text, t->p.len);
	w = ct_w_lit(w, ",\"pid\":");
	w = ct_w_u64(w, ev->pid);
	w = ct_w_lit(w, ",\"tid\":");
	w = ct_w_u64(w, ev->tid);
	w = ct_w_lit(w, ",\"comm\":");
	w = ct_w_json_str(w, ev->comm);
	w = ct_w_lit(w, ",\"depth\":");
	w = ct_w_u64(w, ev->depth);
	/* Only a comm that same_comm() can match again is kept. */
	n = ev->comm ? strnlen(ev->comm, CT_COMM_LEN) : CT_COMM_LEN;
	if (n == CT_COMM_LEN) {
		t->p.len = 0;
		return w;
	}
	memset(t->comm, 0, sizeof(t->comm));
	memcpy(t->comm, ev->comm, n);
	t->pid = ev->pid;
	t->tid = ev->tid;
	t->depth = ev->depth;
	piece_keep(&t->p, from, w);
	return w;
}

static char *put_result(struct jsonl_sink *s, char *w, const struct ct_event *ev)
{
	/* Small codes (success, the common errors) each have a slot. */
	struct result_piece *r = &s->results[(uint64_t)ev->result % JSONL_SLOTS];
	char *from = w;

	if (r->p.len && r->result == ev->result && r->name == ev->result_name &&
	    r->is_error == ev->is_error)
		return put_text(w, r->p.text, r->p.len);
	w = ct_w_lit(w, ",\"result\":");
	w = ct_w_i64(w, ev->result);
	w = ct_w_lit(w, ",\"result_name\":");
	if (ev->result_name)
		w = ct_w_json_str(w, ev->result_name);
	else
		w = ct_w_lit(w, "null");
	if (ev->is_error)
		w = ct_w_lit(w, ",\"error\":true");
	else
		w = ct_w_lit(w, ",\"error\":false");
	r->result = ev->result;
	r->name = ev->result_name;
	r->is_error = ev->is_error;
	piece_keep(&r->p, from, w);
	return w;
}

/* The cgroup's keys as text: the path, and the container and pod where it
 * names them; a cgroup removed before it was resolved has its id alone. */
static const struct ct_sb *cgroup_text(struct jsonl_sink *s, const struct ct_cgroup *cg)
{
	struct cgroup_piece *c = &s->cgroups[cg->id * 0x9e3779b97f4a7c15ull >> 60];
	struct ct_sb *b = &c->text;

	if (c->id == cg->id)
		return b;
	b->len = 0;
	c->id = 0;
	/* Escaped, a byte takes up to 6; pieces are copied 64 bytes at a time. */
	if (!ct_sb_room(b, 6 * (cg->path ? strlen(cg->path) : 0) + 256))
		return NULL;
	if (!cg->path) {
		ct_sb_lit(b, ",\"cgroup\":null,\"cgroup_id\":");
		ct_sb_u64(b, cg->id);
	} else {
		ct_sb_lit(b, ",\"cgroup\":");
		ct_sb_json_str(b, cg->path);
	}
	if (cg->container) {
		ct_sb_lit(b, ",\"container\":");
		ct_sb_json_str(b, cg->container);
	}
	if (cg->pod) {
		ct_sb_lit(b, ",\"pod\":");
		ct_sb_json_str(b, cg->pod);
	}
	c->id = cg->id;
	return b;
}

/* A job's keys (only those set) and the host's, on the lines of a process
 * that runs as a rank of a job. */
static char *put_env(const struct jsonl_sink *s, char *w, const struct ct_proc_env *e)
{
	if (e->rank >= 0) {
		w = ct_w_lit(w, ",\"rank\":");
		w = ct_w_u64(w, (uint64_t)e->rank);
	}
	if (e->local_rank >= 0) {
		w = ct_w_lit(w, ",\"local_rank\":");
		w = ct_w_u64(w, (uint64_t)e->local_rank);
	}
	if (e->world_size >= 0) {
		w = ct_w_lit(w, ",\"world_size\":");
		w = ct_w_u64(w, (uint64_t)e->world_size);
	}
	if (e->job_id[0]) {
		w = ct_w_lit(w, ",\"job_id\":");
		w = ct_w_json_str(w, e->job_id);
	}
	w = ct_w_lit(w, ",\"host\":");
	return ct_w_json_str(w, s->host);
}

/* What is known of the call's communicator; the key only when something is. */
static char *put_comm(char *w, const struct ct_comm_info *c)
{
	char sep = '{';

	if (c->rank < 0 && c->nranks < 0 && !c->id && !c->seq)
		return w;
	w = ct_w_lit(w, ",\"communicator\":");
	if (c->rank >= 0) {
		*w++ = sep, sep = ',';
		w = ct_w_lit(w, "\"rank\":");
		w = ct_w_u64(w, (uint64_t)c->rank);
	}
	if (c->nranks >= 0) {
		*w++ = sep, sep = ',';
		w = ct_w_lit(w, "\"nranks\":");
		w = ct_w_u64(w, (uint64_t)c->nranks);
	}
	if (c->id) {
		*w++ = sep, sep = ',';
		w = ct_w_lit(w, "\"id\":\"");
		w = ct_w_hex(w, c->id);
		*w++ = '"';
	}
	if (c->seq) {
		*w++ = sep, sep = ',';
		w = ct_w_lit(w, "\"seq\":");
		w = ct_w_u64(w, c->seq);
	}
	*w++ = '}';
	return w;
}

/* The first line: where and when the trace was taken (runmeta.h). */
static void put_meta(struct jsonl_sink *s)
{
	struct ct_run_meta m;

	ct_run_meta_read(&m);
	snprintf(s->host, sizeof(s->host), "%s", m.host);
	s->skew_ns = m.skew_ns;
	ct_sb_lit(&s->b, "{\"kind\":\"meta\",\"format\":\"cudatracer-jsonl\",\"version\":" CT_TRACE_VERSION_TEXT ",\"host\":");
	ct_sb_json_str(&s->b, s->host);
	ct_sb_lit(&s->b, ",\"boot_id\":");
	ct_sb_json_str(&s->b, m.boot_id);
	ct_sb_lit(&s->b, ",\"tracer_pid\":");
	ct_sb_u64(&s->b, m.tracer_pid);
	ct_sb_lit(&s->b, ",\"wall_ns\":");
	ct_sb_u64(&s->b, m.wall_ns);
	ct_sb_lit(&s->b, ",\"mono_ns\":");
	ct_sb_u64(&s->b, m.mono_ns);
	ct_sb_lit(&s->b, ",\"wall_offset_ns\":");
	ct_sb_i64(&s->b, (int64_t)(m.wall_ns - m.mono_ns));
	if (s->skew_ns) {
		ct_sb_lit(&s->b, ",\"test_clock_skew_ns\":");
		ct_sb_i64(&s->b, s->skew_ns);
	}
	ct_sb_lit(&s->b, "}\n");
}

static int jsonl_open(void *ctx)
{
	struct jsonl_sink *s = ctx;

	s->cache = calloc(JSONL_CACHE, sizeof(*s->cache));
	if (!s->cache)
		return -ENOMEM;
	if (!ct_sb_room(&s->b, JSONL_FLUSH + 16 * 1024))
		return -ENOMEM;
	put_meta(s); /* the host, also for each line's fields */
	/* A daemon's session continuing the file of the one before: its first
	 * line is the meta line already (the same host, boot and tracer), and
	 * a trace has one. */
	if (ct_out_continued(s->c.out))
		s->b.len = 0;
	return 0;
}

static int jsonl_write(struct jsonl_sink *s)
{
	size_t len = s->b.len, n = fwrite(s->b.p, 1, len, s->c.out);

	s->b.len = 0;
	return n == len ? 0 : -(errno ? errno : EIO);
}

/* The most this event's line can take: only kernel, handle and record
 * strings are measured per event (a kernel name has no bound). */
static size_t line_max(const struct api_text *t, const struct ct_event *ev)
{
	size_t n = JSONL_LINE_FIXED + t->need;

	for (int i = 0; i < ev->n_fields; i++)
		if (ev->fields[i].str)
			n += 6 * strlen(ev->fields[i].str) + 2;
	if (ev->parent_api)
		n += 6 * (strlen(ev->parent_plugin) + strlen(ev->parent_api)) + 4;
	if (ev->env)
		n += 128 + 6 * (sizeof(ev->env->job_id) + sizeof(((struct jsonl_sink *)0)->host));
	if (ev->comm_info)
		n += 128;
	/* device_from, gpu_uuid, gpu_bus */
	n += 32 + (ev->gpu ? 32 + 6 * (sizeof(ev->gpu->uuid) + sizeof(ev->gpu->bus)) : 0);
	if (ev->stack)
		n += 16 + ct_stack_json_max(ev->stack);
	if (ev->py_stack)
		n += 48 + ct_py_stack_json_max(ev->py_stack);
	return n;
}

/* ,"py_stack":[...] innermost first (docs/stacks-python.md). */
static char *put_py_stack(char *w, const struct ct_py_frames *fr)
{
	w = ct_w_lit(w, ",\"py_stack\":");
	w = ct_py_stack_json_w(w, fr);
	if (fr->truncated)
		w = ct_w_lit(w, ",\"py_stack_truncated\":true");
	return w;
}

/* The room ,"nvtx":[...] takes (names escaped: 6 bytes a byte at most). */
static size_t nvtx_max(const char *const *l, uint32_t n)
{
	size_t k = 16;

	for (uint32_t i = 0; i < n; i++)
		k += 6 * strlen(l[i]) + 3;
	return k;
}

/* ,"nvtx":["outer","inner"]: the NVTX ranges open at a call (docs/nvtx.md); nothing when none. */
static char *put_nvtx(char *w, const char *const *l, uint32_t n)
{
	if (!n)
		return w;
	w = ct_w_lit(w, ",\"nvtx\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			*w++ = ',';
		w = ct_w_json_str(w, l[i]);
	}
	*w++ = ']';
	return w;
}

/* The event's line into the buffer, not flushed: `extra` bytes more reserved for its caller. */
static int put_event(struct jsonl_sink *s, const struct ct_event *ev, size_t extra)
{
	struct ct_sb *b = &s->b;
	struct api_text *t = api_text(s, ev);
	const struct ct_sb *cg = NULL;
	size_t need;
	char *w;

	if (!t)
		return -ENOMEM;
	if (ev->cgroup && !(cg = cgroup_text(s, ev->cgroup)))
		return -ENOMEM;
	need = line_max(t, ev) + (cg ? cg->len : 0) + nvtx_max(ev->nvtx, ev->n_nvtx) + extra;
	if (b->cap - b->len < need && !ct_sb_room(b, need))
		return -ENOMEM;
	w = b->p + b->len;
	w = ct_w_lit(w, "{\"ts_ns\":");
	w = ct_w_ts(w, ev->ts_ns + (uint64_t)s->skew_ns, &s->ts);
	w = put_cached(w, &t->head);
	w = put_thread(s, w, ev);
	if (ev->device >= 0) {
		w = ct_w_lit(w, ",\"device\":");
		w = ct_w_u64(w, (uint64_t)ev->device);
	} else {
		w = ct_w_lit(w, ",\"device\":null");
	}
	if (ct_device_from_name(ev->device_from)) {
		w = ct_w_lit(w, ",\"device_from\":");
		w = ct_w_json_str(w, ct_device_from_name(ev->device_from));
	}
	if (ev->gpu) {
		w = ct_w_lit(w, ",\"gpu_uuid\":");
		w = ct_w_json_str(w, ev->gpu->uuid);
		if (ev->gpu->bus[0]) {
			w = ct_w_lit(w, ",\"gpu_bus\":");
			w = ct_w_json_str(w, ev->gpu->bus);
		}
	}
	if (cg)
		w = put_cached(w, cg);
	if (ev->env)
		w = put_env(s, w, ev->env);
	if (ev->comm_info)
		w = put_comm(w, ev->comm_info);
	if (ev->api->flags & (CT_API_COLLECTIVE | CT_API_P2P)) {
		w = ct_w_lit(w, ",\"bytes\":");
		w = ct_w_u64(w, ct_event_bytes(ev));
	}
	if (ev->parent_api) {
		w = ct_w_lit(w, ",\"parent\":{\"plugin\":");
		w = ct_w_json_str(w, ev->parent_plugin);
		w = ct_w_lit(w, ",\"api\":");
		w = ct_w_json_str(w, ev->parent_api);
		*w++ = '}';
	}
	if (ev->py_stack)
		w = put_py_stack(w, ev->py_stack);
	w = put_nvtx(w, ev->nvtx, ev->n_nvtx);
	if (ev->entry_only) {
		w = ct_w_lit(w, ",\"entry_only\":true");
	} else {
		w = ct_w_lit(w, ",\"dur_ns\":");
		w = ct_w_u64(w, ev->dur_ns);
		if (ev->has_result)
			w = put_result(s, w, ev);
		if (ev->has_ret_handle) {
			w = ct_w_lit(w, ",\"ret\":\"");
			w = ct_w_hex(w, ev->ret_handle);
			*w++ = '"';
		}
	}
	if (!ev->n_fields)
		w = ct_w_lit(w, ",\"args\":{");
	for (int i = 0; i < ev->n_fields; i++) {
		w = put_cached(w, &t->keys[i]);
		w = ct_json_field_w(w, &ev->fields[i]);
	}
	*w++ = '}';
	if (ev->stack) {
		w = ct_w_lit(w, ",\"stack\":");
		w = ct_stack_json_w(w, ev->stack);
	}
	w = ct_w_lit(w, "}\n");
	b->len = (size_t)(w - b->p);
	return 0;
}

static int jsonl_event(void *ctx, const struct ct_event *ev)
{
	struct jsonl_sink *s = ctx;
	int err = put_event(s, ev, 0);

	return err ? err : s->b.len >= JSONL_FLUSH ? jsonl_write(s) : 0;
}

/*
 * The call's own line (entry time, arguments, communicator, stacks; dur_ns
 * its time in the call so far) and "kind":"hang" with the hang's keys:
 * docs/events.md. Written at once: someone is waiting on it.
 */
static int jsonl_hang(void *ctx, const struct ct_hang *h)
{
	struct jsonl_sink *s = ctx;
	struct ct_sb *b = &s->b;
	int err = put_event(s, h->call, 256);

	if (err)
		return err;
	b->len -= 2; /* "}\n" */
	ct_sb_lit(b, ",\"kind\":\"hang\",\"state\":\"");
	ct_sb_put(b, ct_hang_state_name(h->state), strlen(ct_hang_state_name(h->state)));
	ct_sb_lit(b, "\",\"report_ns\":");
	ct_sb_u64(b, h->ts_ns + (uint64_t)s->skew_ns);
	ct_sb_lit(b, ",\"timeout_ns\":");
	ct_sb_u64(b, h->timeout_ns);
	ct_sb_lit(b, ",\"stuck_in_process\":");
	ct_sb_u64(b, h->stuck_in_pid);
	if (h->behind_rank >= 0) {
		ct_sb_lit(b, ",\"behind\":{\"rank\":");
		ct_sb_u64(b, (uint64_t)h->behind_rank);
		ct_sb_lit(b, ",\"pid\":");
		ct_sb_u64(b, h->behind_pid);
		ct_sb_lit(b, ",\"seq\":");
		ct_sb_u64(b, h->behind_seq);
		ct_sb_ch(b, '}');
	}
	ct_sb_lit(b, "}\n");
	return jsonl_write(s);
}

static const char *const gpu_ops[] = { [CT_GPU_KERNEL] = "kernel", [CT_GPU_MEMCPY] = "memcpy",
					[CT_GPU_MEMSET] = "memset" };

/* ,"graph_id":..,"graph_node":..,"captured_by":{...} or null: docs/events.md */
static void put_graph(struct ct_sb *b, const struct ct_gpu_event *g, uint64_t skew)
{
	ct_sb_lit(b, ",\"graph_id\":");
	ct_sb_u64(b, g->graph_id);
	ct_sb_lit(b, ",\"graph_node\":");
	ct_sb_u64(b, g->graph_node);
	if (!g->has_capture) {
		ct_sb_lit(b, ",\"captured_by\":null");
		return;
	}
	ct_sb_lit(b, ",\"captured_by\":{\"node\":");
	ct_sb_u64(b, g->capture_node);
	ct_sb_lit(b, ",\"tid\":");
	ct_sb_u64(b, g->capture_tid);
	ct_sb_lit(b, ",\"api\":");
	if (g->capture_api)
		ct_sb_json_str(b, g->capture_api);
	else
		ct_sb_lit(b, "null");
	ct_sb_lit(b, ",\"ts_ns\":");
	ct_sb_u64(b, g->capture_ts_ns + skew);
	ct_sb_lit(b, ",\"site\":");
	if (g->capture_site)
		ct_sb_json_str(b, g->capture_site);
	else
		ct_sb_lit(b, "null");
	ct_sb_ch(b, '}');
}

/* {"ts_ns":..,"kind":"gpu","op":"kernel","pid":..,"device":..,...}: docs/events.md */
static int jsonl_gpu(void *ctx, const struct ct_gpu_event *g)
{
	struct jsonl_sink *s = ctx;
	struct ct_sb *b = &s->b;
	uint64_t skew = (uint64_t)s->skew_ns;

	if (!ct_sb_room(b, JSONL_LINE_FIXED + nvtx_max(g->nvtx, g->n_nvtx) +
				   6 * ((g->name ? strlen(g->name) : 0) + (g->launch_api ? strlen(g->launch_api) : 0) +
					(g->capture_api ? strlen(g->capture_api) : 0) +
					(g->capture_site ? strlen(g->capture_site) : 0))))
		return -ENOMEM;
	ct_sb_lit(b, "{\"ts_ns\":");
	ct_sb_u64(b, g->ts_ns + skew);
	ct_sb_lit(b, ",\"kind\":\"gpu\",\"op\":\"");
	ct_sb_put(b, gpu_ops[g->kind], strlen(gpu_ops[g->kind]));
	ct_sb_lit(b, "\",\"pid\":");
	ct_sb_u64(b, g->pid);
	ct_sb_lit(b, ",\"device\":");
	ct_sb_u64(b, g->device);
	if (g->gpu) {
		ct_sb_lit(b, ",\"gpu_uuid\":");
		ct_sb_json_str(b, g->gpu->uuid);
		if (g->gpu->bus[0]) {
			ct_sb_lit(b, ",\"gpu_bus\":");
			ct_sb_json_str(b, g->gpu->bus);
		}
	}
	ct_sb_lit(b, ",\"context\":");
	ct_sb_u64(b, g->context);
	ct_sb_lit(b, ",\"stream\":");
	ct_sb_u64(b, g->stream);
	ct_sb_lit(b, ",\"end_ns\":");
	ct_sb_u64(b, g->ts_ns + g->dur_ns + skew);
	ct_sb_lit(b, ",\"dur_ns\":");
	ct_sb_u64(b, g->dur_ns);
	if (g->kind == CT_GPU_KERNEL) {
		ct_sb_lit(b, ",\"name\":");
		if (g->name)
			ct_sb_json_str(b, g->name);
		else
			ct_sb_lit(b, "null");
		for (int d = 0; d < 2; d++) {
			const uint32_t *v = d ? g->block : g->grid;

			if (d)
				ct_sb_lit(b, ",\"block\":[");
			else
				ct_sb_lit(b, ",\"grid\":[");
			for (int i = 0; i < 3; i++) {
				if (i)
					ct_sb_ch(b, ',');
				ct_sb_u64(b, v[i]);
			}
			ct_sb_ch(b, ']');
		}
		ct_sb_lit(b, ",\"shared_bytes\":");
		ct_sb_u64(b, g->shared_bytes);
	} else {
		ct_sb_lit(b, ",\"bytes\":");
		ct_sb_u64(b, g->bytes);
		if (g->kind == CT_GPU_MEMCPY) {
			ct_sb_lit(b, ",\"copy_kind\":");
			ct_sb_json_str(b, g->copy_kind);
			if (g->src_kind && g->dst_kind) {
				ct_sb_lit(b, ",\"src_kind\":");
				ct_sb_json_str(b, g->src_kind);
				ct_sb_lit(b, ",\"dst_kind\":");
				ct_sb_json_str(b, g->dst_kind);
			}
		} else {
			ct_sb_lit(b, ",\"value\":");
			ct_sb_u64(b, g->set_value);
		}
	}
	ct_sb_lit(b, ",\"correlation\":");
	if (!g->has_launch) {
		ct_sb_lit(b, "{\"id\":");
		ct_sb_u64(b, g->correlation);
		ct_sb_lit(b, ",\"tid\":null,\"api\":null,\"ts_ns\":null}");
	} else {
		ct_sb_lit(b, "{\"id\":");
		ct_sb_u64(b, g->correlation);
		ct_sb_lit(b, ",\"tid\":");
		ct_sb_u64(b, g->launch_tid);
		ct_sb_lit(b, ",\"api\":");
		if (g->launch_api)
			ct_sb_json_str(b, g->launch_api);
		else
			ct_sb_lit(b, "null");
		ct_sb_lit(b, ",\"ts_ns\":");
		ct_sb_u64(b, g->launch_ts_ns + skew);
		ct_sb_ch(b, '}');
	}
	if (g->graph_node)
		put_graph(b, g, skew);
	CT_SB_APPLY(b, put_nvtx(b->p + b->len, g->nvtx, g->n_nvtx));
	ct_sb_lit(b, "}\n");
	return b->len >= JSONL_FLUSH ? jsonl_write(s) : 0;
}

/* {"ts_ns":..,"kind":"range",...,"end_ns":..,"dur_ns":..,"depth":N} or a
 * "mark": docs/events.md. */
static int jsonl_nvtx(void *ctx, const struct ct_nvtx_event *r)
{
	struct jsonl_sink *s = ctx;
	struct ct_sb *b = &s->b;
	uint64_t skew = (uint64_t)s->skew_ns;

	if (!ct_sb_room(b, JSONL_LINE_FIXED + 6 * (strlen(r->name) + (r->domain ? strlen(r->domain) : 0))))
		return -ENOMEM;
	ct_sb_lit(b, "{\"ts_ns\":");
	ct_sb_u64(b, r->ts_ns + skew);
	if (r->mark)
		ct_sb_lit(b, ",\"kind\":\"mark\",\"pid\":");
	else
		ct_sb_lit(b, ",\"kind\":\"range\",\"pid\":");
	ct_sb_u64(b, r->pid);
	ct_sb_lit(b, ",\"tid\":");
	ct_sb_u64(b, r->tid);
	ct_sb_lit(b, ",\"domain\":");
	if (r->domain)
		ct_sb_json_str(b, r->domain);
	else
		ct_sb_lit(b, "null");
	ct_sb_lit(b, ",\"name\":");
	ct_sb_json_str(b, r->name);
	if (!r->mark) {
		ct_sb_lit(b, ",\"end_ns\":");
		ct_sb_u64(b, r->end_ns + skew);
		ct_sb_lit(b, ",\"dur_ns\":");
		ct_sb_u64(b, r->end_mono_ns - r->mono_ns);
		if (r->depth >= 0) {
			ct_sb_lit(b, ",\"depth\":");
			ct_sb_u64(b, (uint64_t)r->depth);
		}
		if (r->open)
			ct_sb_lit(b, ",\"open\":true");
	}
	ct_sb_lit(b, "}\n");
	return b->len >= JSONL_FLUSH ? jsonl_write(s) : 0;
}

static int jsonl_tick(void *ctx, uint64_t now_ns)
{
	return jsonl_write(ctx);
}

static int jsonl_close(void *ctx, const struct ct_run_stats *st)
{
	return jsonl_write(ctx);
}

static void jsonl_destroy(void *ctx)
{
	struct jsonl_sink *s = ctx;

	for (size_t i = 0; s->cache && i < JSONL_CACHE; i++) {
		ct_sb_free(&s->cache[i].head);
		for (int k = 0; k < CT_MAX_ARGS; k++)
			ct_sb_free(&s->cache[i].keys[k]);
	}
	free(s->cache);
	for (int i = 0; i < JSONL_CG_SLOTS; i++)
		ct_sb_free(&s->cgroups[i].text);
	ct_sb_free(&s->b);
}

const struct ct_sink_ops ct_sink_jsonl = {
	.type = "jsonl",
	.where_help = "one JSON object per call, one per line",
	.file_ext = "jsonl",
	.appendable = true,
	.rotatable = true,
	.help = "One JSON object per call, one per line (schema: docs/events.md)",
	.keys = NULL,
	.ctx_size = sizeof(struct jsonl_sink),
	.open = jsonl_open,
	.event = jsonl_event,
	.tick = jsonl_tick,
	.close = jsonl_close,
	.destroy = jsonl_destroy,
	.gpu = jsonl_gpu,
	.hang = jsonl_hang,
	.nvtx = jsonl_nvtx,
};
