// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include "util/pidmap.h"

static void free_proc(void *m)
{
	ct_u64map_free_all(m, free);
	free(m);
}

void *ct_pidmap_get(const struct ct_pidmap *m, uint32_t pid, uint64_t key)
{
	struct ct_u64map *p = ct_u64map_get(&m->procs, pid);

	return p ? ct_u64map_get(p, key) : NULL;
}

int ct_pidmap_put(struct ct_pidmap *m, uint32_t pid, uint64_t key, void *val)
{
	struct ct_u64map *p = ct_u64map_get(&m->procs, pid);
	void *old;
	int err;

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		err = ct_u64map_put(&m->procs, pid, p);
		if (err) {
			free(p);
			return err;
		}
	}
	old = ct_u64map_get(p, key);
	err = ct_u64map_put(p, key, val);
	if (err)
		return err;
	if (old != val)
		free(old);
	return 0;
}

size_t ct_pidmap_count(const struct ct_pidmap *m, uint32_t pid)
{
	const struct ct_u64map *p = ct_u64map_get(&m->procs, pid);

	return p ? p->n : 0;
}

void ct_pidmap_forget(struct ct_pidmap *m, uint32_t pid)
{
	struct ct_u64map *p = ct_u64map_del(&m->procs, pid);

	if (p)
		free_proc(p);
}

void ct_pidmap_reset(struct ct_pidmap *m)
{
	ct_u64map_free_all(&m->procs, free_proc);
}
