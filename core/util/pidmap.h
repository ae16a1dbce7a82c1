/* SPDX-License-Identifier: MIT */
/*
 * Values by (pid, key): a map from pid to a map from key to a malloc'd
 * value, so that forgetting a process frees only its own. For the decoder's
 * state kept per process and handle (names.c, comms.c). Not thread-safe.
 */
#ifndef CT_PIDMAP_H
#define CT_PIDMAP_H

#include <stdint.h>
#include "util/u64map.h"

struct ct_pidmap {
	struct ct_u64map procs; /* pid -> struct ct_u64map * (key -> value) */
};

void *ct_pidmap_get(const struct ct_pidmap *m, uint32_t pid, uint64_t key);
/* Insert or replace; the value replaced is freed. 0 or -ENOMEM (val not taken). */
int ct_pidmap_put(struct ct_pidmap *m, uint32_t pid, uint64_t key, void *val);
/* How many values process `pid` has. */
size_t ct_pidmap_count(const struct ct_pidmap *m, uint32_t pid);
/* Free a process's values. */
void ct_pidmap_forget(struct ct_pidmap *m, uint32_t pid);
/* Free everything. */
void ct_pidmap_reset(struct ct_pidmap *m);

#endif
