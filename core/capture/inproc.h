/* SPDX-License-Identifier: MIT */
/*
 * --engine inproc, the tracer's side of what goes into the command: the
 * preload libraries (found and trusted as the injection library is), the
 * spec table (the eBPF engine's specs, by the same function), and the
 * check that the command's runtime can be interposed at all.
 */
#ifndef CT_CAPTURE_INPROC_H
#define CT_CAPTURE_INPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>
#include "capture/engine.h"
#include "shm.h"

#define CT_INPROC_CORE "libcudatracer-inproc.so"

/* LD_PRELOAD's value for these plugins (the core library, then one stub
 * library per plugin), or -errno, said why. */
int ct_inproc_preload(const struct ct_engine_plugin *pl, int n, char *out, size_t len);
/* One row per API traced; *specs to free. */
int ct_inproc_specs(const struct ct_engine_plugin *pl, int n, struct ct_shm_spec **specs, uint32_t *n_specs);
/* -EINVAL, said why, if the command's executable links a plugin's runtime in. */
int ct_inproc_check_program(const struct ct_engine_plugin *pl, int n, const char *program);

/*
 * --engine inproc -p PID: always -EINVAL, said why for that process: its
 * interposer is not in it (a preload library enters at exec only), or it
 * is (a command an earlier --engine inproc started) but its ring went with
 * that tracer.
 */
int ct_inproc_refuse_pid(uint32_t pid);

/* Whether pid or one of its ancestors, by /proc's parent links (at most 64
 * up), is known to be of the command's tree. */
bool ct_inproc_in_tree(uint32_t pid, bool (*known)(void *ctx, uint32_t pid), void *ctx);

#endif
