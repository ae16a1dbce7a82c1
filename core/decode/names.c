// SPDX-License-Identifier: MIT
/* Names by handle: per process, a malloc'd (demangled) name per handle. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/demangle.h"
#include "decode/decode.h"
#include "decode/names.h"
#include "util/pidmap.h"

static struct ct_pidmap names;
static uint64_t dropped; /* names not kept: their process had CT_NAMES_PER_PROC */

/* A thread's last unnamed launch made inside another plugin's call, by tid:
 * bounded, a slot shared by two threads keeps the later one. */
struct orphan {
	uint32_t pid, tid;
	uint64_t handle, start, end; /* CLOCK_MONOTONIC */
	const char *parent_api;      /* a plugin table's symbol: lives as long as the session */
};
static struct orphan orphans[64];

int ct_names_put(uint32_t pid, uint64_t handle, const char *name)
{
	char *copy;
	int err;

	if (!name || !*name)
		return -EINVAL;
	/* A handle named again takes its old place; a new one needs room. */
	if (!ct_names_get(pid, handle) && ct_pidmap_count(&names, pid) >= CT_NAMES_PER_PROC) {
		dropped++;
		return -ENOSPC;
	}
	copy = ct_name_keep(name, SIZE_MAX);
	if (!copy)
		return -ENOMEM;
	err = ct_pidmap_put(&names, pid, handle, copy);
	if (err)
		free(copy);
	return err;
}

uint64_t ct_names_dropped(void)
{
	return dropped;
}

const char *ct_names_get(uint32_t pid, uint64_t handle)
{
	return ct_pidmap_get(&names, pid, handle);
}

void ct_names_from_parent(const struct ct_event *ev)
{
	const struct ct_field *k = ct_event_role(ev, CT_ROLE_KERNEL);
	struct orphan *o = &orphans[ev->tid % (sizeof(orphans) / sizeof(orphans[0]))];
	uint64_t end = ev->mono_ns + ev->dur_ns;

	if (!k || !k->valid || !k->v || ev->entry_only)
		return;
	if (!k->str) {
		if (ev->parent_api)
			*o = (struct orphan){ ev->pid, ev->tid, k->v, ev->mono_ns, end, ev->parent_api };
		return;
	}
	if (o->parent_api && o->pid == ev->pid && o->tid == ev->tid && !strcmp(o->parent_api, ev->api->symbol) &&
	    ev->mono_ns <= o->start && o->end <= end && !ct_names_get(o->pid, o->handle))
		ct_names_put(o->pid, o->handle, k->str);
	if (o->tid == ev->tid)
		*o = (struct orphan){ 0 };
}

void ct_names_forget(uint32_t pid)
{
	for (size_t i = 0; i < sizeof(orphans) / sizeof(orphans[0]); i++)
		if (orphans[i].pid == pid)
			orphans[i] = (struct orphan){ 0 };
	ct_pidmap_forget(&names, pid);
}

void ct_names_reset(void)
{
	memset(orphans, 0, sizeof(orphans));
	ct_pidmap_reset(&names);
	dropped = 0;
}
