/* SPDX-License-Identifier: MIT */
#ifndef CT_ELFSYM_H
#define CT_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * For each names[i], the file offset of the function it names in the ELF
 * file at `path` (an executable or shared library; .symtab and .dynsym),
 * or 0 if the file does not define it. Returns how many were found, or a
 * negative errno: -ENOEXEC for a file that is not ELF.
 */
int ct_elf_resolve(const char *path, const char *const *names, size_t n, uint64_t *offsets);

/* Whether `path` is ELF and keeps a .symtab (not stripped). Returns 0 or -errno (-ENOEXEC: not ELF). */
int ct_elf_info(const char *path, bool *has_symtab);

#endif
