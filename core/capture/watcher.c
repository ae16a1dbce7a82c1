// SPDX-License-Identifier: MIT
/* Loads and attaches bpf/watch.bpf.c (see there for what it does). */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include "record.h"
#include "watch_event.h"
#include "capture/bpfutil.h"
#include "util/log.h"
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
	err = bpf_object__load(w->obj);
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

void ct_watcher_release(struct ct_watcher *w, pid_t pid)
{
	uint32_t key = pid;

	bpf_map_delete_elem(bpf_map__fd(bpf_object__find_map_by_name(w->obj, "held")), &key);
}

void ct_watcher_detach(struct ct_watcher *w)
{
	uint64_t again = 0, lost = 0, unsent = 0;

	if (w->n_links) {
		bpf_map_lookup_elem(hold_fd(w), &(uint32_t){ CT_HOLD_RESTOPPED }, &again);
		bpf_map_lookup_elem(hold_fd(w), &(uint32_t){ CT_HOLD_LOST }, &lost);
		bpf_map_lookup_elem(hold_fd(w), &(uint32_t){ CT_HOLD_UNSENT }, &unsent);
	}
	/* The ring full: a task that opened a runtime then ran on unheld. */
	if (unsent)
		ct_warn("watcher: %llu event%s lost (its ring was full): a process that loaded a runtime "
			"or ran a program then was not held until its probes were in place, and its first "
			"calls may be missed", (unsigned long long)unsent, unsent > 1 ? "s" : "");
	/* Another tracer's (a system-wide one checks every new executable), a
	 * user's kill -CONT: said, since the trace is whole only for `again`. */
	if (again)
		ct_info("watcher: %llu task%s continued by another process before %s probes were in place: "
			"stopped again until they were", (unsigned long long)again, again > 1 ? "s" : "",
			again > 1 ? "their" : "its");
	if (lost)
		ct_warn("watcher: %llu task%s continued by another process before %s probes were in place "
			"(this kernel cannot stop %s again: no bpf_send_signal_task): %s first calls may be missed",
			(unsigned long long)lost, lost > 1 ? "s were" : " was", lost > 1 ? "their" : "its",
			lost > 1 ? "them" : "it", lost > 1 ? "their" : "its");
	for (int i = w->n_links - 1; i >= 0; i--)
		bpf_link__destroy(w->links[i]);
	w->n_links = 0;
}

void ct_watcher_close(struct ct_watcher *w)
{
	ct_watcher_detach(w);
	bpf_object__close(w->obj);
	memset(w, 0, sizeof(*w));
}
