/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Python frames at a traced call (docs/stacks-python.md), for the capture
 * engine: ct_py_stack() walks the calling thread's CPython frames, with the
 * layout the core gave for its process (pystack.h), into the thread's
 * scratch; sends the stack once into py_stacks under a hash of its frames;
 * names each code object once into py_codes. Returns the record's
 * `pystack` (id + 1), 0 for none.
 *
 * The thread state: not "the thread holding the GIL" (ctypes' CDLL has
 * released it before the foreign call), but the caller's own one, found
 * in the main interpreter's thread list by its thread id, and kept per
 * thread (checked again at each call: a thread state can be freed and its
 * memory reused).
 *
 * Names are copied here, not read later by the core: a code object can be
 * freed once the call returns (a lambda, exec'd code) and its address
 * reused; a py_codes entry keeps the co_name and co_filename pointers it
 * was copied from, and is copied again when the code object at that
 * address points elsewhere.
 */
#ifndef CT_PYSTACK_BPF_H
#define CT_PYSTACK_BPF_H

#include "pystack.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CT_PY_PROCS_MAX);
	__type(key, __u32);
	__type(value, struct ct_py_proc);
} py_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, CT_PY_STACKS_MAX);
	__type(key, __u32);
	__type(value, struct ct_py_stack);
} py_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, CT_PY_CODES_MAX);
	__type(key, struct ct_py_code_key);
	__type(value, struct ct_py_code);
} py_codes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CT_PY_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} py_stats SEC(".maps");

/* A thread's scratch: its thread state as last found, the stack being built. */
struct ct_py_thread {
	__u64 tstate;
	unsigned char chunk[CT_PY_CHUNK + 8];
	unsigned char code[CT_PY_CHUNK + 8];
	struct ct_py_code named;
	struct ct_py_stack st;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ct_py_thread);
} py_threads SEC(".maps");

static __always_inline void ct_py_count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&py_stats, &which);

	if (c)
		*c += 1;
}

static __always_inline __u64 ct_py_word(__u64 addr)
{
	__u64 v = 0;

	if (addr)
		bpf_probe_read_user(&v, sizeof(v), (void *)addr);
	return v;
}

/* A word of a chunk read at once, at an offset below CT_PY_CHUNK. */
static __always_inline __u64 ct_py_at(const unsigned char *chunk, __u16 off)
{
	__u64 v;

	__builtin_memcpy(&v, chunk + (off & (CT_PY_CHUNK - 1)), sizeof(v));
	return v;
}

/* What the thread state says its thread is. */
static __always_inline __u64 ct_py_thread_key(const struct ct_py_proc *p, struct task_struct *task)
{
	if (p->l.thread_match == CT_PY_PTHREAD) {
#if defined(__TARGET_ARCH_x86)
		return task->thread.fsbase;
#else
		return 0; /* pthread_self is not a register the kernel keeps apart elsewhere */
#endif
	}
	/* gettid() as the process sees it: its id in its own pid namespace. */
	{
		struct pid *pid = task->thread_pid;
		unsigned int level = pid->level;

		return (__u64)(__u32)BPF_CORE_READ(pid, numbers[level].nr);
	}
}

/*
 * The loops run under bpf_loop(): each body is verified once, not once per
 * iteration, and the walk stays within the verifier's budget wherever the
 * engine inlines it. The map values travel in the loop's context (the
 * verifier follows pointers spilled to the caller's stack): a lookup per
 * frame made a 32-frame walk five times slower.
 */
struct ct_py_loop {
	__u32 tgid;
	__u32 n;
	__u32 h;
	__u32 pad;
	__u64 cur;   /* the thread state, or the frame, to look at next */
	__u64 want;  /* the thread's key (ct_py_thread_key) */
	__u64 found; /* the thread state found */
	const struct ct_py_proc *p;
	struct ct_py_thread *t;
};

static __always_inline int ct_py_ctx(const struct ct_py_loop *c, const struct ct_py_proc **p, struct ct_py_thread **t)
{
	*p = c->p;
	*t = c->t;
	return *p && *t;
}

static long ct_py_thread_step(__u64 i, void *ctx)
{
	struct ct_py_loop *c = ctx;
	const struct ct_py_proc *p;
	struct ct_py_thread *t;

	if (!c->cur || !ct_py_ctx(c, &p, &t))
		return 1;
	if (ct_py_word(c->cur + p->l.ts_thread) == c->want) {
		c->found = c->cur;
		return 1;
	}
	c->cur = ct_py_word(c->cur + p->l.ts_next);
	return 0;
}

/* The calling thread's PyThreadState, or 0. */
static __always_inline __u64 ct_py_tstate(const struct ct_py_proc *p, struct ct_py_thread *t,
					  struct task_struct *task, struct ct_py_loop *c)
{
	__u64 interp;

	c->want = ct_py_thread_key(p, task);
	if (!c->want)
		return 0;
	if (t->tstate && ct_py_word(t->tstate + p->l.ts_thread) == c->want)
		return t->tstate;
	interp = ct_py_word(p->runtime + p->l.rt_interp_main);
	c->cur = ct_py_word(interp + p->l.is_threads_head);
	c->found = 0;
	bpf_loop(CT_PY_MAX_THREADS, ct_py_thread_step, c, 0);
	t->tstate = c->found;
	return c->found;
}

/* A string object's text into buf (NUL-terminated; "" when unreadable). */
static __always_inline void ct_py_str(const struct ct_py_proc *p, __u64 obj, char *buf, __u32 size)
{
	__u32 state = 0;
	__u64 data;

	buf[0] = 0;
	if (!obj || bpf_probe_read_user(&state, sizeof(state), (void *)(obj + p->l.str_state)))
		return;
	/* Compact ASCII: the bytes follow the header. Any other: its UTF-8
	 * copy, where one was made (co_name and co_filename usually have one). */
	if ((state >> (p->l.str_ascii_bit - 1) & 3) == 3)
		data = obj + p->l.str_ascii_data;
	else
		data = ct_py_word(obj + p->l.str_utf8);
	if (data)
		bpf_probe_read_user_str(buf, size, (void *)data);
}

/* Name the code object (its chunk in t->code) in py_codes, unless it is already. */
static __always_inline void ct_py_name(const struct ct_py_proc *p, struct ct_py_thread *t, __u32 tgid, __u64 code)
{
	struct ct_py_code_key k = { .tgid = tgid, .code = code };
	struct ct_py_code *have = bpf_map_lookup_elem(&py_codes, &k);
	struct ct_py_code *n = &t->named;

	__u64 len;

	n->name_ptr = ct_py_at(t->code, p->l.co_name);
	n->file_ptr = ct_py_at(t->code, p->l.co_filename);
	n->lines_ptr = ct_py_word(code + p->l.co_linetable);
	if (have && have->name_ptr == n->name_ptr && have->file_ptr == n->file_ptr && have->lines_ptr == n->lines_ptr)
		return;
	n->firstlineno = (__u32)ct_py_at(t->code, p->l.co_firstlineno);
	ct_py_str(p, n->name_ptr, n->name, sizeof(n->name));
	ct_py_str(p, n->file_ptr, n->file, sizeof(n->file));
	len = n->lines_ptr ? ct_py_word(n->lines_ptr + p->l.bytes_size) : 0;
	n->lines_len = len > 0xffffffffull ? 0 : (__u32)len;
	if (len > CT_PY_LINES)
		len = CT_PY_LINES;
	if (len && bpf_probe_read_user(n->lines, len, (void *)(n->lines_ptr + p->l.bytes_data)))
		n->lines_len = 0;
	bpf_map_update_elem(&py_codes, &k, n, BPF_ANY);
}

static long ct_py_frame_step(__u64 i, void *ctx)
{
	struct ct_py_loop *c = ctx;
	const struct ct_py_proc *p;
	struct ct_py_thread *t;
	__u64 frame = c->cur, code, instr;
	__u32 n = c->n;
	__s32 lasti;

	if (!frame || !ct_py_ctx(c, &p, &t))
		return 1;
	if (n >= CT_PY_MAX_FRAMES) {
		t->st.flags |= CT_PYS_TRUNCATED;
		return 1;
	}
	/* A frame at the end of its interpreter's data stack chunk: its
	 * 80 bytes (3.11+'s _PyInterpreterFrame with one local) only. */
	if (bpf_probe_read_user(t->chunk, CT_PY_CHUNK, (void *)frame) &&
	    bpf_probe_read_user(t->chunk, 80, (void *)frame))
		return 1;
	c->cur = ct_py_at(t->chunk, p->l.fr_previous);
	/* The C stack's shim frames (3.12+) are no Python function's. */
	if (p->l.fr_owner != CT_PY_NONE && t->chunk[p->l.fr_owner & (CT_PY_CHUNK - 1)] == p->l.owner_cstack)
		return 0;
	code = ct_py_at(t->chunk, p->l.fr_code);
	if (!code || bpf_probe_read_user(t->code, CT_PY_CHUNK, (void *)code))
		return 0;
	/* Not a code object (3.13's f_executable may be None): no function. */
	if (ct_py_at(t->code, 8) != p->code_type)
		return 0;
	instr = ct_py_at(t->chunk, p->l.fr_instr);
	if (p->l.model == CT_PY_FRAMEOBJ)
		lasti = (__s32)instr * 2;
	else
		lasti = (__s32)(instr - (code + p->l.co_code));
	ct_py_name(p, t, c->tgid, code);
	t->st.f[n & (CT_PY_MAX_FRAMES - 1)].code = code;
	t->st.f[n & (CT_PY_MAX_FRAMES - 1)].lasti = (__u32)lasti;
	t->st.f[n & (CT_PY_MAX_FRAMES - 1)].pad = 0;
	c->h = (c->h ^ (__u32)code ^ (__u32)(code >> 32)) * 16777619u;
	c->h = (c->h ^ (__u32)lasti) * 16777619u;
	c->n = n + 1;
	return 0;
}

/* Walk from `frame` into t->st, send it once; the record's pystack. */
static __always_inline __u32 ct_py_walk(struct ct_py_thread *t, struct ct_py_loop *c, __u64 frame)
{
	struct ct_py_stack *have;
	__u32 h, n;

	t->st.tgid = c->tgid;
	t->st.flags = 0;
	c->cur = frame;
	c->n = 0;
	c->h = 2166136261u ^ c->tgid;
	/* Twice the frames kept: shim frames take turns too. */
	bpf_loop(CT_PY_MAX_FRAMES * 2, ct_py_frame_step, c, 0);
	n = c->n;
	if (!n || n > CT_PY_MAX_FRAMES)
		return 0;
	t->st.n = n;
	h = (c->h ^ n) & 0x7fffffff;
	if (!bpf_map_update_elem(&py_stacks, &h, &t->st, BPF_NOEXIST))
		return h + 1;
	/* Sent before (the same stack), or another stack of the same hash. */
	have = bpf_map_lookup_elem(&py_stacks, &h);
	if (!have || have->tgid != c->tgid || have->n != n ||
	    have->f[0].code != t->st.f[0].code || have->f[0].lasti != t->st.f[0].lasti ||
	    have->f[(n - 1) & (CT_PY_MAX_FRAMES - 1)].code != t->st.f[(n - 1) & (CT_PY_MAX_FRAMES - 1)].code) {
		ct_py_count(CT_PY_STAT_FULL);
		return 0;
	}
	return h + 1;
}

static __noinline __u32 ct_py_stack_of(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tgid = task->tgid;
	const struct ct_py_proc *p = bpf_map_lookup_elem(&py_procs, &tgid);
	struct ct_py_loop c = { .tgid = tgid };
	struct ct_py_thread *t;
	__u64 ts, frame;

	if (!p)
		return 0;
	t = bpf_task_storage_get(&py_threads, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		return 0;
	c.p = p;
	c.t = t;
	ts = ct_py_tstate(p, t, task, &c);
	if (!ts) {
		ct_py_count(CT_PY_STAT_NO_TSTATE);
		return 0;
	}
	frame = ct_py_word(ts + p->l.ts_frame);
	if (p->l.model == CT_PY_CFRAME)
		frame = ct_py_word(frame + p->l.cf_current);
	return ct_py_walk(t, &c, frame);
}

/* The call site: the record's `pystack` for a call of spec flags `sflags`. */
static __always_inline __u32 ct_py_stack(__u32 sflags)
{
	return (sflags & CT_SPEC_STACK) ? ct_py_stack_of() : 0;
}

#endif
