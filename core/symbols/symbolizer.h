/* SPDX-License-Identifier: MIT */
/*
 * Kernel names from host addresses. A CUDA runtime launch
 * (cudaLaunchKernel) passes the address of the kernel's host stub, a
 * function that nvcc emits under the kernel's own (mangled) name in the
 * executable or shared library that holds the kernel. To name it, find the
 * mapping of the traced process that holds the address (/proc/PID/maps),
 * open that file (through /proc/PID/root, so containers work), turn the
 * address into an offset in that file, and look it up among the file's
 * functions as the ELF reader (symbols/elf.h) places them: .symtab and
 * .dynsym, plus a separate debug file found by build-id when the file is
 * stripped.
 *
 * Files are parsed once and cached by (device, inode), so a library mapped
 * by many processes is read once; results are cached per (pid, address).
 * Not thread-safe: the poll loop is the only user.
 */
#ifndef CT_SYMBOLIZER_H
#define CT_SYMBOLIZER_H

#include <stdint.h>
#include <cudatracer/event.h>

/*
 * The demangled name of the function at `addr` in process `pid`, or NULL
 * when unknown: no file mapped there (JIT code), no symbol covers it
 * (stripped file), or the process is gone and its maps were never read.
 * The string stays valid until ct_sym_forget(pid) or ct_sym_reset().
 */
const char *ct_sym_lookup(uint32_t pid, uint64_t addr);

/*
 * Read /proc/PID/maps now. Lookups read it on their own the first time and
 * again when an address falls outside every known mapping; calling this
 * early (a process was found, a library was loaded) keeps names available
 * for records decoded after a short-lived process has already exited.
 * Returns 0 or a negative errno (-ENOENT: no such process).
 */
int ct_sym_refresh(uint32_t pid);

/*
 * The addresses ct_sym_lookup could not name because their process ended
 * before its maps were read (a job of a few milliseconds, system-wide, with
 * the reader late on a busy machine), and how many processes they were in.
 */
void ct_sym_unnamed(uint64_t *lookups, uint64_t *processes);

/*
 * A call stack of process `pid` (return addresses, innermost first) with
 * its frames named: module, function, offset; `end` other than
 * CT_FRAME_NATIVE adds a last frame saying why the stack ends there.
 * Cached per process by `key` (the caller's: a stack map id, or a hash of
 * the addresses): the addresses are read only the first time. Valid until
 * ct_sym_forget(pid) or ct_sym_reset(); NULL when out of memory.
 */
const struct ct_callstack *ct_sym_stack(uint32_t pid, uint64_t key, const uint64_t *pcs, uint32_t n,
					enum ct_frame_kind end);

/* The site of named frames (struct ct_callstack's `site`): modules by file
 * name, functions and offsets, so the same in any process; a replayed
 * trace's stacks (core/report/replay.c) get the same. */
uint64_t ct_sym_site(const struct ct_frame_info *fr, uint32_t n);

/*
 * The file mapped at `addr` in process `pid`, opened to read as the ELF
 * reader opens files (non-blocking, regular, bounded), and checked to be
 * the mapped file (device and inode) whatever its path names now; through
 * /proc/PID/map_files first (right for a file deleted since), then the
 * process's root. Returns the descriptor or a negative errno.
 */
int ct_sym_open_mapped(uint32_t pid, uint64_t addr);

/*
 * Each file process `pid` maps, as the symbolizer last read its maps (so
 * also once it has exited): its path and the addresses from its first
 * mapping's start to its last one's end. Stops at fn's first non-zero
 * return, returned; -ESRCH: no maps known.
 */
typedef int (*ct_sym_file_fn)(void *ctx, const char *path, uint64_t start, uint64_t end);
int ct_sym_each_file(uint32_t pid, ct_sym_file_fn fn, void *ctx);

/* Drop what is known about a process (it exited or called exec). */
void ct_sym_forget(uint32_t pid);

/* Drop everything, files included (at exit). */
void ct_sym_reset(void);

#endif
