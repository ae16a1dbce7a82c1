/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The kernel's floor: programs that do nothing, on the same probes. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

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
