/* SPDX-License-Identifier: MIT */
/*
 * --stacks method dwarf: a copy of the top of a thread's stack and its
 * registers (bpf/record.h's struct ct_ustack_slice) unwound from the
 * .eh_frame of the files the process maps, with libdw. libdw reads memory
 * only through the copy and opens no file itself: each module's ELF file
 * is opened by the symbolizer's opener (ct_sym_open_mapped), no separate
 * debug file is looked for. One libdw session per process, kept.
 */
#ifndef CT_UNWIND_H
#define CT_UNWIND_H

#include <stdint.h>
#include <cudatracer/event.h>
#include "record.h"

/*
 * The return addresses of the slice's stack, innermost first (the traced
 * function's own frame left out), at most `max`, into pcs; *end says why
 * the stack ends: CT_FRAME_NATIVE (its outermost frame), CT_FRAME_TRUNCATED
 * (past `max`, or past the copy), CT_FRAME_UNWOUND (no unwind info for a
 * frame: JIT code, a file that could not be read). Returns the count, or
 * a negative errno.
 */
int ct_unwind_slice(const struct ct_ustack_slice *s, uint64_t *pcs, uint32_t max, enum ct_frame_kind *end);

/* Drop a process's session (it exited or called exec), or every one. */
void ct_unwind_forget(uint32_t pid);
void ct_unwind_reset(void);

#endif
