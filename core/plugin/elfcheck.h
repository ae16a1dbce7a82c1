/* SPDX-License-Identifier: MIT */
#ifndef CT_ELFCHECK_H
#define CT_ELFCHECK_H

#include <stddef.h>

/*
 * dlopen(path, flags), but of a file checked first: opened once (the last
 * component not followed), its ELF headers checked against its size, then
 * loaded through that same descriptor. NULL with `why` filled (naming `path`)
 * when the file is refused or dlopen fails.
 */
void *ct_elf_dlopen(const char *path, int flags, char *why, size_t n);

#endif
