/* SPDX-License-Identifier: MIT */
/*
 * Source lines of native frames: a file offset of code in an ELF file ->
 * the source file and line its DWARF line table gives (gcc or clang -g).
 * The file is any user's: its DWARF is read only if all its .debug_*
 * sections (compressed ones counted at their inflated size) come to at most
 * CT_SRCLINE_MAX_FILE, and while all files read so far hold at most
 * CT_SRCLINE_MAX_TOTAL; libdw parses a unit's line table once and keeps it;
 * each offset's answer is kept. Read with read(), never mmap (as elf.h): a
 * file truncated meanwhile fails a read, it does not raise SIGBUS.
 */
#ifndef CT_SRCLINE_H
#define CT_SRCLINE_H

#include <stdint.h>

#define CT_SRCLINE_MAX_FILE (64ULL << 20)
#define CT_SRCLINE_MAX_TOTAL (256ULL << 20)

struct ct_srclines;

/*
 * The line tables of the ELF file open at fd (read here and done with:
 * the caller closes fd). NULL: no DWARF line information, more than the
 * bounds above, not ELF, or out of memory.
 */
struct ct_srclines *ct_srclines_open(int fd);

/*
 * The source file and line of the code at file offset `off`. Returns 0, or
 * -ENOENT (no line covers it). *file stays valid until ct_srclines_close().
 */
int ct_srclines_at(struct ct_srclines *s, uint64_t off, const char **file, uint32_t *line);

void ct_srclines_close(struct ct_srclines *s);

#endif
