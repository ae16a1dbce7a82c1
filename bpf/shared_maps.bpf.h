/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Maps that the watcher object and every plugin's capture object share: the
 * watcher creates them, user space hands their fds to each capture object
 * (bpf_map__reuse_fd), so both sides must declare them the same. Declared
 * once, here.
 */
#ifndef CT_SHARED_MAPS_BPF_H
#define CT_SHARED_MAPS_BPF_H

/* Processes to trace when ct_filter_pids (the watcher adds children). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} pids SEC(".maps");

/* With several plugins: each thread's calls in flight, of every plugin. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ct_callstack);
} callstack SEC(".maps");

#endif
