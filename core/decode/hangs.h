/* SPDX-License-Identifier: MIT */
/*
 * Calls in flight that can hang (tracer.hang_timeout, docs/events.md): the
 * engine sends a collective's or a synchronization's record at its entry
 * too (CT_REC_BEGIN), so a call that never returns is seen all the same.
 * Each such call is held, with its stacks (taken at entry) and its
 * communicator, until a record of its thread settles it: its own (it
 * ended), or another at its depth or above (it was left unseen: gone). A
 * check past the timeout reports it as stuck, once; its end is reported
 * once more. Nothing here touches the process.
 *
 * Per communicator, the collectives each rank began (as the ranks this
 * tracer sees tell): a stuck collective names the rank furthest behind.
 *
 * Bounded: at most CT_HANGS_MAX calls held (the ones past it are counted,
 * not watched) and CT_HANGS_RANKS ranks. Not thread-safe: the poll loop is
 * the only user.
 */
#ifndef CT_HANGS_H
#define CT_HANGS_H

#include <stdint.h>
#include <cudatracer/event.h>
#include "util/u64map.h"

#define CT_HANGS_MAX 16384
#define CT_HANGS_RANKS 4096

/* Called for each report; the hang and what it points to live for the call. */
typedef void (*ct_hang_fn)(void *ctx, const struct ct_hang *h);

struct ct_hangs {
	uint64_t timeout_ns;
	int64_t wall_offset;     /* wall clock - CLOCK_MONOTONIC, to date the reports */
	ct_hang_fn report;
	void *ctx;
	struct ct_u64map threads; /* tid -> struct ct_hang_thread * */
	struct ct_u64map ranks;   /* (communicator id, rank) -> struct ct_hang_rank * */
	struct ct_u64map stuck;   /* pid -> calls stuck now, as a pointer-sized count */
	size_t held;
	uint64_t unwatched;       /* calls not held: CT_HANGS_MAX were */
	uint64_t reported;        /* calls reported stuck */
};

void ct_hangs_init(struct ct_hangs *h, uint64_t timeout_ns, int64_t wall_offset, ct_hang_fn report, void *ctx);
/* A begin's stack as the engine sent it (capture/stacks.h's ct_stacks_raw()),
 * kept unnamed: only a call reported is symbolized. */
struct ct_hang_pcs {
	const uint64_t *pcs;
	uint32_t n;
	uint64_t hash;
	enum ct_frame_kind end;
};

/* A decoded record (any): holds a begin (with its stack; NULL: none),
 * settles what its thread held. */
void ct_hangs_note(struct ct_hangs *h, const struct ct_event *ev, const struct ct_hang_pcs *stack);
/* Report the calls in flight past the timeout at `now` (CLOCK_MONOTONIC), once each. */
void ct_hangs_check(struct ct_hangs *h, uint64_t now);
/* A process exited: its calls held are gone (those reported are said so). */
void ct_hangs_proc_exit(struct ct_hangs *h, uint32_t pid, uint64_t now);
/* Calls stuck now, of every process. */
uint64_t ct_hangs_stuck(const struct ct_hangs *h);
void ct_hangs_free(struct ct_hangs *h);

#endif
