/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The capture engine: one generic entry program and one generic exit program
 * that serve every API of a plugin. The API's index arrives as the attach
 * cookie; the `specs` map, filled by user space from the plugin's API table,
 * says what to copy for it. A plugin's bpf/<name>.bpf.c includes this file
 * and adds only what its runtime needs beyond it.
 */
#ifndef CT_CAPTURE_BPF_H
#define CT_CAPTURE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <cudatracer/record.h>

#define CT_MAX_DEPTH 4 /* nested traced calls kept per thread */

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Set by user space before load. */
const volatile bool ct_filter_pids = false;
const volatile __u64 ct_wakeup_bytes = 0; /* per CPU; 0: wake the reader for every record */
const volatile bool ct_aggregate = false;  /* count in `agg`, send no records */
const volatile __u32 ct_plugin_id = 0;     /* 1-based, set when several plugins run: parents are tracked */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24); /* resized from config */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized to the plugin's API count */
	__type(key, __u32);
	__type(value, struct ct_spec);
} specs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CT_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1); /* resized to the plugin's API count */
	__type(key, __u32);
	__type(value, struct ct_agg);
} agg SEC(".maps");

/* Bytes each CPU has sent since it last woke the reader. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} wake SEC(".maps");

/* pids and callstack: the watcher's, shared. */
#include "shared_maps.bpf.h"

/* The other plugins' call this one is made in; with push, become the top. */
static __always_inline __u32 ct_parent(__u32 api, bool push)
{
	struct ct_callstack *cs;
	__u32 parent = 0, d;

	if (!ct_plugin_id)
		return 0;
	cs = bpf_task_storage_get(&callstack, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!cs)
		return 0;
	d = cs->depth;
	/* The nearest call in flight that belongs to another plugin. */
	for (int i = 1; i <= CT_CALLSTACK; i++) {
		__u32 id;

		if (i > d)
			break;
		id = cs->id[(d - i) & (CT_CALLSTACK - 1)];
		if (id >> 24 != ct_plugin_id) {
			parent = id;
			break;
		}
	}
	if (push) {
		if (d < CT_CALLSTACK)
			cs->id[d & (CT_CALLSTACK - 1)] = ct_plugin_id << 24 | (api & 0xffffff);
		cs->depth = d + 1;
	}
	return parent;
}

static __always_inline void ct_parent_pop(void)
{
	struct ct_callstack *cs;

	if (!ct_plugin_id)
		return;
	cs = bpf_task_storage_get(&callstack, bpf_get_current_task_btf(), 0, 0);
	if (cs && cs->depth)
		cs->depth--;
}

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
 * A thread's calls in flight, and where its entry-only records are built:
 * a per-CPU buffer would not do, since a probe's program can be preempted
 * and another thread's run on the same CPU. A thread has this storage only
 * once it passed the pid filter (pids are never taken out of it), so the
 * storage itself says the thread is wanted: no pid lookup per call.
 */
struct ct_thread {
	__u32 depth;
	__u32 pad;
	struct ct_frame f[CT_MAX_DEPTH];
	struct ct_frame entry_only;
};

/* Per-thread calls in flight, in task-local storage: no hashing on the hot
 * path, and the kernel frees a thread's frames when the thread ends. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ct_thread);
} inflight SEC(".maps");

/* Who made the call: loads from its task (no helper call). The ids are the
 * initial namespace's, as bpf_get_current_pid_tgid() gives them. */
static __always_inline void ct_who(struct ct_record *r)
{
	struct task_struct *task = bpf_get_current_task_btf();

	r->pid = task->tgid;
	r->tid = task->pid;
	__builtin_memcpy(r->comm, task->comm, CT_COMM_LEN);
	r->comm[CT_COMM_LEN - 1] = 0;
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

	if (!ct_filter_pids)
		return true;
	if (bpf_map_lookup_elem(&pids, &tgid))
		return true;
	return false;
}

static __always_inline void ct_read_regs(struct pt_regs *ctx, __u64 *args,
					 const struct ct_spec *s)
{
	args[0] = PT_REGS_PARM1(ctx);
	args[1] = PT_REGS_PARM2(ctx);
	args[2] = PT_REGS_PARM3(ctx);
	args[3] = PT_REGS_PARM4(ctx);
	args[4] = PT_REGS_PARM5(ctx);
	args[5] = PT_REGS_PARM6(ctx);
	/* At a function's first instruction sp points at the return address:
	 * the seventh argument is at sp+8 (x86-64 SysV). */
	if (s->stack_words) {
		__u32 n = s->stack_words;

		if (n > CT_STACK_WORDS)
			n = CT_STACK_WORDS;
		bpf_probe_read_user(&args[6], n * 8, (void *)(PT_REGS_SP(ctx) + 8));
	}
}

/* Copy the user memory the spec asks for in this phase into mem[]. */
static __always_inline __u32 ct_do_reads(const struct ct_spec *s, __u8 phase,
					 const __u64 *args, __u64 *mem)
{
	__u32 flags = 0;

#pragma unroll
	for (int i = 0; i < CT_SPEC_READS; i++) {
		const struct ct_spec_read *r = &s->reads[i];
		__u32 dst = r->dst, words = r->words;
		__u64 ptr;

		if (r->phase != phase || !words)
			continue;
		if (r->slot >= CT_REC_ARGS || dst >= CT_REC_MEM)
			continue;
		ptr = args[r->slot & 15];
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

static __always_inline __u32 ct_log2(__u64 v)
{
	__u32 b = 0;

	if (v >> 32) { v >>= 32; b += 32; }
	if (v >> 16) { v >>= 16; b += 16; }
	if (v >> 8) { v >>= 8; b += 8; }
	if (v >> 4) { v >>= 4; b += 4; }
	if (v >> 2) { v >>= 2; b += 2; }
	if (v >> 1) { v >>= 1; b += 1; }
	return b + (v ? 1 : 0);
}

/* Aggregate mode: add one call to its API's totals. */
static __always_inline void ct_aggregate_call(const struct ct_spec *s, __u32 api, const __u64 *args,
					      __u64 dur, __u64 ret, bool has_ret)
{
	struct ct_agg *a = bpf_map_lookup_elem(&agg, &api);
	__u32 b;

	if (!a)
		return;
	a->calls++;
	if (has_ret && (__u32)ret)
		a->errors++;
	a->total_ns += dur;
	if (dur > a->max_ns)
		a->max_ns = dur;
	if (s->bytes_slot < CT_REC_ARGS) {
		__u64 bytes = args[s->bytes_slot & 15];

		if (s->height_slot < CT_REC_ARGS)
			bytes *= args[s->height_slot & 15];
		a->bytes += bytes;
	}
	b = ct_log2(dur);
	if (b >= CT_AGG_BUCKETS)
		b = CT_AGG_BUCKETS - 1;
	a->hist[b]++;
}

/*
 * Send the used prefix of the frame's record: the header and the words the
 * API's spec says it needs (rec_words), or through the string's NUL. Calls
 * that use few arguments send a fraction of a whole record.
 */
static __always_inline void ct_emit(struct ct_frame *f, const struct ct_spec *s)
{
	__u64 len = (__u64)s->rec_words * 8, flags = 0;

	if (f->str_len)
		len = __builtin_offsetof(struct ct_record, str) + f->str_len;
	if (len > sizeof(f->rec)) /* never, but the verifier wants the bound */
		len = sizeof(f->rec);
	if (ct_wakeup_bytes) {
		/* Bytes this CPU has sent since it last woke the reader: a CPU-local
		 * count, where asking the ring how much waits would read the
		 * reader's position, a cache line the reader keeps writing. */
		__u32 zero = 0;
		__u64 *pending = bpf_map_lookup_elem(&wake, &zero);

		if (pending) {
			*pending += len + 8;
			if (*pending >= ct_wakeup_bytes) {
				*pending = 0;
				flags = BPF_RB_FORCE_WAKEUP;
			} else {
				flags = BPF_RB_NO_WAKEUP;
			}
		}
	}
	if (bpf_ringbuf_output(&events, &f->rec, len, flags))
		ct_count(CT_STAT_LOST);
}

/* The thread's storage; created for a thread of a traced process. */
static __always_inline struct ct_thread *ct_thread_get(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct ct_thread *t = bpf_task_storage_get(&inflight, task, 0, 0);

	if (t || !ct_wanted())
		return t;
	t = bpf_task_storage_get(&inflight, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t) /* out of memory, or the storage busy on this CPU: a call not recorded */
		ct_count(CT_STAT_LOST);
	return t;
}

static __always_inline int ct_on_entry(struct pt_regs *ctx)
{
	__u32 api = (__u32)bpf_get_attach_cookie(ctx);
	struct ct_spec *s = bpf_map_lookup_elem(&specs, &api);
	struct ct_thread *t;
	struct ct_frame *f;

	if (!s || !s->enabled)
		return 0;
	t = ct_thread_get();
	if (!t)
		return 0;

	if (s->flags & CT_SPEC_ENTRY_ONLY) {
		f = &t->entry_only;
		ct_read_regs(ctx, f->rec.args, s);
		if (ct_aggregate) {
			ct_aggregate_call(s, api, f->rec.args, 0, 0, false);
			return 0;
		}
		f->rec.flags = CT_REC_ENTRY_ONLY;
		f->rec.parent = ct_parent(api, false);
		if (s->flags & (CT_SPEC_READS_ENTRY | CT_SPEC_READS_EXIT)) {
			__builtin_memset(f->rec.mem, 0, sizeof(f->rec.mem));
			f->rec.flags |= ct_do_reads(s, 1, f->rec.args, f->rec.mem);
		}
		ct_read_str(s, f);
		f->rec.ts_ns = bpf_ktime_get_ns();
		f->rec.dur_ns = 0;
		f->rec.api = api;
		f->rec.depth = 0;
		f->rec.ret = 0;
		ct_who(&f->rec);
		ct_emit(f, s);
		return 0;
	}

	if (t->depth >= CT_MAX_DEPTH) {
		/* Keep counting so that the matching exits pair up. */
		t->depth++;
		ct_count(CT_STAT_DEEP);
		return 0;
	}
	f = &t->f[t->depth & (CT_MAX_DEPTH - 1)];
	f->rec.api = api;
	if (ct_aggregate) {
		/* Counts, time and bytes only: the arguments, no reads, no string,
		 * no parents (no record names them). */
		ct_read_regs(ctx, f->rec.args, s);
		t->depth++;
		f->rec.ts_ns = bpf_ktime_get_ns();
		return 0;
	}
	f->rec.flags = 0;
	f->rec.parent = ct_parent(api, true);
	ct_read_regs(ctx, f->rec.args, s);
	if (s->flags & (CT_SPEC_READS_ENTRY | CT_SPEC_READS_EXIT)) {
		/* No value of an earlier call may show through a read that fails. */
		__builtin_memset(f->rec.mem, 0, sizeof(f->rec.mem));
		if (s->flags & CT_SPEC_READS_ENTRY)
			f->rec.flags |= ct_do_reads(s, 1, f->rec.args, f->rec.mem);
	}
	ct_read_str(s, f);
	t->depth++;
	f->rec.ts_ns = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int ct_on_exit(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 api, d;
	struct ct_spec *s;
	struct ct_thread *t;
	struct ct_frame *f;

	t = bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0, 0);
	/* A return probe fires for every process that called the function, ours
	 * or not: a thread with no frames was filtered out at entry. */
	if (!t)
		return 0;
	if (t->depth == 0) {
		ct_count(CT_STAT_UNPAIRED);
		return 0;
	}
	t->depth--;
	d = t->depth;
	if (d >= CT_MAX_DEPTH)
		return 0; /* counted at entry */
	if (!ct_aggregate)
		ct_parent_pop(); /* its entry pushed, whatever happens below */
	f = &t->f[d & (CT_MAX_DEPTH - 1)];
	api = (__u32)bpf_get_attach_cookie(ctx);
	if (f->rec.api != api) {
		ct_count(CT_STAT_UNPAIRED);
		return 0;
	}
	s = bpf_map_lookup_elem(&specs, &api);
	if (!s)
		return 0;
	if (ct_aggregate) {
		ct_aggregate_call(s, api, f->rec.args, now - f->rec.ts_ns, PT_REGS_RC(ctx),
				  s->flags & CT_SPEC_RET_IS_ERROR);
		return 0;
	}
	if (s->flags & CT_SPEC_READS_EXIT)
		f->rec.flags |= ct_do_reads(s, 2, f->rec.args, f->rec.mem);
	f->rec.dur_ns = now - f->rec.ts_ns;
	f->rec.depth = d;
	f->rec.ret = PT_REGS_RC(ctx);
	ct_who(&f->rec);
	ct_emit(f, s);
	return 0;
}

/* uprobe_multi: every symbol of a library in one link. */
SEC("uprobe.multi")
int ct_entry_multi(struct pt_regs *ctx)
{
	return ct_on_entry(ctx);
}

SEC("uretprobe.multi")
int ct_exit_multi(struct pt_regs *ctx)
{
	return ct_on_exit(ctx);
}

/* Fallback for kernels without uprobe_multi: one link per symbol. */
SEC("uprobe")
int ct_entry_single(struct pt_regs *ctx)
{
	return ct_on_entry(ctx);
}

SEC("uretprobe")
int ct_exit_single(struct pt_regs *ctx)
{
	return ct_on_exit(ctx);
}

#endif
