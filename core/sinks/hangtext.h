/* SPDX-License-Identifier: MIT */
/*
 * A hang (event.h's struct ct_hang) said on stderr while it happens: the
 * call, its process, thread, rank and communicator, the rank behind, its
 * arguments and its stacks, one line each (log.h escapes them).
 */
#ifndef CT_HANGTEXT_H
#define CT_HANGTEXT_H

#include <cudatracer/event.h>

/* Native and Python frames said on stderr, at most this many of each. */
#define CT_HANG_FRAMES_SAID 16
/* Reports said on stderr in a second at most (10,000 threads stuck at once
 * would be 200,000 lines); the others are counted and the count said with
 * the next report said. The sinks get every one. */
#define CT_HANG_SAID_PER_SEC 16

void ct_hang_say(const struct ct_hang *h);
/* "stuck", "ended", "gone": the jsonl state and the span attribute. */
const char *ct_hang_state_name(enum ct_hang_state s);

#endif
