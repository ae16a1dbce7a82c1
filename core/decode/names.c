// SPDX-License-Identifier: MIT
/* Names by handle: per process, a malloc'd (demangled) name per handle. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/symbolizer.h"
#include "decode/names.h"
#include "util/pidmap.h"

static struct ct_pidmap names;

int ct_names_put(uint32_t pid, uint64_t handle, const char *name)
{
	char *copy;
	int err;

	if (!name || !*name)
		return -EINVAL;
	copy = ct_demangle(name);
	if (!copy)
		copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	err = ct_pidmap_put(&names, pid, handle, copy);
	if (err)
		free(copy);
	return err;
}

const char *ct_names_get(uint32_t pid, uint64_t handle)
{
	return ct_pidmap_get(&names, pid, handle);
}

void ct_names_forget(uint32_t pid)
{
	ct_pidmap_forget(&names, pid);
}

void ct_names_reset(void)
{
	ct_pidmap_reset(&names);
}
