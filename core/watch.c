// SPDX-License-Identifier: MIT
/* Loads and attaches bpf/watch.bpf.c (see there for what it does). */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <cudatracer/record.h>
#include "../bpf/watch.h"
#include "bpfutil.h"
#include "log.h"
#include "watch.h"

extern const char ct_bpf_watch_start[], ct_bpf_watch_end[];

static const char *const progs[] = { "ct_fork", "ct_exit", "ct_exec", "ct_sys_enter", "ct_sys_exit" };

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
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(w->obj, progs[i]);
		struct bpf_link *l = p ? bpf_program__attach(p) : NULL;

		if (!l) {
			err = -errno;
			ct_err("attaching the watcher's %s program failed: %s (the kernel needs BTF-enabled tracepoints)",
			       progs[i], strerror(-err));
			return err;
		}
		w->links[w->n_links++] = l;
	}
	return 0;
}

int ct_watcher_pids_fd(struct ct_watcher *w)
{
	return bpf_map__fd(bpf_object__find_map_by_name(w->obj, "pids"));
}

int ct_watcher_callstack_fd(struct ct_watcher *w)
{
	return bpf_map__fd(bpf_object__find_map_by_name(w->obj, "callstack"));
}

int ct_watcher_events_fd(struct ct_watcher *w)
{
	return bpf_map__fd(bpf_object__find_map_by_name(w->obj, "watch_events"));
}

int ct_watcher_add_pid(struct ct_watcher *w, pid_t pid)
{
	uint32_t key = pid, one = 1;

	return bpf_map_update_elem(ct_watcher_pids_fd(w), &key, &one, BPF_ANY) ? -errno : 0;
}

void ct_watcher_detach(struct ct_watcher *w)
{
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
