/* SPDX-License-Identifier: MIT */
/*
 * Python frames (docs/stacks-python.md), the core's side: find a traced
 * process's CPython interpreter (its executable, or libpython3.X.so), tell
 * the engine where its runtime state is and how its version lays its
 * structures out (py_procs), and turn the stacks the engine sent
 * (py_stacks, py_codes) into function, file and line. Not thread-safe:
 * the poll loop is the only user.
 */
#ifndef CT_PYTHON_H
#define CT_PYTHON_H

#include <stdbool.h>
#include <stdint.h>
#include <cudatracer/event.h>

/* The engine's maps (bpf/pystack.bpf.h); -1 each: Python frames off. */
void ct_py_init(int procs_fd, int stacks_fd, int codes_fd);

/*
 * Look for an interpreter in the process: at attach, at its exec (stopped),
 * and when it maps a file (a libpython loaded later). Once one is found, or
 * the process was told to have one the tracer cannot read (said once per
 * reason), later calls return at once. Returns 1 when the engine walks its
 * frames, 0 when it has none (yet), or -errno.
 */
int ct_py_scan(uint32_t pid);

/* A record's Python frames (its `pystack`), or NULL (none, or unreadable).
 * Valid until the pid is forgotten. */
const struct ct_py_frames *ct_py_stack_get(uint32_t pid, uint32_t pystack);

/* Forget a pid (it exec'd, or exited). */
void ct_py_forget(uint32_t pid);
void ct_py_reset(void);

/* For tests: line of byte offset `lasti` by a version's line table (-1: none). */
int ct_py_addr2line(int minor, const uint8_t *table, size_t n, int firstlineno, int lasti);

#endif
