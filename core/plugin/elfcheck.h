/* SPDX-License-Identifier: MIT */
#ifndef CT_ELFCHECK_H
#define CT_ELFCHECK_H

#include <stddef.h>

/*
 * dlopen(flags) of the file open as `fd` (named `path` in messages): its ELF
 * headers checked against its size, then loaded through that same
 * descriptor (/proc/self/fd/N), never by a path looked up again. `fd` stays
 * the caller's. NULL with `why` filled (naming `path`) when the file is
 * refused or dlopen fails.
 */
void *ct_elf_dlopen(int fd, const char *path, int flags, char *why, size_t n);

#endif
