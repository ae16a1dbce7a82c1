// SPDX-License-Identifier: MIT
/*
 * The GPU activity source: bpf/gpu.bpf.c on the entry of the injection
 * library's ct_gpu_batch(), sharing the capture engine's ring and the
 * watcher's pid map. A uprobe is set on the file, so every process of the
 * session that loads the library later is probed from its first batch.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "wire.h"
#include "capture/bpfutil.h"
#include "plugin/trust.h"
#include "util/log.h"
#include "gpu.skel.h"
#include "capture/gpu.h"
#include "capture/ownlib.h"
#include "util/procfs.h"
#include <dlfcn.h>

#define INJECT_NAME "libcudatracer-inject.so"

/*
 * The library is loaded into the command, which runs as we do: running as
 * root it must be trusted as a plugin is (the file and every folder on the
 * way root's, writable by nobody else), so that no other user can put code
 * there or swap it before the driver opens the same path.
 */
int ct_gpu_trust_library(const char *path, const char *what)
{
	char why[PATH_MAX + 128];
	int fd = ct_trusted_open(path, ct_trust_privileged(), why, sizeof(why));

	if (fd < 0) {
		ct_err("%s: refusing the injection library %s: %s", what, path,
		       fd == -EPERM || fd == -EINVAL ? why : strerror(-fd));
		return fd;
	}
	close(fd);
	return 0;
}

int ct_gpu_find_library(struct ct_gpu_source *g, const char *conf_path)
{
	char where[3 * PATH_MAX + 16];

	if (conf_path && *conf_path) {
		if (access(conf_path, R_OK)) {
			ct_err("tracer.inject_library %s: %s", conf_path, strerror(errno));
			return -ENOENT;
		}
		snprintf(g->path, sizeof(g->path), "%s", conf_path);
		return ct_gpu_trust_library(g->path, "--gpu-activity");
	}
	if (!ct_ownlib_find(INJECT_NAME, g->path))
		return ct_gpu_trust_library(g->path, "--gpu-activity");
	ct_ownlib_where(where, sizeof(where));
	ct_err("--gpu-activity: no " INJECT_NAME " in %s (set tracer.inject_library)", where);
	return -ENOENT;
}

int ct_gpu_source_open(struct ct_gpu_source *g, int ring_fd, int wake_fd, uint64_t wakeup_bytes, int pids_fd,
		       bool filter_pids)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = CT_GPU_BATCH_SYMBOL);
	int err;

	g->skel = gpu_bpf__open();
	if (!g->skel)
		return -errno;
	g->skel->rodata->ct_filter_pids = filter_pids;
	g->skel->rodata->ct_wakeup_bytes = wakeup_bytes;
	if ((err = bpf_map__reuse_fd(g->skel->maps.events, ring_fd)) ||
	    (err = bpf_map__reuse_fd(g->skel->maps.wake, wake_fd)) ||
	    (pids_fd >= 0 && (err = bpf_map__reuse_fd(g->skel->maps.pids, pids_fd))) ||
	    (err = ct_bpf_load_quiet(g->skel->skeleton))) {
		ct_err("loading the GPU activity probe failed: %s (run with -v to see the verifier's log)",
		       strerror(-err));
		return err;
	}
	g->link = bpf_program__attach_uprobe_opts(g->skel->progs.ct_gpu_batch_entry, -1, g->path, 0, &uo);
	if (!g->link) {
		err = -errno;
		ct_err("cannot probe %s in %s: %s", CT_GPU_BATCH_SYMBOL, g->path, strerror(-err));
		return err;
	}
	if (!g->entered)
		ct_info("GPU activity: %s injected at cuInit (CUDA_INJECTION64_PATH)", g->path);
	return 0;
}

int ct_gpu_source_stats(const struct ct_gpu_source *g, uint64_t *out)
{
	return ct_bpf_percpu_sum(bpf_map__fd(g->skel->maps.gpu_stats), CT_GPU_STAT_MAX, out);
}

void ct_gpu_source_close(struct ct_gpu_source *g)
{
	if (g->entered)
		ct_remote_close(&g->remote);
	g->entered = 0;
	bpf_link__destroy(g->link);
	gpu_bpf__destroy(g->skel);
	g->link = NULL;
	g->skel = NULL;
}

/* ---- a running process (docs/gpu.md) ---- */

#define ATTACH_TIMEOUT_MS 15000 /* dlopen, then CUPTI's start on a busy process */
#define DETACH_TIMEOUT_MS 5000

/* Whether the process maps a file whose name contains `part`. */
static bool maps_file(pid_t pid, const char *part)
{
	char *maps = ct_proc_read((uint32_t)pid, "maps", 64u << 20, NULL);
	bool yes = maps && strstr(maps, part);

	free(maps);
	return yes;
}

int ct_gpu_attach_check(struct ct_gpu_source *g, pid_t pid)
{
	char why[512] = "", seen[PATH_MAX + 32];
	struct stat ours, theirs;
	int err;

	if (!maps_file(pid, "/libcuda.so") && !maps_file(pid, "/libcudart.so")) {
		ct_err("--gpu-activity -p %d: the process has not loaded CUDA (no libcuda.so or libcudart.so "
		       "mapped): nothing to take GPU activity from",
		       (int)pid);
		return -ENOEXEC;
	}
	/* The path must name the same file in the process's mount namespace (a container sees its own). */
	snprintf(seen, sizeof(seen), "/proc/%d/root%s", (int)pid, g->path);
	if (stat(g->path, &ours) || stat(seen, &theirs) || ours.st_dev != theirs.st_dev ||
	    ours.st_ino != theirs.st_ino) {
		ct_err("--gpu-activity -p %d: the process does not see %s as the tracer does (it runs in "
		       "another mount namespace, a container): the library cannot be loaded into it",
		       (int)pid, g->path);
		return -ENOENT;
	}
	err = ct_remote_open(&g->remote, pid, why, sizeof(why));
	if (err) {
		ct_err("--gpu-activity -p %d: the library cannot be brought into the process safely: %s", (int)pid, why);
		return err;
	}
	g->entered = pid;
	return 0;
}

static int enter(struct ct_gpu_source *g, char *why, size_t n)
{
	uint64_t fn = 0, ret = 0, flags;
	int err;

	if (!maps_file(g->entered, g->path)) {
		err = ct_remote_call(&g->remote, g->remote.dlopen_fn, g->path, 0, RTLD_NOW | RTLD_LOCAL,
				     ATTACH_TIMEOUT_MS, &ret, why, n);
		if (err)
			return err;
		if (!ret) {
			char said[256] = "";

			if (g->remote.dlerror_fn &&
			    !ct_remote_call(&g->remote, g->remote.dlerror_fn, NULL, 0, 0, DETACH_TIMEOUT_MS, &ret, why,
					    n) &&
			    ret)
				ct_remote_read_str(&g->remote, ret, said, sizeof(said));
			snprintf(why, n, "dlopen(%s) in the process failed: %s", g->path, said[0] ? said : "(no reason given)");
			return -ENOEXEC;
		}
	}
	if ((err = ct_remote_sym(&g->remote, g->path, "ct_inject_attach", &fn))) {
		snprintf(why, n, "%s is not mapped in the process after its dlopen, or lacks ct_inject_attach", g->path);
		return err;
	}
	/* CUDATRACER_BENCH_GPU_RECORDS: records left out, to measure each kind's cost (inject.c). */
	flags = getenv("CUDATRACER_BENCH_GPU_RECORDS") ? strtoul(getenv("CUDATRACER_BENCH_GPU_RECORDS"), NULL, 0) : 0;
	err = ct_remote_call(&g->remote, fn, NULL, flags, 0, ATTACH_TIMEOUT_MS, &ret, why, n);
	if (err)
		return err;
	if ((int)ret) {
		snprintf(why, n, "the library could not start CUPTI in the process (its message says why)");
		return -EIO;
	}
	return 0;
}

int ct_gpu_attach(struct ct_gpu_source *g, char *why, size_t n)
{
	int err = enter(g, why, n);

	/* Not started: nothing to turn off at the end. A call past its time may still start it. */
	if (err && err != -ETIME) {
		ct_remote_close(&g->remote);
		g->entered = 0;
	}
	return err;
}

void ct_gpu_detach(struct ct_gpu_source *g)
{
	char why[512] = "";
	uint64_t fn = 0, ret = 0;
	int err;

	if (!g->entered)
		return;
	err = ct_remote_sym(&g->remote, g->path, "ct_inject_detach", &fn);
	if (!err)
		err = ct_remote_call(&g->remote, fn, NULL, 0, 0, DETACH_TIMEOUT_MS, &ret, why, sizeof(why));
	if (err && err != -ENOENT && err != -ESRCH)
		ct_warn("--gpu-activity: could not turn CUPTI's records off in process %d: %s; its records stop "
			"reaching anyone, CUPTI still collects them (the process goes on)",
			(int)g->entered, why);
	ct_remote_close(&g->remote);
	g->entered = 0;
}
