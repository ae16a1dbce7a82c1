/* SPDX-License-Identifier: MIT */
#ifndef CT_WATCHER_H
#define CT_WATCHER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "capture/hold.h"

struct bpf_object;
struct bpf_link;

/* The watcher BPF object: traced pids, forks, exits, late library loads. */
struct ct_watcher {
	struct bpf_object *obj;
	struct bpf_link *links[12]; /* fork, exit, exec, signal; entry and exit of four syscalls */
	int n_links;
	bool per_syscall; /* opens and mmap on their own syscall tracepoints */
	struct ct_released {
		int pidfd;
		pid_t pid;
		int checks; /* looks left */
		uint64_t due_ns;
	} released[256]; /* tasks continued after a stop sent to hold them again: looked at once more */
	int n_released;
	uint64_t continued_again; /* of them, found stopped with no holder left */
	struct ct_hold hold;  /* the task being probed, under ptrace */
	uint32_t hold_mark;   /* its held value when it was seized (a stop sent again?) */
	struct ct_hold stuck; /* threads that could not be detached yet: tried as the loop turns */
	uint64_t untaken;     /* tasks held by their SIGSTOP alone: ptrace could not take them */
	uint64_t taken, taken_ns, taken_max_ns; /* held under ptrace; the time from stop to seize */
};

/*
 * patterns: library basename prefixes to watch for ("libcudart.so"), n of
 * them. filter_pids: only processes in the pid map (and their children).
 * stop_on_exec: stop traced processes at exec so that a runtime linked into
 * the new executable can be probed before it runs; without filter_pids
 * (system-wide), the first process of each executable file only, until
 * ct_watcher_exe_checked() says that file was checked.
 */
int ct_watcher_open(struct ct_watcher *w, const char *const *patterns, int n,
		    bool filter_pids, bool stop_on_exec);
int ct_watcher_pids_fd(struct ct_watcher *w);
int ct_watcher_events_fd(struct ct_watcher *w);
int ct_watcher_add_pid(struct ct_watcher *w, pid_t pid);
/* System-wide: a pid added only to hear of its exit, heard. */
int ct_watcher_forget_pid(struct ct_watcher *w, pid_t pid);
/* System-wide: the executable of a CT_WATCH_EXEC event (its exe_dev, exe_ino)
 * was checked (and probed if it has a runtime): its later processes run on. */
int ct_watcher_exe_checked(struct ct_watcher *w, uint64_t dev, uint64_t ino);
/* The guard may continue held tasks too (see watch.bpf.c, ct_signal). */
int ct_watcher_set_guard(struct ct_watcher *w, pid_t guard);
/* A task the watcher stopped (an event's `stopped`): hold it under ptrace
 * until it is released (see hold.c); where ptrace cannot take it, its
 * SIGSTOP alone holds it, as watch.bpf.c keeps it. stop_ns: the event's. */
void ct_watcher_take(struct ct_watcher *w, pid_t pid, uint64_t stop_ns);
/* A task the watcher stopped is probed: it is no longer held, and is
 * continued. */
void ct_watcher_release(struct ct_watcher *w, pid_t pid);
/* Continue again the tasks released a moment ago that are found stopped (see
 * watcher.c); all: every one, waiting till it is due. Call it as the loop turns. */
void ct_watcher_recheck(struct ct_watcher *w, bool all);
/* Stop watching (detach the programs); the event ring stays readable. */
void ct_watcher_detach(struct ct_watcher *w);
void ct_watcher_close(struct ct_watcher *w);

#endif
