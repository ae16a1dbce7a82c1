/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Processes to trace when ct_filter_pids. The watcher creates the map (and
 * adds children as they fork); user space hands its fd to the capture
 * engine (bpf_map__reuse_fd), so both must declare it the same: here, once.
 */
#ifndef CT_PIDS_BPF_H
#define CT_PIDS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} pids SEC(".maps");

#endif
