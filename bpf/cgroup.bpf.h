/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * --cgroup: the capture engine passes only tasks under one cgroup v2
 * directory (it or any below it). User space puts the directory's
 * descriptor in the one slot of a cgroup array; the kernel walks the task's
 * cgroup ancestry to answer (bpf_current_task_under_cgroup). Beside the pid
 * filter, and like it checked when a thread's storage is made: once per
 * thread that passes.
 */
#ifndef CT_CGROUP_BPF_H
#define CT_CGROUP_BPF_H

const volatile bool ct_filter_cgroup = false;

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_filter SEC(".maps");

static __always_inline bool ct_cgroup_wanted(void)
{
	return !ct_filter_cgroup || bpf_current_task_under_cgroup(&cgroup_filter, 0) == 1;
}

#endif
