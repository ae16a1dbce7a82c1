/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * When a record wakes the ring's reader: once this CPU has sent
 * ct_wakeup_bytes since it last woke it (the including program's constant,
 * set by the core before load; 0: every record wakes it). The count is
 * CPU-local, where asking the ring how much waits would read the reader's
 * position, a cache line the reader keeps writing; the capture engine and
 * the GPU batch probe share one `wake` map (bpf_map__reuse_fd).
 */
#ifndef CT_WAKE_BPF_H
#define CT_WAKE_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} wake SEC(".maps");

/* bpf_ringbuf_submit's flags for a record of len bytes. */
static __always_inline __u64 ct_wake_flags(__u64 len)
{
	__u32 zero = 0;
	__u64 *pending;

	if (!ct_wakeup_bytes)
		return 0;
	pending = bpf_map_lookup_elem(&wake, &zero);
	if (!pending)
		return 0;
	*pending += len + 8;
	if (*pending < ct_wakeup_bytes)
		return BPF_RB_NO_WAKEUP;
	*pending = 0;
	return BPF_RB_FORCE_WAKEUP;
}

#endif
