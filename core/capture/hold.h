/* SPDX-License-Identifier: MIT */
#ifndef CT_HOLD_H
#define CT_HOLD_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * A task the watcher stopped, held under ptrace until its probes are in
 * place (see hold.c): every thread seized and trapped, so that a SIGCONT
 * from anyone else does not let it run.
 */
struct ct_hold {
	pid_t pid;   /* the process; 0: nothing held */
	pid_t *tids; /* the threads seized */
	int n, cap;
};

/*
 * Seize every thread of pid. 1: held; 0: not (another tracer has it,
 * ptrace is refused, or it is gone: the SIGSTOP alone holds it), with the
 * reason in *why; -errno: out of memory.
 */
int ct_hold_take(struct ct_hold *h, pid_t pid, const char **why);
/* Detach every thread seized, signals still pending left to it. A thread
 * not yet trapped (inside a long system call) is tried again every
 * millisecond for wait_ms in all, then left in h; returns how many were left. */
int ct_hold_release(struct ct_hold *h, int wait_ms);
/* Add a seized thread (to be detached by ct_hold_release); -ENOMEM. */
int ct_hold_add(struct ct_hold *h, pid_t tid);
void ct_hold_free(struct ct_hold *h);

#endif
