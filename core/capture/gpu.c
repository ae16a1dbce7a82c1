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
#include <unistd.h>
#include "wire.h"
#include "capture/bpfutil.h"
#include "plugin/trust.h"
#include "util/log.h"
#include "gpu.skel.h"
#include "capture/gpu.h"
#include "capture/ownlib.h"

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

int ct_gpu_source_open(struct ct_gpu_source *g, int ring_fd, int pids_fd, bool filter_pids)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = CT_GPU_BATCH_SYMBOL);
	int err;

	g->skel = gpu_bpf__open();
	if (!g->skel)
		return -errno;
	g->skel->rodata->ct_filter_pids = filter_pids;
	if ((err = bpf_map__reuse_fd(g->skel->maps.events, ring_fd)) ||
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
	ct_info("GPU activity: %s injected at cuInit (CUDA_INJECTION64_PATH)", g->path);
	return 0;
}

int ct_gpu_source_stats(const struct ct_gpu_source *g, uint64_t *out)
{
	return ct_bpf_percpu_sum(bpf_map__fd(g->skel->maps.gpu_stats), CT_GPU_STAT_MAX, out);
}

void ct_gpu_source_close(struct ct_gpu_source *g)
{
	bpf_link__destroy(g->link);
	gpu_bpf__destroy(g->skel);
	g->link = NULL;
	g->skel = NULL;
}
