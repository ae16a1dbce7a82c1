/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The kernel's floor: programs that do nothing, on the same probes; and the
 * parts of a timed record alone, to show what any tracer that times calls
 * and sends one record per call must pay at the least (ct-floor --programs).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* A launch's record: header and the words cudaLaunchKernel uses. */
#define PART_RECORD_BYTES 128

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} part_ring SEC(".maps");

__u64 part_sink;
char part_record[PART_RECORD_BYTES];

SEC("uprobe.multi")
int empty_entry(void *ctx)
{
	return 0;
}

SEC("uretprobe.multi")
int empty_exit(void *ctx)
{
	return 0;
}

/* clock: the two timestamps of a timed call, and nothing else. */
SEC("uprobe.multi")
int clock_entry(void *ctx)
{
	part_sink = bpf_ktime_get_ns();
	return 0;
}

SEC("uretprobe.multi")
int clock_exit(void *ctx)
{
	part_sink = bpf_ktime_get_ns();
	return 0;
}

/* record: the timestamps and one record sent to a ring buffer per call. */
SEC("uprobe.multi")
int record_entry(void *ctx)
{
	part_sink = bpf_ktime_get_ns();
	return 0;
}

SEC("uretprobe.multi")
int record_exit(void *ctx)
{
	part_sink = bpf_ktime_get_ns();
	bpf_ringbuf_output(&part_ring, part_record, sizeof(part_record), BPF_RB_NO_WAKEUP);
	return 0;
}

/*
 * The same three as uprobe session programs (ct-floor --attach session):
 * one program runs at entry and at return. An entry-only API's probe has
 * cookie 1, and its entry declines the return, as the engine's does.
 */
SEC("uprobe.multi")
int empty_session(void *ctx)
{
	return bpf_get_attach_cookie(ctx) != 0;
}

SEC("uprobe.multi")
int clock_session(void *ctx)
{
	part_sink = bpf_ktime_get_ns();
	return !bpf_session_is_return() && bpf_get_attach_cookie(ctx);
}

SEC("uprobe.multi")
int record_session(void *ctx)
{
	part_sink = bpf_ktime_get_ns();
	if (!bpf_session_is_return())
		return bpf_get_attach_cookie(ctx) != 0;
	bpf_ringbuf_output(&part_ring, part_record, sizeof(part_record), BPF_RB_NO_WAKEUP);
	return 0;
}
