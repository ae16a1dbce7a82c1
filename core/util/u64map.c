// SPDX-License-Identifier: MIT
/* Open-addressing uint64 -> pointer map used by the aggregating sinks. */
#include <errno.h>
#include <stdlib.h>
#include "util/u64map.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	/* splitmix64 finaliser: pointers and pids have few random low bits */
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebull;
	key ^= key >> 31;
	return (size_t)key & (cap - 1);
}

void *ct_u64map_get(const struct ct_u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->vals[i])
			return NULL;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static int grow(struct ct_u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	void **vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (size_t j = 0; j < m->cap; j++) {
		size_t i;

		if (!m->vals[j])
			continue;
		for (i = slot_of(m->keys[j], cap); vals[i]; i = (i + 1) & (cap - 1))
			;
		keys[i] = m->keys[j];
		vals[i] = m->vals[j];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int ct_u64map_put(struct ct_u64map *m, uint64_t key, void *val)
{
	size_t i;

	if (!val)
		return -EINVAL;
	/* keep the load under 3/4 so probe runs stay short */
	if ((m->n + 1) * 4 > m->cap * 3) {
		int err = grow(m);

		if (err)
			return err;
	}
	for (i = slot_of(key, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return 0;
}

void *ct_u64map_del(struct ct_u64map *m, uint64_t key)
{
	size_t mask = m->cap - 1, i, j;
	void *val;

	if (!m->cap)
		return NULL;
	for (i = slot_of(key, m->cap);; i = (i + 1) & mask) {
		if (!m->vals[i])
			return NULL;
		if (m->keys[i] == key)
			break;
	}
	val = m->vals[i];
	m->vals[i] = NULL;
	m->n--;
	/* Backward shift: move later members of the run into the hole when
	 * their home slot does not lie cyclically in (hole, j]. */
	for (j = (i + 1) & mask; m->vals[j]; j = (j + 1) & mask) {
		size_t home = slot_of(m->keys[j], m->cap);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->vals[j] = NULL;
			i = j;
		}
	}
	return val;
}

int ct_u64map_next(const struct ct_u64map *m, size_t *it, uint64_t *key, void **val)
{
	for (; *it < m->cap; (*it)++) {
		if (m->vals[*it]) {
			if (key)
				*key = m->keys[*it];
			if (val)
				*val = m->vals[*it];
			(*it)++;
			return 1;
		}
	}
	return 0;
}

void ct_u64map_free_all(struct ct_u64map *m, void (*fn)(void *))
{
	void *val;

	for (size_t it = 0; ct_u64map_next(m, &it, NULL, &val);)
		fn(val);
	ct_u64map_free(m);
}

void ct_u64map_free(struct ct_u64map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}
