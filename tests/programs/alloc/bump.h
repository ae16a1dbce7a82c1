/* SPDX-License-Identifier: MIT */
/*
 * The stand-in runtimes' allocator (tests/programs/alloc): addresses and
 * handles handed out in order from a base of the runtime's own, 1 MiB
 * apart, never reused; a pitch is the width rounded up to 512 bytes, as the
 * runtimes align rows. Nothing is really allocated.
 */
#ifndef CT_TEST_ALLOC_BUMP_H
#define CT_TEST_ALLOC_BUMP_H

#include <stddef.h>
#include <stdint.h>

static uintptr_t bump_next;

static inline uintptr_t bump(uintptr_t base)
{
	if (!bump_next)
		bump_next = base;
	bump_next += 1u << 20;
	return bump_next;
}

static inline size_t pitch_of(size_t width)
{
	return (width + 511) / 512 * 512;
}

#endif
