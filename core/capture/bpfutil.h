/* SPDX-License-Identifier: MIT */
#ifndef CT_BPFUTIL_H
#define CT_BPFUTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_object;
struct bpf_object_skeleton;

/* A `const volatile` global of an opened, not yet loaded object, by name and
 * size: where its initial value is; NULL if it has none such. */
void *ct_bpf_const(struct bpf_object *obj, const char *name, size_t sz);
/* Set one. */
int ct_bpf_set_const(struct bpf_object *obj, const char *name, const void *val, size_t sz);
/*
 * Load an opened skeleton (its maps mapped, as its __load does) with the
 * process's signals held back: the verifier
 * gives up with -EAGAIN while a signal is pending (a daemon's SIGHUP each
 * millisecond would fail every load). Those that came meanwhile are
 * delivered once the load returns. A load that still ends in -EAGAIN or
 * -EINTR was interrupted, not refused: ct_bpf_interrupted() tells so.
 */
int ct_bpf_load_quiet(struct bpf_object_skeleton *skel);
/* The same for an object that is not a skeleton's (the watcher's), loaded
 * again up to 5 times while it was interrupted (a skeleton's caller does
 * that: its maps must be made anew). */
int ct_bpf_object_load_quiet(struct bpf_object *obj);
static inline bool ct_bpf_interrupted(int err)
{
	return err == -EAGAIN || err == -EINTR;
}
/* Slots 0 .. n-1 of a per-CPU array of u64 counters (map fd), each summed over CPUs. */
int ct_bpf_percpu_sum(int fd, unsigned n, uint64_t *out);

#endif
