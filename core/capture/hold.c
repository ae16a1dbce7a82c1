// SPDX-License-Identifier: MIT
/*
 * Holding a stopped task under ptrace. The watcher stops a task with SIGSTOP
 * (from BPF) until its probes are in place; but a SIGSTOP is anyone's to
 * end: another tracer's, a daemon's, a user's SIGCONT would let it run
 * unprobed. Once the tracer reads the watcher's event it seizes every
 * thread (PTRACE_SEIZE, then PTRACE_INTERRUPT for one still on its way to
 * the stop). A seized thread in group stop moves to a ptrace trap, and a
 * SIGCONT no longer wakes it: the kernel only notes it for the tracer
 * (ptrace_trap_notify). The tracer never resumes a thread while it holds
 * it, so no signal is ever taken from its queue: a SIGUSR1 or a SIGCONT sent
 * meanwhile stays pending and is delivered once, after the detach, as it
 * would have been without us. At the detach a thread whose group is still
 * stopped goes back to that stop and the watcher's SIGCONT ends it; one
 * that a SIGCONT already continued runs.
 *
 * No option is set (no PTRACE_O_EXITKILL): a tracer that dies detaches its
 * tracees, which go back to the group stop, and the guard continues them.
 * A task that another tracer already has (gdb, strace), or that ptrace may
 * not touch (Yama's ptrace_scope 3, no CAP_SYS_PTRACE), is held by the
 * SIGSTOP alone, as before.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "capture/hold.h"
#include "util/procfs.h"

/* Threads started while the first are being seized (by one not yet stopped):
 * the task list is read again, this many times at most. */
#define TAKE_PASSES 8

static bool has(const struct ct_hold *h, pid_t tid)
{
	for (int i = 0; i < h->n; i++)
		if (h->tids[i] == tid)
			return true;
	return false;
}

int ct_hold_add(struct ct_hold *h, pid_t tid)
{
	if (h->n == h->cap) {
		int cap = h->cap ? h->cap * 2 : 16;
		pid_t *t = realloc(h->tids, (size_t)cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		h->tids = t;
		h->cap = cap;
	}
	h->tids[h->n++] = tid;
	return 0;
}

/* A number of /proc/PID/status (fmt: "TracerPid: %ld"); 0 if unread. */
/* One pass over /proc/PID/task: 1 if a thread was seized, 0 if none was new,
 * -errno (the leader could not be seized, or the list could not be read). */
static int take_pass(struct ct_hold *h, pid_t pid)
{
	char path[64];
	struct dirent *d;
	int added = 0, err = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!err && (d = readdir(dir))) {
		pid_t tid = (pid_t)strtol(d->d_name, NULL, 10);

		if (tid <= 0 || has(h, tid))
			continue;
		if (ptrace(PTRACE_SEIZE, tid, NULL, NULL)) {
			/* A thread that ended meanwhile is no matter; the leader
			 * refused (another tracer) is the whole task refused. */
			if (errno != ESRCH || tid == pid)
				err = -errno;
			continue;
		}
		/* Trapped at once if it is in the group stop already; else at its
		 * next way through the kernel, which the stop would take too. */
		ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
		if ((err = ct_hold_add(h, tid)))
			ptrace(PTRACE_DETACH, tid, NULL, NULL);
		added = 1;
	}
	closedir(dir);
	return err ? err : added;
}

int ct_hold_take(struct ct_hold *h, pid_t pid, const char **why)
{
	int err = 0;

	h->pid = pid;
	h->n = 0;
	*why = NULL;
	for (int pass = 0; pass < TAKE_PASSES; pass++) {
		err = take_pass(h, pid);
		if (err <= 0)
			break;
	}
	if (err == -ENOMEM) {
		ct_hold_release(h, 1000);
		return err;
	}
	if (err < 0) {
		ct_hold_release(h, 1000);
		if (err == -ESRCH)
			*why = "it has ended";
		else if (err == -EPERM && ct_proc_status_field((uint32_t)pid, "TracerPid:") > 0)
			*why = "another process traces it (ptrace)";
		else
			*why = strerror(-err);
		h->pid = 0;
		return 0;
	}
	return 1;
}

/*
 * Whether tid is no longer ours to detach. A thread that has ended is a
 * zombie until its tracer waits for it: waited for here (a process not
 * ours goes back to its parent), but never the tracer's own child, whose
 * status the session's wait takes.
 */
static bool reap_ended(pid_t tid)
{
	struct ct_proc_stat st;
	siginfo_t si = { 0 };

	if (waitid(P_PID, (id_t)tid, &si, WEXITED | WNOHANG | WNOWAIT | __WALL))
		return errno == ECHILD; /* neither our child nor our tracee any more */
	if (si.si_pid != tid)
		return false;
	if (ct_proc_status_field((uint32_t)tid, "Tgid:") == tid && !ct_proc_stat((uint32_t)tid, &st) && st.ppid == getpid())
		return true;
	waitid(P_PID, (id_t)tid, &si, WEXITED | WNOHANG | __WALL);
	return true;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int ct_hold_release(struct ct_hold *h, int wait_ms)
{
	long long deadline = mono_ms() + wait_ms;

	/* Every thread once a pass, in passes a millisecond apart until the
	 * deadline: a thread not trapped yet (inside a long system call) cannot
	 * be detached, and the leader of a process that died is not reported
	 * before its other threads are waited for. What is left is for later. */
	for (;;) {
		int kept = 0;

		for (int i = 0; i < h->n; i++) {
			pid_t tid = h->tids[i];

			if (ptrace(PTRACE_DETACH, tid, NULL, NULL) && errno == ESRCH && !reap_ended(tid))
				h->tids[kept++] = tid;
		}
		h->n = kept;
		if (!kept || mono_ms() >= deadline)
			break;
		nanosleep(&(struct timespec){ 0, 1000000L }, NULL);
	}
	if (!h->n)
		h->pid = 0;
	return h->n;
}

void ct_hold_free(struct ct_hold *h)
{
	free(h->tids);
	memset(h, 0, sizeof(*h));
}
