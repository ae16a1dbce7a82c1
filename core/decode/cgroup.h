/* SPDX-License-Identifier: MIT */
/*
 * Who a call's cgroup is: the cgroup v2 id the engine took
 * (bpf_get_current_cgroup_id: the inode number of the cgroup's directory on
 * cgroup2fs) as its path under the v2 root, and from that path the
 * container and the Kubernetes pod it belongs to, where the path has the
 * shape a runtime gives it (docs/events.md lists them). Ids are resolved
 * once and cached, found or not; not thread-safe: the poll loop is the
 * only user.
 */
#ifndef CT_CGROUP_H
#define CT_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <cudatracer/event.h>

#define CT_CONTAINER_ID_LEN 64 /* hex digits of a docker, containerd, cri-o or podman id */
#define CT_POD_UID_LEN 36      /* 8-4-4-4-12 */
/* Cgroups kept at once; past it the cache starts again (ids stay unique). */
#define CT_CGROUP_CACHE 4096

/* What a cgroup path says; "" where it says nothing. */
struct ct_cgroup_ids {
	char container[CT_CONTAINER_ID_LEN + 1];
	char pod[CT_POD_UID_LEN + 1];
};

/*
 * The container and pod a cgroup v2 path names: where it begins with a
 * path a runtime or the kubelet makes at the cgroup root (cgroup.c's
 * table); the same shape deeper down, where a user may name directories,
 * names nothing. Pure: for the tests.
 */
void ct_cgroup_parse(const char *path, struct ct_cgroup_ids *out);

/*
 * The cgroup of this id: resolved at its first look-up (NULL for id 0).
 * One that cannot be resolved (removed since the call, or no cgroup v2
 * mounted) is kept with path NULL, said once at -v. Valid until the next
 * look-up: a caller copies what it keeps.
 */
const struct ct_cgroup *ct_cgroup_get(uint64_t id);

/* A process's cgroup v2 as /proc/PID/cgroup said when first asked
 * (aggregate mode has no records to carry it), remembered past its exit;
 * NULL when it had exited before, or there is none. */
const struct ct_cgroup *ct_cgroup_of_pid(uint32_t pid);

/*
 * --cgroup PATH: the directory, opened once and checked on that descriptor
 * (a directory on cgroup2fs). Returns the descriptor, or a negative errno
 * after saying what is wrong with PATH.
 */
int ct_cgroup_dir_open(const char *path);

void ct_cgroup_reset(void);

#endif
