/* SPDX-License-Identifier: MIT */
/*
 * A small open-addressing hash map from uint64_t keys to pointers, for the
 * sinks that keep state per process, per thread, per API or per pointer.
 * Linear probing with backward-shift deletion, so there are no tombstones
 * and a map that sees many allocs and frees does not slowly fill up.
 */
#ifndef CT_U64MAP_H
#define CT_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct ct_u64map {
	uint64_t *keys;
	void **vals;   /* NULL marks an empty slot: values must not be NULL */
	size_t cap;    /* a power of two, or 0 */
	size_t n;
};

void *ct_u64map_get(const struct ct_u64map *m, uint64_t key);
/* Insert or replace. Returns 0 or -ENOMEM. */
int ct_u64map_put(struct ct_u64map *m, uint64_t key, void *val);
/* Remove and return the value, or NULL if the key is not there. */
void *ct_u64map_del(struct ct_u64map *m, uint64_t key);
/* Iterate: for (size_t i = 0; ct_u64map_next(m, &i, &k, &v); ) ... */
int ct_u64map_next(const struct ct_u64map *m, size_t *it, uint64_t *key, void **val);
/* Free the table, not the values. */
void ct_u64map_free(struct ct_u64map *m);
/* Free each value with `fn` (free() for plain allocations), then the table. */
void ct_u64map_free_all(struct ct_u64map *m, void (*fn)(void *));

#endif
