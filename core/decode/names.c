// SPDX-License-Identifier: MIT
/*
 * Names by handle: a map from pid to a map from handle to a malloc'd name.
 * Two levels so that forgetting a process drops only its own names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/symbolizer.h"
#include "decode/names.h"
#include "util/u64map.h"

static struct ct_u64map procs; /* pid -> struct ct_u64map * (handle -> char *) */

static void free_proc(struct ct_u64map *m)
{
	uint64_t key;
	void *val;

	for (size_t it = 0; ct_u64map_next(m, &it, &key, &val);)
		free(val);
	ct_u64map_free(m);
	free(m);
}

int ct_names_put(uint32_t pid, uint64_t handle, const char *name)
{
	struct ct_u64map *m = ct_u64map_get(&procs, pid);
	char *copy, *old;
	int err;

	if (!name || !*name)
		return -EINVAL;
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return -ENOMEM;
		err = ct_u64map_put(&procs, pid, m);
		if (err) {
			free(m);
			return err;
		}
	}
	copy = ct_demangle(name);
	if (!copy)
		copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	old = ct_u64map_get(m, handle);
	err = ct_u64map_put(m, handle, copy);
	if (err) {
		free(copy);
		return err;
	}
	free(old);
	return 0;
}

const char *ct_names_get(uint32_t pid, uint64_t handle)
{
	struct ct_u64map *m = ct_u64map_get(&procs, pid);

	return m ? ct_u64map_get(m, handle) : NULL;
}

void ct_names_forget(uint32_t pid)
{
	struct ct_u64map *m = ct_u64map_del(&procs, pid);

	if (m)
		free_proc(m);
}

void ct_names_reset(void)
{
	uint64_t key;
	void *val;

	for (size_t it = 0; ct_u64map_next(&procs, &it, &key, &val);)
		free_proc(val);
	ct_u64map_free(&procs);
}
