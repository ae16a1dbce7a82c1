/* SPDX-License-Identifier: MIT */
/*
 * The GPU activity source (--gpu-activity, docs/gpu.md): the injection
 * library the command's CUDA driver loads, and the probe on its
 * ct_gpu_batch() that copies each batch into the session's ring.
 */
#ifndef CT_CAPTURE_GPU_H
#define CT_CAPTURE_GPU_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "gpu_chunk.h"
#include "capture/remote.h"

struct gpu_bpf;
struct bpf_link;

struct ct_gpu_source {
	struct gpu_bpf *skel;
	struct bpf_link *link;
	char path[PATH_MAX]; /* the injection library */
	/* -p: the running process the library was brought into (0: none). */
	pid_t entered;
	struct ct_remote remote;
};

/*
 * Find libcudatracer-inject.so: `conf_path` if set, else where the tracer's
 * own libraries are (capture/ownlib.h). 0 or -ENOENT
 * (said, with where it looked).
 */
/* A library put into the command (the injection, the NVTX injection):
 * running as root, one that another user could write is refused, said
 * with `what` (the option that wants it). */
int ct_gpu_trust_library(const char *path, const char *what);
int ct_gpu_find_library(struct ct_gpu_source *g, const char *conf_path);
/* Load the probe into the engine's ring (its fd) and the watcher's pid map; attach it. */
int ct_gpu_source_open(struct ct_gpu_source *g, int ring_fd, int wake_fd, uint64_t wakeup_bytes, int pids_fd,
		       bool filter_pids);
/* Its counters (enum ct_gpu_stat), summed over CPUs. */
int ct_gpu_source_stats(const struct ct_gpu_source *g, uint64_t *out);
void ct_gpu_source_close(struct ct_gpu_source *g);

/*
 * --gpu-activity -p PID: whether the library can be brought into the
 * running process safely (why not, said); then bringing it in and starting
 * CUPTI there (0, or -errno with the reason in `why`); at the end, turning
 * its records off and flushing them, bounded, the library left loaded.
 */
int ct_gpu_attach_check(struct ct_gpu_source *g, pid_t pid);
int ct_gpu_attach(struct ct_gpu_source *g, char *why, size_t n);
void ct_gpu_detach(struct ct_gpu_source *g);

#endif
