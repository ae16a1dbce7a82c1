// SPDX-License-Identifier: MIT
/* Loads and attaches bpf/watch.bpf.c (see there for what it does). */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "record.h"
#include "watch_event.h"
#include "capture/bpfutil.h"
#include "util/procfs.h"
#include "util/log.h"
#include "util/plural.h"
#include "capture/hold.h"
#include "capture/watcher.h"

extern const char ct_bpf_watch_start[], ct_bpf_watch_end[];

static const char *const always[] = { "ct_fork", "ct_exit", "ct_exec", "ct_signal" };
/* Opens and mmap on their own tracepoints, one program each way for all of
 * them (it reads the syscall number from the record); or, on kernels built
 * without syscall tracepoints, every syscall through the raw one. */
static const char *const syscalls[] = { "openat", "openat2", "open", "mmap" };
static const char *const per_syscall[] = { "ct_sc_enter", "ct_sc_exit" };
static const char *const all_syscalls[] = { "ct_sys_enter", "ct_sys_exit" };

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define TRACEFS "/sys/kernel/tracing"
#define SYSCALL_EVENT "/events/syscalls/sys_enter_openat"

/*
 * The syscall tracepoints are found through tracefs. Where it is not
 * mounted (some minimal VM images), it is mounted at its usual place, as
 * perf does, and left there; if that fails the watcher takes every
 * syscall. CUDATRACER_SYSCALL_HOOKS=all takes that fallback anyway (to
 * test it).
 */
static bool have_syscall_tracepoints(void)
{
	const char *force = getenv("CUDATRACER_SYSCALL_HOOKS");

	if (force && !strcmp(force, "all"))
		return false;
	if (!access(TRACEFS SYSCALL_EVENT, F_OK) || !access("/sys/kernel/debug/tracing" SYSCALL_EVENT, F_OK))
		return true;
	if (access(TRACEFS, F_OK) || !access(TRACEFS "/events", F_OK))
		return false; /* no mount point, or tracefs without syscall events */
	if (mount("nodev", TRACEFS, "tracefs", 0, NULL)) {
		ct_info("could not mount tracefs at " TRACEFS ": %s", strerror(errno));
		return false;
	}
	ct_info("mounted tracefs at " TRACEFS " (for the syscall tracepoints)");
	return !access(TRACEFS SYSCALL_EVENT, F_OK);
}

static int keep(struct ct_watcher *w, struct bpf_link *l, const char *what)
{
	int err = -errno;

	if (!l) {
		ct_err("attaching the watcher's %s program failed: %s (the kernel needs BTF-enabled tracepoints)",
		       what, strerror(-err));
		return err;
	}
	w->links[w->n_links++] = l;
	return 0;
}

static int attach_syscalls(struct ct_watcher *w)
{
	struct bpf_program *enter = bpf_object__find_program_by_name(w->obj, "ct_sc_enter");
	struct bpf_program *exit = bpf_object__find_program_by_name(w->obj, "ct_sc_exit");
	char tp[32];
	int err;

	for (size_t i = 0; i < N(syscalls); i++) {
		snprintf(tp, sizeof(tp), "sys_enter_%s", syscalls[i]);
		if ((err = keep(w, bpf_program__attach_tracepoint(enter, "syscalls", tp), tp)))
			return err;
		snprintf(tp, sizeof(tp), "sys_exit_%s", syscalls[i]);
		if ((err = keep(w, bpf_program__attach_tracepoint(exit, "syscalls", tp), tp)))
			return err;
	}
	return 0;
}

static int attach(struct ct_watcher *w, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(w->obj, names[i]);
		int err;

		errno = ENOENT;
		if ((err = keep(w, p ? bpf_program__attach(p) : NULL, names[i])))
			return err;
	}
	return 0;
}

static int hold_fd(struct ct_watcher *w)
{
	return bpf_map__fd(bpf_object__find_map_by_name(w->obj, "hold_state"));
}

int ct_watcher_open(struct ct_watcher *w, const char *const *patterns, int n,
		    bool filter_pids, bool stop_on_exec)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "ct_watch");
	uint32_t np = n > CT_WATCH_PATTERNS ? CT_WATCH_PATTERNS : n, self = getpid();
	int err, fd;

	memset(w, 0, sizeof(*w));
	w->obj = bpf_object__open_mem(ct_bpf_watch_start, ct_bpf_watch_end - ct_bpf_watch_start, &oo);
	if (!w->obj)
		return -errno;
	if ((err = ct_bpf_set_const(w->obj, "ct_filter_pids", &filter_pids, sizeof(bool))) ||
	    (err = ct_bpf_set_const(w->obj, "ct_stop_on_exec", &stop_on_exec, sizeof(bool))) ||
	    (err = ct_bpf_set_const(w->obj, "ct_stop_opens", &filter_pids, sizeof(bool))) ||
	    (err = ct_bpf_set_const(w->obj, "ct_n_patterns", &np, sizeof(np))) ||
	    (err = ct_bpf_set_const(w->obj, "ct_self_tgid", &self, sizeof(self))))
		return err;
	w->per_syscall = have_syscall_tracepoints();
	for (size_t i = 0; i < N(per_syscall); i++)
		bpf_program__set_autoload(bpf_object__find_program_by_name(w->obj, per_syscall[i]),
					  w->per_syscall);
	for (size_t i = 0; i < N(all_syscalls); i++)
		bpf_program__set_autoload(bpf_object__find_program_by_name(w->obj, all_syscalls[i]),
					  !w->per_syscall);
	err = ct_bpf_object_load_quiet(w->obj); /* a daemon's SIGHUPs pending would fail it */
	if (err) {
		ct_err("loading the watcher BPF programs failed: %s%s", strerror(-err),
		       err == -EPERM ? " (needs root, or CAP_BPF and CAP_PERFMON)" : " (run with -v to see the verifier's log)");
		return err;
	}
	fd = bpf_map__fd(bpf_object__find_map_by_name(w->obj, "patterns"));
	for (uint32_t i = 0; i < np; i++) {
		char pat[CT_WATCH_PATTERN_LEN] = { 0 };

		strncpy(pat, patterns[i], sizeof(pat) - 1);
		if (bpf_map_update_elem(fd, &i, pat, BPF_ANY))
			return -errno;
	}
	if ((err = attach(w, always, N(always))))
		return err;
	ct_info("watcher: %s", w->per_syscall ? "opens and mmap on their syscall tracepoints"
					       : "every syscall through the raw tracepoint");
	if (w->per_syscall)
		return attach_syscalls(w);
	return attach(w, all_syscalls, N(all_syscalls));
}

int ct_watcher_pids_fd(struct ct_watcher *w)
{
	return bpf_map__fd(bpf_object__find_map_by_name(w->obj, "pids"));
}

int ct_watcher_events_fd(struct ct_watcher *w)
{
	return bpf_map__fd(bpf_object__find_map_by_name(w->obj, "watch_events"));
}

int ct_watcher_exe_checked(struct ct_watcher *w, uint64_t dev, uint64_t ino)
{
	struct ct_exe_key key = { dev, ino };
	uint8_t done = CT_EXE_CHECKED;
	int fd = bpf_map__fd(bpf_object__find_map_by_name(w->obj, "exe_seen"));

	return bpf_map_update_elem(fd, &key, &done, BPF_ANY) ? -errno : 0;
}

int ct_watcher_add_pid(struct ct_watcher *w, pid_t pid)
{
	uint32_t key = pid, one = 1;

	return bpf_map_update_elem(ct_watcher_pids_fd(w), &key, &one, BPF_ANY) ? -errno : 0;
}

int ct_watcher_forget_pid(struct ct_watcher *w, pid_t pid)
{
	uint32_t key = pid;

	return bpf_map_delete_elem(ct_watcher_pids_fd(w), &key) ? -errno : 0;
}

int ct_watcher_set_guard(struct ct_watcher *w, pid_t guard)
{
	uint32_t key = CT_HOLD_GUARD;
	uint64_t v = (uint64_t)guard;

	return bpf_map_update_elem(hold_fd(w), &key, &v, BPF_ANY) ? -errno : 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Whether the process is stopped (state T); -errno: gone. One reader of
 * /proc/PID/stat for the whole tracer (util/procfs.c). */
static int proc_stopped(pid_t pid)
{
	struct ct_proc_stat st;
	int err = ct_proc_stat((uint32_t)pid, &st);

	return err ? err : st.state == 'T';
}

static int held_fd(struct ct_watcher *w)
{
	return bpf_map__fd(bpf_object__find_map_by_name(w->obj, "held"));
}

void ct_watcher_take(struct ct_watcher *w, pid_t pid, uint64_t stop_ns)
{
	uint32_t key = pid, v = 0, traced = CT_HOLD_TRACED;
	/* A test hook (docs/reliability.md): the fallback, as if ptrace could not take it. */
	const char *why = getenv("CUDATRACER_TEST_NO_PTRACE") ? "CUDATRACER_TEST_NO_PTRACE is set" : NULL;
	int err = why ? 0 : ct_hold_take(&w->hold, pid, &why);

	w->hold_mark = 0;
	if (err < 0)
		ct_warn("pid %d could not be held under ptrace: %s", (int)pid, strerror(-err));
	if (err == 0) {
		w->untaken++;
		ct_info("pid %d is held by its SIGSTOP alone, not under ptrace: %s", (int)pid, why);
	}
	if (err <= 0)
		return;
	/* Until now the SIGSTOP alone held it: the window docs/reliability.md measures. */
	stop_ns = mono_ns() > stop_ns ? mono_ns() - stop_ns : 0;
	w->taken++;
	w->taken_ns += stop_ns;
	if (stop_ns > w->taken_max_ns)
		w->taken_max_ns = stop_ns;
	ct_dbg("pid %d held under ptrace (%d thread%s), %llu us after its stop", (int)pid, w->hold.n,
	       CT_S(w->hold.n), (unsigned long long)stop_ns / 1000);
	/* ct_signal sends no stop again from now on; one it sent before is
	 * remembered, for the look after the release. */
	if (!bpf_map_lookup_elem(held_fd(w), &key, &v)) {
		w->hold_mark = v;
		bpf_map_update_elem(held_fd(w), &key, &traced, BPF_EXIST);
	}
}

/* Detach the threads of a task held under ptrace; those not yet trapped are
 * tried again as the loop turns (ct_watcher_recheck). */
static void untake(struct ct_watcher *w, pid_t pid)
{
	if (w->hold.pid != pid)
		return;
	if (ct_hold_release(&w->hold, 200) == 0)
		return;
	for (int i = 0; i < w->hold.n; i++)
		if (ct_hold_add(&w->stuck, w->hold.tids[i]))
			ct_warn("pid %d: thread %d left under ptrace until cudatracer ends", (int)pid,
				(int)w->hold.tids[i]);
	w->hold.n = 0;
	w->hold.pid = 0;
}

/*
 * Tracers that held the same task each stop it again when another continues
 * it (watch.bpf.c, ct_signal), through irq_work: a stop sent for this tracer
 * as another released the task can land after this tracer's own SIGCONT,
 * and leave the task stopped with no holder left. ct_signal marks the hold
 * when it sends one; a task released with that mark is looked at 20 ms on,
 * and again a second later (a loaded machine), and continued again if it is
 * stopped (a tracer that still holds it stops it again, as it should). A task
 * never stopped again is left alone: one that stops itself once it runs (a
 * program waiting for a debugger) stays stopped.
 * Through a pidfd, taken while the task is stopped: a pid reused meanwhile is
 * never signalled.
 */
void ct_watcher_release(struct ct_watcher *w, pid_t pid)
{
	int held = held_fd(w);
	uint32_t key = pid, v = 0;
	int fd;

	/* Read and removed at once: a mark set after the read would be lost
	 * (a kernel before 5.14 has no such call: read, then removed). */
	if (bpf_map_lookup_and_delete_elem(held, &key, &v) && errno != ENOENT) {
		bpf_map_lookup_elem(held, &key, &v);
		bpf_map_delete_elem(held, &key);
	}
	/* The SIGCONT before the detach: sent after it, it could come when the
	 * task, running again, is already held at its next stop (the open of
	 * the runtime after an exec), and end that one too. Under ptrace it
	 * only ends the group stop; the detach lets the task run. */
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0) /* gone, or a kernel before 5.3: continued all the same */
		kill(pid, SIGCONT);
	else
		syscall(SYS_pidfd_send_signal, fd, SIGCONT, NULL, 0);
	if (w->hold.pid == pid) {
		if (v == CT_HOLD_TRACED)
			v = w->hold_mark;
		untake(w, pid);
	}
	if (fd < 0)
		return;
	if (v != CT_HOLD_RESTOP_SENT) {
		close(fd);
		return;
	}
	if (w->n_released == (int)(sizeof(w->released) / sizeof(w->released[0])))
		ct_watcher_recheck(w, true);
	w->released[w->n_released++] = (struct ct_released){ fd, pid, 2, mono_ns() + 20000000ull };
}

void ct_watcher_recheck(struct ct_watcher *w, bool all)
{
	uint64_t now = mono_ns();
	int i, kept = 0;

	if (w->stuck.n)
		ct_hold_release(&w->stuck, all ? 1000 : 0);
	for (i = 0; i < w->n_released; i++) {
		struct ct_released r = w->released[i];
		int stopped;

		if (r.due_ns > now && !all) {
			w->released[kept++] = r;
			continue;
		}
		if (r.due_ns > now && r.checks == 2) { /* the end: the first look only is waited for */
			nanosleep(&(struct timespec){ 0, (long)(r.due_ns - now) }, NULL);
			now = mono_ns();
		}
		/* Read by pid, signalled through the pidfd: if the task is gone and its
		 * pid is another's, the state read is the other's, and the signal fails. */
		stopped = proc_stopped(r.pid);
		if (stopped == 1 && !syscall(SYS_pidfd_send_signal, r.pidfd, SIGCONT, NULL, 0))
			w->continued_again++;
		if (stopped >= 0 && --r.checks && !all) { /* and again a second on: a loaded machine */
			r.due_ns = now + 1000000000ull;
			w->released[kept++] = r;
			continue;
		}
		close(r.pidfd);
	}
	w->n_released = kept;
}

void ct_watcher_detach(struct ct_watcher *w)
{
	uint64_t again = 0, lost = 0, unsent = 0, kept = 0;

	if (w->n_links) {
		bpf_map_lookup_elem(hold_fd(w), &(uint32_t){ CT_HOLD_KEPT }, &kept);
		bpf_map_lookup_elem(hold_fd(w), &(uint32_t){ CT_HOLD_RESTOPPED }, &again);
		bpf_map_lookup_elem(hold_fd(w), &(uint32_t){ CT_HOLD_LOST }, &lost);
		bpf_map_lookup_elem(hold_fd(w), &(uint32_t){ CT_HOLD_UNSENT }, &unsent);
	}
	/* The ring full: a task that opened a runtime then ran on unheld. */
	if (unsent)
		ct_warn("watcher: %llu event%s lost (its ring was full): a process that loaded a runtime "
			"or ran a program then was not held until its probes were in place, and its first "
			"calls may be missed", (unsigned long long)unsent, CT_S(unsent));
	/* Another tracer's (a system-wide one checks every new executable), a
	 * user's kill -CONT: said, since the trace is whole only for `again`. */
	if (again)
		ct_info("watcher: %llu task%s continued by another process before %s probes were in place: "
			"stopped again until they were", (unsigned long long)again, CT_S(again),
			ct_plural(again, "its", "their"));
	if (kept)
		ct_info("watcher: %llu SIGCONT%s from another process to a task held under ptrace before "
			"its probes were in place: kept stopped until they were, delivered after",
			(unsigned long long)kept, CT_S(kept));
	if (lost)
		ct_warn("watcher: %llu task%s continued by another process before %s probes were in place "
			"(this kernel cannot stop %s again: no bpf_send_signal_task): %s first calls may be missed",
			(unsigned long long)lost, ct_plural(lost, " was", "s were"), ct_plural(lost, "its", "their"),
			ct_plural(lost, "it", "them"), ct_plural(lost, "its", "their"));
	for (int i = w->n_links - 1; i >= 0; i--)
		bpf_link__destroy(w->links[i]);
	w->n_links = 0;
}

void ct_watcher_close(struct ct_watcher *w)
{
	ct_watcher_detach(w);
	ct_watcher_recheck(w, true);
	if (w->stuck.n)
		ct_warn("watcher: %d thread%s held under ptrace could not be detached (inside a system call "
			"that does not end): detached when cudatracer exits", w->stuck.n, CT_S(w->stuck.n));
	if (w->taken)
		ct_info("watcher: %llu task%s held under ptrace, seized %llu us after %s stop on average, "
			"%llu us at most", (unsigned long long)w->taken, CT_S(w->taken),
			(unsigned long long)(w->taken_ns / w->taken / 1000), ct_plural(w->taken, "its", "their"),
			(unsigned long long)w->taken_max_ns / 1000);
	if (w->untaken)
		ct_info("watcher: %llu task%s held by %s SIGSTOP alone (another process traces %s, or "
			"ptrace was refused): a SIGCONT from another process could end %s hold early",
			(unsigned long long)w->untaken, CT_S(w->untaken), ct_plural(w->untaken, "its", "their"),
			ct_plural(w->untaken, "it", "them"), ct_plural(w->untaken, "its", "their"));
	ct_hold_free(&w->hold);
	ct_hold_free(&w->stuck);
	if (w->continued_again)
		ct_info("watcher: %llu task%s found stopped after %s release, with no tracer holding %s: "
			"continued again", (unsigned long long)w->continued_again,
			CT_S(w->continued_again), ct_plural(w->continued_again, "its", "their"),
			ct_plural(w->continued_again, "it", "them"));
	bpf_object__close(w->obj);
	memset(w, 0, sizeof(*w));
}
