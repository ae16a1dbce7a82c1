/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The capture engine: one generic entry program and one generic exit
 * program that serve every API of every plugin of a session. The call id
 * (record.h: plugin and API) arrives as the attach cookie; the spec array,
 * filled by the core from the plugins' tables before load, says what to
 * copy for it. Every plugin's calls go to one ring, so that a thread's
 * events come out in the order it made them, whatever the runtime. A
 * plugin's BPF hook (hook.bpf.h), linked in at load, replaces ct_hook().
 *
 * Aggregate mode (tracer.mode = aggregate) is its own pair of programs,
 * chosen at load: they count calls, errors, time and bytes per process and
 * call id (record.h: a slot per process, one preallocated pool of totals
 * found by the slot's index or by a hash past the slots) and send nothing.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <cudatracer/hook.bpf.h>
#include "record.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/*
 * At a function's first instruction: where its first stack argument is, and
 * how far its return moves the stack pointer. x86-64 pushes the return
 * address (the caller's sp after the return is the entry's + 8); arm64
 * keeps it in a register.
 */
#if defined(__TARGET_ARCH_x86)
#define CT_STACK_ARGS_AT 8 /* past the return address */
#define CT_RET_SP_DELTA 8
#else
#define CT_STACK_ARGS_AT 0
#define CT_RET_SP_DELTA 0
#endif

/* Set by the core before load. */
const volatile bool ct_filter_pids = false;
const volatile bool ct_track_parents = false; /* several plugins: say which call a call was made in */
const volatile __u64 ct_wakeup_bytes = 0;     /* per CPU; 0: wake the reader for every record */
/* The session program is loaded (ct_session): an entry can decline its return. */
const volatile bool ct_session = false;
/*
 * Set by the core when tracing stops, before it drains the ring and
 * detaches the probes: no call that begins after it is recorded, so that
 * the last drain ends and loses nothing while the detach takes its time;
 * calls already in flight still send their records at their return.
 */
bool ct_stopped; /* also while paused (SIGUSR1 to SIGUSR2): the core sets and clears it */
/* Filled by the core before load, by call id (.bss: no zeros in the object). */
struct ct_spec ct_specs[CT_MAX_CALLS];

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24); /* resized from config */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CT_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

#include "wake.bpf.h"

#include "pids.bpf.h"
#include "cgroup.bpf.h"
#include "pystack.bpf.h"

/*
 * Aggregate mode's sizes, set by the core before load: the session's calls
 * (ct_spec.agg_call below it), the slots given to processes, the pool's
 * entries.
 */
const volatile __u32 ct_agg_calls = 0;
const volatile __u32 ct_agg_slots = 0;
const volatile __u32 ct_agg_pool = 0;
/* Slots and pool entries given out so far. */
__u32 ct_agg_slots_used;
__u32 ct_agg_pool_used;

/* A process's slot + 1, given at its first traced call (its first thread's). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CT_AGG_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} agg_pids SEC(".maps");

/*
 * By slot * ct_agg_calls + agg_call: the pair's pool entry + 1 (0: none
 * yet; CT_AGG_NO_ROOM: the pool was full). Array lookups are inlined by
 * the verifier: a multiply and a bound check, where a hash's is a jhash
 * and a bucket walk. Mapped by the reader (8-byte values: a mapped
 * array's elements are 8-byte aligned).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* sized by the core */
	__type(key, __u32);
	__type(value, __u64);
} agg_index SEC(".maps");

/* The pool entry + 1 of each pair of a process past the slots (preallocated: an insert allocates nothing). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* sized by the core: the pool's entries */
	__type(key, struct ct_agg_key);
	__type(value, __u32);
} agg_pairs SEC(".maps");

/* The pool: each entry's counts on each CPU, and its histogram, shared. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1); /* sized by the core */
	__type(key, __u32);
	__type(value, struct ct_agg_cpu);
} agg_pool SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* sized by the core */
	__type(key, __u32);
	__type(value, struct ct_agg_hist);
} agg_hist SEC(".maps");

/*
 * A call in flight is kept as the record it will become: at exit the header
 * is filled in and the record's used prefix goes to the ring in one copy.
 */
struct ct_frame {
	__u32 str_len; /* bytes of rec.str with its NUL; 0: no string */
	__u32 pad;
	struct ct_record rec;
};

/*
 * The calls a thread has in flight, innermost last: each one's stack pointer
 * at entry and call id. The stack pointers are what pairs a return with its
 * call, and what says a call has returned unseen (its entry came before the
 * return probe was live, or a longjmp left it): see ct_unwind().
 */
struct ct_stack {
	__u32 depth; /* calls kept, at most CT_MAX_DEPTH */
	__u32 over;  /* calls in flight past them, not kept (counted as too deep) */
	__u32 deferred; /* bit d: the call at depth d has no return probe coming; its
	                 * record waits for its parent's return (CT_SPEC_INNER_LAUNCH) */
	__u32 pad;
	__u64 sp[CT_MAX_DEPTH];
	__u32 call[CT_MAX_DEPTH];
};

/*
 * A thread's calls in flight, of every plugin, and where its entry-only
 * records are built: a per-CPU buffer would not do, since a probe's program
 * can be preempted and another thread's run on the same CPU. A thread has
 * this storage only once it passed the pid filter (pids are never taken out
 * of it), so the storage itself says the thread is wanted: no pid lookup
 * per call. The stack is also where a call's parent is found.
 */
struct ct_thread {
	struct ct_stack st;
	struct ct_frame f[CT_MAX_DEPTH];
	struct ct_frame entry_only;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ct_thread);
} inflight SEC(".maps");

/* Aggregate mode's calls in flight: when each began and the bytes it moves. */
struct ct_agg_frame {
	__u64 ts_ns;
	__u64 bytes;
};

struct ct_agg_thread {
	struct ct_stack st;
	__u32 slot; /* the process's slot + 1, 0: none (its calls go to the hash) */
	__u32 pad;
	struct ct_agg_frame f[CT_MAX_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ct_agg_thread);
} agg_inflight SEC(".maps");

_Static_assert(sizeof(struct ct_hook_ctx) ==
	       __builtin_offsetof(struct ct_record, str) - __builtin_offsetof(struct ct_record, ret),
	       "a hook's context is the record's ret, args and mem");
_Static_assert(CT_HOOK_ARGS == CT_REC_ARGS && CT_HOOK_MEM == CT_REC_MEM, "hook.bpf.h and record.h agree");

/*
 * The plugin's hook: this weak, empty one unless the core linked a plugin's
 * hook object into the engine (libbpf's BPF linker, at load), whose strong
 * ct_hook replaces it. Global, so that the verifier checks it apart; called
 * only for APIs whose spec has CT_SPEC_HOOK (those of the plugin that
 * brought the hook).
 */
__weak __noinline int ct_hook(struct ct_hook_ctx *c, __u32 api, __u32 phase)
{
	int ret = 0;

	/* Opaque to the compiler: neither the call nor its arguments are
	 * optimized away in its callers (the replacement uses them). */
	asm volatile("" : "+r"(ret) : "r"(c), "r"(api), "r"(phase));
	return ret;
}

/* The hook's last word on a record: false to send none. */
static __always_inline bool ct_hook_emit(struct ct_record *r, __u32 phase)
{
	int h = ct_hook((struct ct_hook_ctx *)&r->ret, CT_CALL_API(r->call), phase);

	r->flags |= (h & CT_REC_HOOK_MEM_MASK) << CT_REC_HOOK_MEM_SHIFT;
	return !(h & CT_HOOK_DROP);
}

static __always_inline void ct_count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&stats, &which);

	if (c)
		*c += 1;
}

static __always_inline bool ct_wanted(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	return (!ct_filter_pids || bpf_map_lookup_elem(&pids, &tgid)) && ct_cgroup_wanted();
}

/* The spec of a call id, or NULL for one out of range. */
static __always_inline const struct ct_spec *ct_spec_of(__u32 call)
{
	if (call >= CT_MAX_CALLS)
		return NULL;
	return &ct_specs[call];
}

/* Who made the call: loads from its task (the current one), and its cgroup
 * v2 id, read as bpf_get_current_cgroup_id() reads it (the css_set is
 * RCU's, and a program runs inside RCU's read side) without the helper's
 * call. The ids are the initial namespace's, as
 * bpf_get_current_pid_tgid() gives them. */
static __always_inline void ct_who_of(struct task_struct *task, struct ct_record *r)
{
	r->pid = task->tgid;
	r->tid = task->pid;
	__builtin_memcpy(r->comm, task->comm, CT_COMM_LEN);
	r->comm[CT_COMM_LEN - 1] = 0;
	r->cgroup = task->cgroups->dfl_cgrp->kn->id;
}

static __always_inline void ct_who(struct ct_record *r)
{
	ct_who_of(bpf_get_current_task_btf(), r);
}

static __always_inline void ct_read_regs(struct pt_regs *ctx, __u64 *args, __u32 stack_words)
{
	args[0] = PT_REGS_PARM1(ctx);
	args[1] = PT_REGS_PARM2(ctx);
	args[2] = PT_REGS_PARM3(ctx);
	args[3] = PT_REGS_PARM4(ctx);
	args[4] = PT_REGS_PARM5(ctx);
	args[5] = PT_REGS_PARM6(ctx);
	if (stack_words) {
		if (stack_words > CT_STACK_WORDS)
			stack_words = CT_STACK_WORDS;
		bpf_probe_read_user(&args[CT_REC_REGS], stack_words * 8,
				    (void *)(PT_REGS_SP(ctx) + CT_STACK_ARGS_AT));
	}
}

/* Copy the user memory the spec asks for in this phase into mem[]. */
static __always_inline __u32 ct_do_reads(const struct ct_spec *s, __u8 phase,
					 const __u64 *args, __u64 *mem)
{
	__u32 flags = 0;

#pragma unroll
	for (int i = 0; i < CT_SPEC_READS; i++) {
		__u32 slot = s->reads[i].slot, dst = s->reads[i].dst, words = s->reads[i].words;
		__u64 ptr;

		if (s->reads[i].phase != phase || !words)
			continue;
		if (slot >= CT_REC_ARGS || dst >= CT_REC_MEM)
			continue;
		ptr = args[slot & 15];
		if (words > CT_REC_MEM - dst)
			words = CT_REC_MEM - dst;
		if (!ptr) {
			flags |= CT_REC_READ_FAIL;
			continue;
		}
		dst &= CT_REC_MEM - 1;
		words &= CT_REC_MEM * 2 - 1;
		if (words == 0 || words > CT_REC_MEM)
			continue;
		if (bpf_probe_read_user((void *)mem + dst * 8, words * 8, (void *)ptr)) {
			/* A short array at the end of a page: try the first word alone. */
			if (bpf_probe_read_user((void *)mem + dst * 8, 8, (void *)ptr))
				flags |= CT_REC_READ_FAIL;
		}
	}
	return flags;
}

static __always_inline void ct_read_str(const struct ct_spec *s, struct ct_frame *f)
{
	__u32 slot = s->str_slot;
	__u64 ptr;
	long n;

	f->str_len = 0;
	if (slot >= CT_REC_ARGS)
		return;
	ptr = f->rec.args[slot & 15];
	if (!ptr)
		return;
	n = bpf_probe_read_user_str(f->rec.str, CT_REC_STR, (void *)ptr);
	if (n > 0) {
		f->str_len = n;
		f->rec.flags |= CT_REC_HAS_STR;
	}
}

/* The nearest call in flight below depth d that belongs to another plugin. */
static __always_inline void ct_parent(const struct ct_stack *st, __u32 d, struct ct_record *r)
{
	__u32 mine = CT_CALL_PLUGIN(r->call);

	if (!ct_track_parents)
		return;
	if (d > CT_MAX_DEPTH)
		d = CT_MAX_DEPTH;
#pragma unroll
	for (int i = CT_MAX_DEPTH - 1; i >= 0; i--) {
		__u32 id = st->call[i];

		if (i >= d || CT_CALL_PLUGIN(id) == mine)
			continue;
		r->parent = id;
		r->flags |= CT_REC_HAS_PARENT;
		return;
	}
}

/*
 * Send the used prefix of the frame's record: the header and the words the
 * API's spec says it needs (rec_words), or through the string's NUL. Calls
 * that use few arguments send a fraction of a whole record.
 */
static __always_inline void ct_emit(struct ct_frame *f, const struct ct_spec *s)
{
	__u64 len = (__u64)s->rec_words * 8, flags;

	if (f->str_len)
		len = __builtin_offsetof(struct ct_record, str) + f->str_len;
	if (len > sizeof(f->rec)) /* never, but the verifier wants the bound */
		len = sizeof(f->rec);
	flags = ct_wake_flags(len);
	/* System-wide (--lib), a process user space does not follow yet (pids)
	 * wakes the reader at once: it reads the process's maps while it
	 * lives, to name its kernels and frames (follow_exit). A job of a few
	 * milliseconds is gone by the next 100 ms poll. */
	if (!ct_filter_pids) {
		__u32 tgid = bpf_get_current_pid_tgid() >> 32;

		if (!bpf_map_lookup_elem(&pids, &tgid))
			flags = BPF_RB_FORCE_WAKEUP;
	}
	if (bpf_ringbuf_output(&events, &f->rec, len, flags))
		ct_count(CT_STAT_LOST);
}

#include "ustack.bpf.h"

/* The thread's storage of `map`, created for a thread of a traced process (*created). */
static __always_inline void *ct_thread_get(void *map, bool *created)
{
	struct task_struct *task = bpf_get_current_task_btf();
	void *t = bpf_task_storage_get(map, task, 0, 0);

	if (t || !ct_wanted())
		return t;
	t = bpf_task_storage_get(map, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t) /* out of memory, or the storage busy on this CPU: a call not recorded */
		ct_count(CT_STAT_LOST);
	*created = t != NULL;
	return t;
}

/*
 * The return address of a function at its first instruction; a uretprobe
 * has replaced it with the kernel's return trampoline where a call already
 * in flight at this stack pointer jumped here (a tail call: both return
 * through it, the inner one first).
 */
static __always_inline bool ct_tail_called(struct pt_regs *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct xol_area *area = task->mm->uprobes_state.xol_area;
	__u64 ret = 0;

#if defined(__TARGET_ARCH_x86)
	bpf_probe_read_user(&ret, sizeof(ret), (void *)PT_REGS_SP(ctx));
#else
	ret = PT_REGS_RET(ctx);
#endif
	return area && ret == area->vaddr;
}

/*
 * Drop the calls in flight that have returned unseen: those whose stack
 * pointer at entry lies below `sp`, a call's entry sp (at an entry: the
 * new call's; at a return: the returning call's), since the stack has come
 * back above them. At an entry, a call kept at the same sp has returned
 * unseen too, unless the new call is its tail call. A call whose entry was
 * live before its return probe was (the exit link is attached first, but a
 * longjmp or another tool's detach can do the same) costs its own record
 * and nothing after it.
 */
static __always_inline __u32 ct_unwind(struct ct_stack *st, __u64 sp, struct pt_regs *entry)
{
	__u32 d = st->depth;
	int tail = -1;

#pragma unroll
	for (int i = 0; i < CT_MAX_DEPTH; i++) {
		__u64 at;

		if (d == 0)
			break;
		at = st->sp[(d - 1) & (CT_MAX_DEPTH - 1)];
		if (at > sp)
			break;
		if (at == sp) {
			if (!entry)
				break;
			if (tail < 0)
				tail = ct_tail_called(entry);
			if (tail)
				break;
		}
		d--;
		st->over = 0; /* calls past the kept ones were inside it */
	}
	st->depth = d;
	return d;
}

/*
 * A return: the depth of its call's frame, popped, or CT_MAX_DEPTH where no
 * frame is its (a call too deep to keep: counted at entry; or one whose
 * entry was not seen: counted here).
 */
static __always_inline __u32 ct_pop(struct ct_stack *st, struct pt_regs *ctx, __u32 call)
{
	__u64 sp = PT_REGS_SP(ctx) - CT_RET_SP_DELTA;
	__u32 d = ct_unwind(st, sp, NULL);

	if (d && st->sp[(d - 1) & (CT_MAX_DEPTH - 1)] == sp && st->call[(d - 1) & (CT_MAX_DEPTH - 1)] == call) {
		st->depth = --d;
		st->over = 0;
		return d;
	}
	if (st->over)
		st->over--;
	else if (!ct_stopped) /* stopped or paused: its entry was declined, not missed */
		ct_count(CT_STAT_UNPAIRED);
	return CT_MAX_DEPTH;
}

/* An entry: the depth its frame gets, pushed, or CT_MAX_DEPTH (too deep: counted). */
static __always_inline __u32 ct_push(struct ct_stack *st, struct pt_regs *ctx, __u32 call, __u64 sp)
{
	__u32 d = ct_unwind(st, sp, ctx);

	if (d >= CT_MAX_DEPTH) {
		st->over++;
		ct_count(CT_STAT_DEEP);
		return CT_MAX_DEPTH;
	}
	st->sp[d & (CT_MAX_DEPTH - 1)] = sp;
	st->call[d & (CT_MAX_DEPTH - 1)] = call;
	st->deferred &= ~(1u << d);
	st->depth = d + 1;
	return d;
}

/*
 * A launch made directly inside a timed launch of another plugin (the
 * driver's cuLaunchKernel inside the runtime's cudaLaunchKernel): its
 * entry declines its return probe, and its record waits in its frame for
 * the parent's return, which gives both calls their end and result.
 */
static __always_inline bool ct_defer(const struct ct_stack *st, __u32 d, __u32 call, __u32 sflags)
{
	const struct ct_spec *ps;
	__u32 pc;

	if (!ct_session || !(sflags & CT_SPEC_INNER_LAUNCH) || d == 0 || d >= CT_MAX_DEPTH)
		return false;
	if (st->deferred & (1u << (d - 1)))
		return false;
	pc = st->call[(d - 1) & (CT_MAX_DEPTH - 1)];
	ps = ct_spec_of(pc);
	return ps && (ps->flags & CT_SPEC_LAUNCH) && CT_CALL_PLUGIN(pc) != CT_CALL_PLUGIN(call);
}

/*
 * The thread's innermost call, where its record waits for its parent
 * (ct_defer), is settled before the stack changes. At the return of that
 * parent (`call` and `sp`, the returning call's entry sp) it gets the
 * parent's end (`now`, so that it nests within it) and result. A call at or above its stack pointer (an entry,
 * or a return other than the parent's: it has returned unseen) leaves it
 * without them: sent as an entry-only record. A call nested inside it
 * leaves it waiting.
 */
static __always_inline void ct_settle(struct ct_thread *t, __u64 sp, __u32 call, struct pt_regs *ret,
				      __u64 now)
{
	struct ct_stack *st = &t->st;
	__u32 d = st->depth, top = (d - 1) & (CT_MAX_DEPTH - 1);
	const struct ct_spec *s;
	struct ct_frame *f;
	bool parent;

	if (d == 0 || d > CT_MAX_DEPTH || !(st->deferred & (1u << top)))
		return;
	parent = ret && d >= 2 && st->call[(d - 2) & (CT_MAX_DEPTH - 1)] == call &&
		 st->sp[(d - 2) & (CT_MAX_DEPTH - 1)] == sp;
	if (!parent && st->sp[top] > sp)
		return;
	st->deferred &= ~(1u << top);
	st->depth = top;
	f = &t->f[top];
	s = ct_spec_of(f->rec.call);
	if (!s)
		return;
	if (parent) {
		f->rec.dur_ns = now - f->rec.ts_ns;
		f->rec.ret = PT_REGS_RC(ret);
	} else {
		f->rec.flags |= CT_REC_ENTRY_ONLY;
		f->rec.dur_ns = 0;
		f->rec.ret = 0;
	}
	f->rec.depth = top;
	ct_who(&f->rec);
	if (ret) /* the stack at the runtime launch's return: its caller's */
		ct_ustack_exit(ret, &f->rec, s->flags);
	ct_emit(f, s);
}

/*
 * A call that can hang (a collective, a synchronization; tracer.hang_timeout):
 * its record as it stands at entry, flagged CT_REC_BEGIN, so that the reader
 * holds it as in flight until its own record comes; with the stack as it is
 * now, which is where the thread stays if the call never returns.
 */
static __always_inline void ct_send_begin(struct pt_regs *ctx, struct ct_frame *f, const struct ct_spec *s,
					  __u32 d)
{
	__u32 py = f->rec.pystack;

	f->rec.depth = d;
	f->rec.dur_ns = 0;
	f->rec.ret = 0;
	ct_who(&f->rec);
	f->rec.ustack = 0;
	if (ct_stack_method != CT_USTACK_OFF)
		f->rec.ustack = ct_ustack_take(ctx, true, true);
	/* Python frames too, where they are read (--stacks), whatever stacks.apis says:
	 * none where the call's own record does not want them. */
	if (!py)
		f->rec.pystack = ct_py_stack_of();
	f->rec.flags |= CT_REC_BEGIN;
	ct_emit(f, s);
	f->rec.flags &= ~CT_REC_BEGIN;
	f->rec.pystack = py;
}

/* Returns 1 where the call's return probe is not wanted (session programs). */
static __always_inline int ct_on_entry(struct pt_regs *ctx)
{
	__u32 call = (__u32)bpf_get_attach_cookie(ctx);
	const struct ct_spec *s = ct_spec_of(call);
	__u64 sp = PT_REGS_SP(ctx);
	struct ct_thread *t;
	struct ct_frame *f;
	__u32 d, sflags;

	bool created = false;

	if (!s || ct_stopped)
		return 1;
	t = ct_thread_get(&inflight, &created);
	if (!t)
		return 1;
	sflags = s->flags;
	ct_settle(t, sp, call, NULL, 0);

	if (sflags & CT_SPEC_ENTRY_ONLY) {
		d = ct_unwind(&t->st, sp, ctx);
		f = &t->entry_only;
		f->rec.call = call;
		f->rec.flags = CT_REC_ENTRY_ONLY;
		ct_read_regs(ctx, f->rec.args, s->stack_words);
		ct_parent(&t->st, d, &f->rec);
		if (sflags & (CT_SPEC_READS_ENTRY | CT_SPEC_READS_EXIT | CT_SPEC_HOOK)) {
			__builtin_memset(f->rec.mem, 0, sizeof(f->rec.mem));
			f->rec.flags |= ct_do_reads(s, CT_READ_ENTRY, f->rec.args, f->rec.mem);
		}
		ct_read_str(s, f);
		f->rec.pystack = ct_py_stack(sflags);
		f->rec.ts_ns = bpf_ktime_get_ns();
		f->rec.dur_ns = 0;
		f->rec.depth = d;
		f->rec.ret = 0;
		ct_who(&f->rec);
		ct_ustack_entry(ctx, &f->rec, sflags);
		if ((sflags & CT_SPEC_HOOK) && !ct_hook_emit(&f->rec, CT_HOOK_ENTRY_ONLY))
			return 1;
		ct_emit(f, s);
		return 1;
	}

	d = ct_push(&t->st, ctx, call, sp);
	if (d >= CT_MAX_DEPTH)
		return 0;
	f = &t->f[d & (CT_MAX_DEPTH - 1)];
	f->rec.call = call;
	f->rec.flags = 0;
	ct_parent(&t->st, d, &f->rec);
	ct_read_regs(ctx, f->rec.args, s->stack_words);
	if (sflags & (CT_SPEC_READS_ENTRY | CT_SPEC_READS_EXIT | CT_SPEC_HOOK)) {
		/* No value of an earlier call may show through a read that fails. */
		__builtin_memset(f->rec.mem, 0, sizeof(f->rec.mem));
		if (sflags & CT_SPEC_READS_ENTRY)
			f->rec.flags |= ct_do_reads(s, CT_READ_ENTRY, f->rec.args, f->rec.mem);
	}
	ct_read_str(s, f);
	f->rec.pystack = ct_py_stack(sflags);
	if (sflags & CT_SPEC_HOOK)
		ct_hook_emit(&f->rec, CT_HOOK_ENTRY);
	f->rec.ts_ns = bpf_ktime_get_ns();
	if (ct_defer(&t->st, d, call, sflags)) {
		t->st.deferred |= 1u << d;
		return 1;
	}
	if (sflags & CT_SPEC_HANG)
		ct_send_begin(ctx, f, s, d);
	return 0;
}

static __always_inline int ct_on_exit(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct task_struct *task;
	const struct ct_spec *s;
	struct ct_thread *t;
	struct ct_frame *f;
	__u32 call, d;

	task = bpf_get_current_task_btf();
	t = bpf_task_storage_get(&inflight, task, 0, 0);
	/* A return probe fires for every process that called the function, ours
	 * or not: a thread with no frames was filtered out at entry. */
	if (!t)
		return 0;
	call = (__u32)bpf_get_attach_cookie(ctx);
	if (ct_session)
		ct_settle(t, PT_REGS_SP(ctx) - CT_RET_SP_DELTA, call, ctx, now);
	d = ct_pop(&t->st, ctx, call);
	s = ct_spec_of(call);
	if (d >= CT_MAX_DEPTH || !s)
		return 0;
	f = &t->f[d & (CT_MAX_DEPTH - 1)];
	if (s->flags & CT_SPEC_READS_EXIT)
		f->rec.flags |= ct_do_reads(s, CT_READ_EXIT, f->rec.args, f->rec.mem);
	/* A string whose page was not in memory at entry (cuBLAS's kernel names
	 * as cuLibraryGetKernel gets them): the call has touched it by now. */
	if (s->str_slot != CT_NO_SLOT && !f->str_len)
		ct_read_str(s, f);
	f->rec.dur_ns = now - f->rec.ts_ns;
	f->rec.depth = d;
	f->rec.ret = PT_REGS_RC(ctx);
	ct_who_of(task, &f->rec);
	ct_ustack_exit(ctx, &f->rec, s->flags);
	/* A failing call's Python frames: the interpreter's are as they were at entry. */
	if (!f->rec.pystack && ct_stack_failed(ctx, s->flags))
		f->rec.pystack = ct_py_stack_of();
	if ((s->flags & CT_SPEC_HOOK) && !ct_hook_emit(&f->rec, CT_HOOK_EXIT))
		return 0;
	ct_emit(f, s);
	return 0;
}

/* ---- aggregate mode ---- */

/* An argument slot's value at entry: a register, or a stack word. The
 * registers go through the stack: the verifier refuses a context load at
 * an offset that is not a constant. */
static __always_inline __u64 ct_arg(struct pt_regs *ctx, __u32 slot)
{
	__u64 regs[CT_REC_REGS] = { PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx), PT_REGS_PARM3(ctx),
				    PT_REGS_PARM4(ctx), PT_REGS_PARM5(ctx), PT_REGS_PARM6(ctx) };
	__u64 v = 0;

	if (slot < CT_REC_REGS)
		return regs[slot];
	if (slot < CT_REC_ARGS)
		bpf_probe_read_user(&v, 8, (void *)(PT_REGS_SP(ctx) + CT_STACK_ARGS_AT +
						     (slot - CT_REC_REGS) * 8));
	return v;
}

/* The bytes a call moves, from its arguments (0 if its API moves none). */
static __always_inline __u64 ct_call_bytes(struct pt_regs *ctx, const struct ct_spec *s)
{
	__u32 bs = s->bytes_slot, hs = s->height_slot;
	__u64 bytes;

	if (bs == CT_NO_SLOT)
		return 0;
	bytes = ct_arg(ctx, bs);
	if (hs != CT_NO_SLOT)
		bytes *= ct_arg(ctx, hs);
	return bytes;
}

/*
 * A process's slot + 1, or 0 (past the slots: its calls go to the hash).
 * Threads of one process racing for its first slot: one inserts, the
 * others take its slot (theirs stays unused).
 */
static __always_inline __u32 ct_agg_slot_of(__u32 tgid)
{
	__u32 *v = bpf_map_lookup_elem(&agg_pids, &tgid), slot;

	if (v)
		return *v;
	slot = __sync_fetch_and_add(&ct_agg_slots_used, 1);
	if (slot >= ct_agg_slots)
		return 0;
	slot++;
	if (!bpf_map_update_elem(&agg_pids, &tgid, &slot, BPF_NOEXIST))
		return slot;
	v = bpf_map_lookup_elem(&agg_pids, &tgid);
	return v ? *v : 0;
}

/*
 * A pool entry + 1 for a pair's first call, named after the calling thread;
 * 0: the pool is full. Checked before the count is taken, so that a full
 * pool's count stays near its size and never wraps.
 */
static __always_inline __u32 ct_agg_take(void)
{
	struct ct_agg_hist *h;
	__u32 p, k;

	if (ct_agg_pool_used >= ct_agg_pool)
		return 0;
	p = __sync_fetch_and_add(&ct_agg_pool_used, 1) + 1;
	if (p > ct_agg_pool)
		return 0;
	k = p - 1;
	h = bpf_map_lookup_elem(&agg_hist, &k);
	if (h)
		bpf_get_current_comm(h->comm, sizeof(h->comm));
	return p;
}

/*
 * A (slot, call)'s pool entry + 1, taken at its first call; CT_AGG_NO_ROOM
 * where the pool was full then; 0 for a process with no slot. The entry is
 * settled by one compare-and-swap, so that CPUs racing for a pair's first
 * call agree on one entry (the others' stay unused).
 */
static __always_inline __u32 ct_agg_slot_entry(__u32 slot, const struct ct_spec *s)
{
	__u32 k = (slot - 1) * ct_agg_calls + s->agg_call;
	__u64 *ix, p, old;

	if (!slot || s->agg_call >= ct_agg_calls)
		return 0;
	ix = bpf_map_lookup_elem(&agg_index, &k);
	if (!ix)
		return CT_AGG_NO_ROOM;
	p = *ix;
	if (!p) {
		p = ct_agg_take();
		if (!p)
			p = CT_AGG_NO_ROOM;
		old = __sync_val_compare_and_swap(ix, 0, p);
		if (old)
			p = old;
	}
	return p > ct_agg_pool ? CT_AGG_NO_ROOM : p;
}

/* The pool entry + 1 of a pair of a process with no slot, taken at its first call; 0: no room. */
static __always_inline __u32 ct_agg_pair_entry(__u32 call)
{
	struct ct_agg_key k = { .tgid = bpf_get_current_task_btf()->tgid, .call = call };
	__u32 *v = bpf_map_lookup_elem(&agg_pairs, &k), p;

	if (v)
		return *v;
	p = ct_agg_take();
	if (!p || !bpf_map_update_elem(&agg_pairs, &k, &p, BPF_NOEXIST))
		return p;
	/* Another CPU inserted the pair first: its entry (ours stays unused). */
	v = bpf_map_lookup_elem(&agg_pairs, &k);
	return v ? *v : 0;
}

/* A call's pool entry + 1 by its process's slot or else by the hash; 0: no room. */
static __always_inline __u32 ct_agg_entry(__u32 slot, __u32 call, const struct ct_spec *s)
{
	__u32 p = ct_agg_slot_entry(slot, s);

	if (!p)
		return ct_agg_pair_entry(call);
	return p == CT_AGG_NO_ROOM ? 0 : p;
}

/* One call into pool entry + 1 `p` (0: the pool had no room for its pair: counted as such). */
static __always_inline void ct_agg_count(__u32 p, __u64 dur, __u64 bytes, bool failed)
{
	__u32 k = p - 1, b;
	struct ct_agg_cpu *a;
	struct ct_agg_hist *h;

	if (!p || p > ct_agg_pool) {
		ct_count(CT_STAT_AGG_FULL);
		return;
	}
	a = bpf_map_lookup_elem(&agg_pool, &k);
	h = bpf_map_lookup_elem(&agg_hist, &k);
	if (!a || !h)
		return;
	if (!a->calls || dur < a->min_ns)
		a->min_ns = dur;
	if (dur > a->max_ns)
		a->max_ns = dur;
	a->calls++;
	a->total_ns += dur;
	if (failed)
		a->errors++;
	else
		a->bytes += bytes;
	b = ct_agg_bucket(dur);
	asm volatile("" : "+r"(b)); /* the bound below stays in the program */
	if (b < CT_AGG_BUCKETS) /* always; for the verifier */
		__sync_fetch_and_add(&h->hist[b], 1);
}

/* One call into its process's totals. */
static __always_inline void ct_agg_add(__u32 slot, __u32 call, const struct ct_spec *s,
				       __u64 dur, __u64 bytes, bool failed)
{
	ct_agg_count(ct_agg_entry(slot, call, s), dur, bytes, failed);
}

static __always_inline int ct_agg_on_entry(struct pt_regs *ctx)
{
	__u32 call = (__u32)bpf_get_attach_cookie(ctx);
	const struct ct_spec *s = ct_spec_of(call);
	__u64 sp = PT_REGS_SP(ctx);
	struct ct_agg_thread *t;
	struct ct_agg_frame *f;
	bool created = false;
	__u32 d;

	if (!s || ct_stopped)
		return 1;
	t = ct_thread_get(&agg_inflight, &created);
	if (!t)
		return 1;
	if (created) /* once per thread: its calls find their totals by the slot */
		t->slot = ct_agg_slot_of(bpf_get_current_task_btf()->tgid);
	if (s->flags & CT_SPEC_ENTRY_ONLY) {
		ct_unwind(&t->st, sp, ctx);
		ct_agg_add(t->slot, call, s, 0, ct_call_bytes(ctx, s), false);
		return 1;
	}
	d = ct_push(&t->st, ctx, call, sp);
	if (d >= CT_MAX_DEPTH)
		return 0;
	f = &t->f[d & (CT_MAX_DEPTH - 1)];
	f->bytes = ct_call_bytes(ctx, s);
	f->ts_ns = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int ct_agg_on_exit(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	const struct ct_spec *s;
	struct ct_agg_thread *t;
	struct ct_agg_frame *f;
	__u32 call, d;
	bool failed;

	t = bpf_task_storage_get(&agg_inflight, bpf_get_current_task_btf(), 0, 0);
	if (!t)
		return 0;
	call = (__u32)bpf_get_attach_cookie(ctx);
	d = ct_pop(&t->st, ctx, call);
	s = ct_spec_of(call);
	if (d >= CT_MAX_DEPTH || !s)
		return 0;
	f = &t->f[d & (CT_MAX_DEPTH - 1)];
	failed = (s->flags & CT_SPEC_RET_IS_ERROR) && (__u32)PT_REGS_RC(ctx);
	ct_agg_add(t->slot, call, s, now - f->ts_ns, f->bytes, failed);
	return 0;
}

/*
 * Aggregate mode on a session program: the call's session cookie keeps
 * what its return needs, so that the return reads nothing but the cookie
 * and the totals it adds to (no thread storage, no spec, no index): the
 * entry time, modulo 2^48 ns (3.2 days: a call's duration is exact below
 * that); whether the API's result is an error code; whether it moves
 * bytes; and its pair's pool entry + 1 (0: the pool had no room for it). Only an API that moves bytes keeps a
 * frame, for the bytes its arguments say (a failed call's are not counted,
 * and the return no longer has the arguments).
 */
#define CT_AGG_TS_BITS 48
#define CT_AGG_TS_MASK ((1ull << CT_AGG_TS_BITS) - 1)
#define CT_AGG_CK_ERRORS (1ull << 48) /* CT_SPEC_RET_IS_ERROR */
#define CT_AGG_CK_BYTES (1ull << 49)  /* the bytes are in the thread's frame */
#define CT_AGG_CK_ENTRY_SHIFT 50
_Static_assert(CT_AGG_MAX_ENTRIES < (1u << (64 - CT_AGG_CK_ENTRY_SHIFT)), "a pool entry fits in the cookie");

/*
 * The last traced thread on each CPU, packed in one word that is read and
 * written whole (a program on this CPU may preempt another's): its thread
 * id, its process id (each below 2^22, the kernel's PID_MAX_LIMIT) and its
 * process's slot + 1. 0: none. A thread found here has passed the filters,
 * as one with thread storage has; the slot is the process's in agg_pids,
 * which keeps it for good.
 */
#define CT_PID_BITS 22
#define CT_PID_MASK ((1u << CT_PID_BITS) - 1)

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} agg_last SEC(".maps");

/* The calling thread's slot + 1 (0: its calls go to the hash), or -1: not traced. */
static __always_inline long ct_agg_thread_slot(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 who = (__u64)(task->pid & CT_PID_MASK) | (__u64)(task->tgid & CT_PID_MASK) << CT_PID_BITS;
	__u32 zero = 0, slot;
	__u64 *last = bpf_map_lookup_elem(&agg_last, &zero), v;

	if (!last)
		return -1;
	v = *(volatile __u64 *)last;
	if (v && (v & ((1ull << 2 * CT_PID_BITS) - 1)) == who)
		return v >> 2 * CT_PID_BITS;
	if (!ct_wanted())
		return -1;
	slot = ct_agg_slot_of(task->tgid);
	*(volatile __u64 *)last = who | (__u64)slot << 2 * CT_PID_BITS;
	return slot;
}

static __always_inline int ct_agg_on_session_entry(struct pt_regs *ctx)
{
	__u32 call = (__u32)bpf_get_attach_cookie(ctx);
	const struct ct_spec *s = ct_spec_of(call);
	struct ct_agg_thread *t;
	bool created = false;
	__u64 *cookie, c;
	long slot;
	__u32 d;

	if (!s || ct_stopped)
		return 1;
	slot = ct_agg_thread_slot();
	if (slot < 0)
		return 1;
	if (s->flags & CT_SPEC_ENTRY_ONLY) {
		ct_agg_add(slot, call, s, 0, ct_call_bytes(ctx, s), false);
		return 1;
	}
	c = (__u64)ct_agg_entry(slot, call, s) << CT_AGG_CK_ENTRY_SHIFT;
	if (s->flags & CT_SPEC_RET_IS_ERROR)
		c |= CT_AGG_CK_ERRORS;
	if (s->bytes_slot != CT_NO_SLOT) {
		t = ct_thread_get(&agg_inflight, &created);
		if (t) {
			d = ct_push(&t->st, ctx, call, PT_REGS_SP(ctx));
			if (d < CT_MAX_DEPTH)
				t->f[d & (CT_MAX_DEPTH - 1)].bytes = ct_call_bytes(ctx, s);
		}
		c |= CT_AGG_CK_BYTES;
	}
	cookie = bpf_session_cookie();
	if (!cookie)
		return 1;
	*cookie = c | (bpf_ktime_get_ns() & CT_AGG_TS_MASK);
	return 0;
}

static __always_inline void ct_agg_on_session_exit(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns(), *cookie = bpf_session_cookie(), c, bytes = 0;
	struct ct_agg_thread *t;
	__u32 d;

	if (!cookie)
		return;
	c = *cookie;
	if (c & CT_AGG_CK_BYTES) {
		t = bpf_task_storage_get(&agg_inflight, bpf_get_current_task_btf(), 0, 0);
		if (t) {
			d = ct_pop(&t->st, ctx, (__u32)bpf_get_attach_cookie(ctx));
			if (d < CT_MAX_DEPTH)
				bytes = t->f[d & (CT_MAX_DEPTH - 1)].bytes;
		}
	}
	ct_agg_count(c >> CT_AGG_CK_ENTRY_SHIFT, (now - c) & CT_AGG_TS_MASK, bytes,
		     (c & CT_AGG_CK_ERRORS) && (__u32)PT_REGS_RC(ctx));
}

/*
 * The programs: events or aggregate, each as uprobe_multi (every symbol of
 * a library in one link) or as single uprobes (one link per symbol, for
 * kernels without uprobe_multi); and as one uprobe session program (kernel
 * 6.10+: entry and return in one program, one link, and an entry that
 * returns 1 has no return probe run for it: entry-only APIs, threads of
 * other processes, inner launches). libbpf 1.4 has no uprobe.session
 * section: the core sets the session attach type before load. The core
 * loads the programs it uses.
 */
#define CT_PROGRAM(sec, name, body)          \
	SEC(sec) int name(struct pt_regs *ctx) \
	{                                      \
		body(ctx);                     \
		return 0;                      \
	}
#define CT_SESSION(name, entry, exit)          \
	SEC("uprobe.multi") int name(struct pt_regs *ctx) \
	{                                      \
		if (bpf_session_is_return()) { \
			exit(ctx);             \
			return 0;              \
		}                              \
		return entry(ctx);             \
	}
CT_PROGRAM("uprobe.multi", ct_entry_multi, ct_on_entry)
CT_PROGRAM("uretprobe.multi", ct_exit_multi, ct_on_exit)
CT_PROGRAM("uprobe", ct_entry_single, ct_on_entry)
CT_PROGRAM("uretprobe", ct_exit_single, ct_on_exit)
CT_SESSION(ct_session_multi, ct_on_entry, ct_on_exit)
CT_PROGRAM("uprobe.multi", ct_agg_entry_multi, ct_agg_on_entry)
CT_PROGRAM("uretprobe.multi", ct_agg_exit_multi, ct_agg_on_exit)
CT_PROGRAM("uprobe", ct_agg_entry_single, ct_agg_on_entry)
CT_PROGRAM("uretprobe", ct_agg_exit_single, ct_agg_on_exit)
CT_SESSION(ct_agg_session_multi, ct_agg_on_session_entry, ct_agg_on_session_exit)

/*
 * The kernel's floor for benchmarks (CUDATRACER_BENCH_PROGRAMS=empty): the
 * same probes, attached the same way, with programs that do nothing; the
 * session one declines the returns of entry-only APIs, as the engine does.
 */
SEC("uprobe.multi") int ct_empty_entry_multi(struct pt_regs *ctx) { return 0; }
SEC("uretprobe.multi") int ct_empty_exit_multi(struct pt_regs *ctx) { return 0; }
SEC("uprobe") int ct_empty_entry_single(struct pt_regs *ctx) { return 0; }
SEC("uretprobe") int ct_empty_exit_single(struct pt_regs *ctx) { return 0; }
SEC("uprobe.multi") int ct_empty_session_multi(struct pt_regs *ctx)
{
	__u32 call = (__u32)bpf_get_attach_cookie(ctx);

	if (call >= CT_MAX_CALLS)
		return 1;
	return (ct_specs[call & (CT_MAX_CALLS - 1)].flags & CT_SPEC_ENTRY_ONLY) != 0;
}
