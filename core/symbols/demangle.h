/* SPDX-License-Identifier: MIT */
/*
 * C++ names from traced programs, made safe to keep and to write. A mangled
 * name is the traced program's to choose, and a short one can demangle to
 * gigabytes (each back-reference doubles what came before it): every name
 * the tracer keeps, a kernel's, a handle's or a frame's, goes through
 * ct_name_keep(), which bounds the demangler's output and the name kept.
 */
#ifndef CT_DEMANGLE_H
#define CT_DEMANGLE_H

#include <stddef.h>

/* Bytes of any name kept, the cut marker included, NUL not. */
#define CT_NAME_MAX 4096
/* The end of a name cut to CT_NAME_MAX. */
#define CT_NAME_CUT "...[cut]"
/* Names kept per process, by handle or by GPU-activity id; past it they are dropped and counted. */
#define CT_NAMES_PER_PROC 8192

/*
 * A C++ (Itanium ABI, "_Z...") name demangled into a malloc'd string, or
 * NULL when `name` is not a mangled name, cannot be demangled (for instance
 * because it was cut short), or would demangle to more than CT_NAME_MAX
 * bytes: the demangler stops there, so its time and memory are bounded too.
 */
char *ct_demangle(const char *name);

/*
 * The name to keep for the `len` bytes at `name` (a NUL before them ends it):
 * demangled where ct_demangle() can, else as it came; longer than
 * CT_NAME_MAX, cut to it (at a UTF-8 boundary) and ended with CT_NAME_CUT.
 * Malloc'd; NULL only when out of memory.
 */
char *ct_name_keep(const char *name, size_t len);

#endif
