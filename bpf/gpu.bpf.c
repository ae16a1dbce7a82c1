/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * GPU activity's way in: the entry of ct_gpu_batch(buf, len) in the
 * injection library (inject/batch.c), which does nothing else. The batch
 * (at most CT_GPU_BATCH_MAX bytes) is copied into the session's one ring
 * (the capture engine's `events`, shared through bpf_map__reuse_fd) as a
 * ct_gpu_chunk, so the reader gets API calls and GPU work through one
 * pipeline, and a batch that finds no room is counted like a lost record.
 * A reservation has a constant size: three sizes keep small batches small.
 * The reader is woken as the engine wakes it (ct_emit): once this CPU has
 * sent ct_wakeup_bytes since it last woke it, the count in the engine's
 * `wake` map; a wake-up per batch cost 8 us of the batch's 9.7 on the
 * 2-core VM (docs/performance.md, "GPU activity's own cost").
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "gpu_chunk.h"
#include "../inject/wire.h" /* CT_GPU_BATCH_MAX */

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile bool ct_filter_pids = false;
const volatile __u64 ct_wakeup_bytes = 0; /* the engine's; 0: wake the reader for every batch */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24); /* the engine's, reused */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CT_GPU_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} gpu_stats SEC(".maps");

#include "wake.bpf.h" /* the engine's map, reused */
#include "pids.bpf.h"

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&gpu_stats, &which);

	if (c)
		*c += 1;
}

#define SEND_CHUNK(size)                                                                    \
	do {                                                                                \
		struct ct_gpu_chunk *c = bpf_ringbuf_reserve(&events, (size), 0);           \
		if (!c) {                                                                   \
			count(CT_GPU_STAT_LOST);                                            \
			return 0;                                                           \
		}                                                                           \
		if (len > (size) - CT_GPU_CHUNK_HEAD ||                                    \
		    bpf_probe_read_user(c->data, len & 0xffff, (void *)buf)) {              \
			bpf_ringbuf_discard(c, 0);                                          \
			count(CT_GPU_STAT_UNREAD);                                          \
			return 0;                                                           \
		}                                                                           \
		c->ts_ns = bpf_ktime_get_ns();                                              \
		c->len = len;                                                               \
		c->pid = id >> 32;                                                          \
		c->tid = (__u32)id;                                                         \
		c->call = CT_CALL_GPU;                                                      \
		c->flags = 0;                                                               \
		bpf_ringbuf_submit(c, ct_wake_flags(size));                                    \
		return 0;                                                                   \
	} while (0)

SEC("uprobe")
int ct_gpu_batch_entry(struct pt_regs *ctx)
{
	__u64 buf = PT_REGS_PARM1(ctx), len = PT_REGS_PARM2(ctx);
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;

	/* The library's file may be mapped by another session's commands too. */
	if (ct_filter_pids && !bpf_map_lookup_elem(&pids, &tgid))
		return 0;
	if (!len)
		return 0;
	if (len > CT_GPU_BATCH_MAX) {
		count(CT_GPU_STAT_TOO_LONG);
		return 0;
	}
	if (len <= 512 - CT_GPU_CHUNK_HEAD)
		SEND_CHUNK(512);
	if (len <= 2048 - CT_GPU_CHUNK_HEAD)
		SEND_CHUNK(2048);
	SEND_CHUNK(CT_GPU_BATCH_MAX + CT_GPU_CHUNK_HEAD);
}
