// SPDX-License-Identifier: MIT
/* The ended processes a sink keeps apart: see exited.h. */
#include <stdlib.h>
#include "sinks/apistats.h"
#include "sinks/exited.h"
#include "sinks/gpustats.h"
#include "sinks/kernstats.h"

uint32_t ct_exited_note(struct ct_exited *e, uint32_t pid, uint64_t keep)
{
	uint32_t oldest = 0;

	if (!keep)
		return 0;
	/* A pid taken again (pid_max wraps in seconds under a burst) whose
	 * earlier process is still kept: one row stands for both, so the pid
	 * moves to the end instead of being kept twice (twice, the second fold
	 * found it gone, and fewer than `keep` were kept apart). */
	for (size_t i = 0; i < e->n; i++) {
		if (e->pids[(e->head + i) % e->cap] != pid)
			continue;
		for (; i + 1 < e->n; i++)
			e->pids[(e->head + i) % e->cap] = e->pids[(e->head + i + 1) % e->cap];
		e->n--;
		break;
	}
	if (e->n >= keep) { /* the oldest leaves to make room */
		oldest = e->pids[e->head];
		e->head = (e->head + 1) % e->cap;
		e->n--;
		e->folded++;
	}
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 64;
		uint32_t *v = malloc(cap * sizeof(*v));

		if (!v) { /* not kept apart: folded now, after the one that left */
			e->folded++;
			return oldest ? oldest : pid;
		}
		/* unrolled so that the oldest is at 0 again */
		for (size_t i = 0; i < e->n; i++)
			v[i] = e->pids[(e->head + i) % e->cap];
		free(e->pids);
		e->pids = v;
		e->head = 0;
		e->cap = cap;
	}
	e->pids[(e->head + e->n++) % e->cap] = pid;
	return oldest;
}

void ct_exited_free(struct ct_exited *e)
{
	free(e->pids);
	*e = (struct ct_exited){ 0 };
}

uint32_t ct_exited_end(struct ct_exited *e, uint64_t keep, struct ct_apistats *st, struct ct_kernstats *kern,
		       struct ct_gpustats *gpu, uint32_t pid)
{
	uint32_t fold;

	if (!ct_u64map_get(&st->procs, pid))
		return 0;
	fold = ct_exited_note(e, pid, keep);
	if (!fold || ct_apistats_fold(st, fold))
		return 0;
	ct_kernstats_drop_pid(kern, fold);
	ct_gpustats_drop_pid(gpu, fold);
	return fold;
}
