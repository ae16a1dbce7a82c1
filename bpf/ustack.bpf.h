/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Native call stacks (--stacks, docs/stacks.md), for the capture engine.
 * Included by capture.bpf.c after its ring, counters and ct_count().
 *
 * A call's stack is taken where the caller's stack is whole and its own
 * frame is not on it: at the return (the uretprobe sets the ip to the
 * return address, the caller's registers are restored), or, for an API
 * recorded at entry only, at the first instruction (the kernel puts the
 * return address at sp first: the traced function's own frame is skipped).
 * Both give the same frames, innermost the caller's return address.
 *
 * Method fp: the kernel walks the frame pointers (bpf_get_stack); the
 * frames are hashed with the process's id, and a table of the stacks sent
 * says whether user space has them: a hot loop from one site sends its
 * frames once and then 4 bytes of id per call. (Not a STACK_TRACE map:
 * it keeps one stack per hash bucket and refuses a second, so with a few
 * hundred sites some would lose their stack for the whole run.) Method
 * dwarf: the top ct_slice_bytes of the stack and the registers go to the
 * ring just before the call's record, for user space to unwind from
 * .eh_frame.
 */
#ifndef CT_USTACK_BPF_H
#define CT_USTACK_BPF_H

const volatile __u32 ct_stack_method = CT_USTACK_OFF;
const volatile bool ct_stack_errors = false;    /* also the stack of every failing call */
const volatile __u32 ct_slice_bytes = 16384;    /* dwarf: bytes of stack copied, whole pages, at most CT_USTACK_SLICE_MAX */

const volatile __u32 ct_stack_depth = 64;      /* frames kept, at most CT_USTACK_DEPTH_MAX */

/* The stacks sent, by id: the hash of each (a slot taken by another stack sends again). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);     /* from stacks.map_entries */
	__type(key, __u32);
	__type(value, __u64);
} ustack_sent SEC(".maps");

/* A thread's stack as it is taken: a per-CPU buffer would not do (a probe's
 * program can be preempted and another thread's run on the same CPU). */
struct ct_ustack_buf {
	struct ct_ustack_frames head;
	__u64 pcs[CT_USTACK_DEPTH_MAX + 1];
};
_Static_assert(__builtin_offsetof(struct ct_ustack_buf, pcs) == CT_USTACK_FRAMES_HEAD, "frames follow the head");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ct_ustack_buf);
} ustack_buf SEC(".maps");

/* Fp: the id of the calling thread's stack, its frames sent first if need be; 0: none. */
/* caller (at entry, x86-64): the return address the call pushed comes first.
 * A walk of frame pointers at a function's first instruction starts from the
 * caller's frame pointer, so it has the caller's caller first: the caller
 * itself is only in that word. */
static __always_inline __u32 ct_ustack_fp(struct pt_regs *ctx, bool at_entry, bool caller)
{
	struct ct_ustack_buf *b = bpf_task_storage_get(&ustack_buf, bpf_get_current_task_btf(), 0,
						       BPF_LOCAL_STORAGE_GET_F_CREATE);
	__u32 depth = ct_stack_depth, id, n, flags = 0;
	__u64 h = 0xcbf29ce484222325ull, *sent;
	long got;

	if (!b || depth > CT_USTACK_DEPTH_MAX)
		return 0;
	/* One frame more than kept, to tell a stack of `depth` frames from a
	 * deeper one. The low bits of the flags skip the traced function's own
	 * frame at entry. */
#if defined(__TARGET_ARCH_x86)
	if (caller) {
		if (bpf_probe_read_user(&b->pcs[0], 8, (void *)PT_REGS_SP(ctx)))
			return 0;
		got = bpf_get_stack(ctx, &b->pcs[1], depth * 8, BPF_F_USER_STACK | 1);
		/* Kernels from 6.13 put that word in themselves where the function
		 * begins with push %rbp (a uprobe at entry): then it came twice,
		 * and the walk alone is the stack (a call site is never its own
		 * caller's, so two equal words are always this). */
		if (got >= 8 && b->pcs[1] == b->pcs[0])
			got = bpf_get_stack(ctx, b->pcs, (depth + 1) * 8, BPF_F_USER_STACK | 1);
		else
			got = got < 0 ? 8 : got + 8;
	} else
#endif
		got = bpf_get_stack(ctx, b->pcs, (depth + 1) * 8, BPF_F_USER_STACK | (at_entry ? 1 : 0));
	if (got <= 0)
		return 0;
	n = (__u32)got / 8;
	if (n > depth) {
		n = depth;
		flags = CT_USTACK_TRUNCATED;
	}
	h ^= bpf_get_current_pid_tgid() >> 32;
	for (int i = 0; i <= CT_USTACK_DEPTH_MAX; i++) {
		if (i >= n)
			break;
		h = (h ^ b->pcs[i]) * 0x100000001b3ull;
	}
	h = (h ^ flags) * 0x100000001b3ull;
	id = (__u32)(h ^ (h >> 32));
	if (!id || id == CT_USTACK_SLICE)
		id = 1;
	sent = bpf_map_lookup_elem(&ustack_sent, &id);
	if (sent && *sent == h)
		return id;
	b->head.hash = h;
	b->head.n = n;
	b->head.pid = bpf_get_current_pid_tgid() >> 32;
	b->head.tid = (__u32)bpf_get_current_pid_tgid();
	b->head.call = CT_CALL_USTACK_FRAMES;
	b->head.flags = flags;
	b->head.id = id;
	b->head.pad = 0;
	if (n > CT_USTACK_DEPTH_MAX)
		return 0;
	/* The call's record comes next and decides the wake-up. */
	if (bpf_ringbuf_output(&events, b, CT_USTACK_FRAMES_HEAD + n * 8, BPF_RB_NO_WAKEUP))
		return 0;
	bpf_map_update_elem(&ustack_sent, &id, &h, BPF_ANY);
	return id;
}

#define CT_PAGE 4096u

/* Dwarf: the slice record, sent ahead of the call's; CT_USTACK_SLICE or 0. */
static __always_inline __u32 ct_ustack_slice(struct pt_regs *ctx, __u32 flags)
{
#if defined(__TARGET_ARCH_x86)
	__u64 sp = PT_REGS_SP(ctx);
	__u32 got = 0;
	struct ct_ustack_slice *u;
	__u32 n = ct_slice_bytes;

	if (n > CT_USTACK_SLICE_MAX)
		return 0;
	u = bpf_ringbuf_reserve(&events, CT_USTACK_SLICE_HEAD + ct_slice_bytes, 0);
	if (!u)
		return 0;
	/* Whole pages from the one sp is in (the bytes below sp are not used):
	 * the stack ends somewhere above sp, and a read across its end would
	 * fail as a whole. Constant offsets and sizes, for the verifier. */
	sp &= ~(__u64)(CT_PAGE - 1);
	for (int i = 0; i < CT_USTACK_SLICE_MAX / CT_PAGE; i++) {
		if (got + CT_PAGE > n)
			break;
		if (bpf_probe_read_user(u->data + i * CT_PAGE, CT_PAGE, (void *)(sp + i * CT_PAGE)))
			break;
		got += CT_PAGE;
	}
	u->sp = sp;
	u->len = got;
	u->pid = bpf_get_current_pid_tgid() >> 32;
	u->tid = (__u32)bpf_get_current_pid_tgid();
	u->call = CT_CALL_USTACK_SLICE;
	u->flags = flags;
	u->regs[0] = ctx->ax; u->regs[1] = ctx->dx; u->regs[2] = ctx->cx; u->regs[3] = ctx->bx;
	u->regs[4] = ctx->si; u->regs[5] = ctx->di; u->regs[6] = ctx->bp; u->regs[7] = ctx->sp;
	u->regs[8] = ctx->r8; u->regs[9] = ctx->r9; u->regs[10] = ctx->r10; u->regs[11] = ctx->r11;
	u->regs[12] = ctx->r12; u->regs[13] = ctx->r13; u->regs[14] = ctx->r14; u->regs[15] = ctx->r15;
	u->regs[16] = ctx->ip;
	/* The call's record comes next and decides the wake-up. */
	bpf_ringbuf_submit(u, BPF_RB_NO_WAKEUP);
	return CT_USTACK_SLICE;
#else
	return 0; /* the core refuses method dwarf on other architectures */
#endif
}

static __always_inline __u32 ct_ustack_take(struct pt_regs *ctx, bool at_entry, bool caller)
{
	__u32 r;

	if (ct_stack_method == CT_USTACK_DWARF)
		r = ct_ustack_slice(ctx, at_entry ? CT_USTACK_AT_ENTRY : 0);
	else
		r = ct_ustack_fp(ctx, at_entry, caller);
	if (!r)
		ct_count(CT_STAT_NOSTACK);
	return r;
}

/* At entry, for a record sent at entry: its stack if its API wants one. */
static __always_inline void ct_ustack_entry(struct pt_regs *ctx, struct ct_record *r, __u32 sflags)
{
	r->ustack = 0;
	if (ct_stack_method != CT_USTACK_OFF && (sflags & CT_SPEC_STACK))
		r->ustack = ct_ustack_take(ctx, true, false);
}

/* At the return: the call failed, and failing calls carry stacks (stacks.apis = errors). */
static __always_inline bool ct_stack_failed(struct pt_regs *ctx, __u32 sflags)
{
	return ct_stack_errors && (sflags & CT_SPEC_RET_IS_ERROR) && (__u32)PT_REGS_RC(ctx);
}

/* At the return: its stack if its API wants one, or if it failed and failing calls do. */
static __always_inline void ct_ustack_exit(struct pt_regs *ctx, struct ct_record *r, __u32 sflags)
{
	r->ustack = 0;
	if (ct_stack_method == CT_USTACK_OFF)
		return;
	if ((sflags & CT_SPEC_STACK) || ct_stack_failed(ctx, sflags))
		r->ustack = ct_ustack_take(ctx, false, false);
}

#endif
