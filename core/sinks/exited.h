/* SPDX-License-Identifier: MIT */
/*
 * The processes that have ended, oldest first, for a sink that keeps a
 * table per process (summary, memory, html). A daemon sees thousands of
 * short processes; each one's tables stay only while fewer than `keep` have
 * ended after it. Past that the sink folds the oldest into its totals, or
 * drops it, and counts it, so that memory is bounded by `keep` processes
 * plus the live ones.
 */
#ifndef CT_EXITED_H
#define CT_EXITED_H

#include <stdint.h>
#include <stddef.h>

/* The key every such sink has, into a uint64_t field of its context. */
#define CT_KEEP_EXITED_KEY(ctx, field)                                                           \
	{ "keep_exited", CT_KEY_U64, "1000", offsetof(ctx, field),                               \
	  "Processes that have ended whose own tables are kept; past it the oldest are folded "  \
	  "into one row of ended processes (a daemon sees thousands); 0: keep all" }

struct ct_exited {
	uint32_t *pids; /* a ring of the ended pids kept, oldest at `head` */
	size_t head, n, cap;
	uint64_t folded; /* ended processes past `keep`, no longer kept apart */
};

/*
 * `pid` has ended. Returns the pid that must now be folded (the oldest kept,
 * once `keep` are), or 0: none. keep 0 keeps all and remembers nothing.
 * Out of memory, the new one is returned to be folded at once.
 */
uint32_t ct_exited_note(struct ct_exited *e, uint32_t pid, uint64_t keep);
void ct_exited_free(struct ct_exited *e);

struct ct_apistats;
struct ct_kernstats;
struct ct_gpustats;
/* What the summary and html sinks share at a process's exit: one with no
 * figures there (none of its calls reached the sink) is not kept apart;
 * else it is noted (ct_exited_note), and the oldest past `keep` joins the
 * ended row (ct_apistats_fold), its kernels and GPU rows dropped. Returns
 * the pid folded, for the sink's own tables; 0: none (or out of memory,
 * that process kept whole). */
uint32_t ct_exited_end(struct ct_exited *e, uint64_t keep, struct ct_apistats *st, struct ct_kernstats *kern,
		       struct ct_gpustats *gpu, uint32_t pid);

#endif
