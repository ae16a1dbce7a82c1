/* SPDX-License-Identifier: MIT */
/*
 * --stacks, the reader's side (docs/stacks.md): which APIs carry a stack,
 * and the stacks the engine sends (bpf/ustack.bpf.h) turned into the
 * frames an event shows. Method fp: the frames of each stack id arrive
 * once, ahead of the records that name it, and are kept per process and
 * id. Method dwarf: a slice of the stack arrives just before its record,
 * is unwound at once (symbols/unwind.h) and waits for that record.
 * Frames are named by the symbolizer, once per (process, stack).
 */
#ifndef CT_STACKS_H
#define CT_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cudatracer/event.h>
#include "config/config.h"
#include "record.h"
#include "util/u64map.h"

/* Whether calls of this API carry their stack (stacks.apis). */
bool ct_stacks_api_wanted(const struct ct_stacks_conf *c, const struct ct_api *a);
/* Whether a word of stacks.apis names calls by their kind ("alloc", "errors",
 * "all" ...) rather than by a glob of API names; the words, for messages. */
bool ct_stacks_word_known(const char *word);
void ct_stacks_words(char *buf, size_t n);
/* Whether every failing call carries its stack ("errors" or "all" in stacks.apis). */
bool ct_stacks_errors_wanted(const struct ct_stacks_conf *c);

struct ct_stacks {
	struct ct_u64map known;   /* fp: pid << 32 | id -> struct ct_known_stack * */
	struct ct_u64map pending; /* dwarf: tid -> the unwound slice waiting for its record */
	uint64_t stacks;          /* distinct stacks received (fp) */
	uint64_t slices;          /* slices unwound (dwarf) */
	uint64_t unmatched;       /* records naming a stack never received */
	struct ct_known_stack *taken; /* dwarf: the slice ct_stacks_raw() gave last */
};

void ct_stacks_init(struct ct_stacks *st);
/*
 * A ring record that may be one of the engine's stack records: returns 1
 * when it was (kept, or dropped if malformed), 0 when it is not one.
 */
int ct_stacks_take(struct ct_stacks *st, const void *data, size_t len);
/* The stack a call's record names, frames named; NULL: none. */
const struct ct_callstack *ct_stacks_of(struct ct_stacks *st, const struct ct_record *r);
/*
 * The same, its return addresses only, not named (a hang's: named only if
 * it is reported, so that a call that ends in time costs no symbolizing):
 * the count (0: none), and what ct_sym_stack() takes. Valid until the next
 * record.
 */
uint32_t ct_stacks_raw(struct ct_stacks *st, const struct ct_record *r, const uint64_t **pcs, uint64_t *hash,
		       enum ct_frame_kind *end);
void ct_stacks_free(struct ct_stacks *st);

#endif
