/* SPDX-License-Identifier: MIT */
/*
 * Calls made inside a running process (docs/gpu.md, "A running process"):
 * how --gpu-activity -p brings the injection library into a process that
 * started CUDA long ago, and later has it stop.
 *
 * One thread of the process that waits in a system call (a safe point: it
 * holds no lock of the C library or the loader there) is stopped with
 * ptrace for a moment, pointed at a small trampoline (remote_tramp.S)
 * written into unused bytes past the end of an executable mapping, and let
 * go at once: the thread calls the function, restores every register and
 * goes back into its system call. The tracer waits for the block's state
 * to say the call returned. At no moment does the thread need the tracer
 * to finish: killed at any step, the tracer leaves it as it was or on its
 * way back there.
 */
#ifndef CT_CAPTURE_REMOTE_H
#define CT_CAPTURE_REMOTE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ct_remote {
	pid_t pid;
	int mem;            /* /proc/PID/mem, read and write */
	uint64_t cave;      /* the trampoline's address in the process */
	size_t cave_len;    /* bytes free there */
	uint64_t block;     /* what the thread writes back: in unused bytes of a writable mapping */
	uint64_t dlopen_fn, dlerror_fn;
};

/*
 * Check that `pid` may be entered at all and find what a call needs (the
 * C library's dlopen, unused executable bytes). `why` says what stands in
 * the way. Returns 0, or -errno: -EPERM (Yama, a debugger attached, a
 * seccomp filter), -ENOEXEC (no glibc dlopen, no room), -ESRCH (gone).
 */
int ct_remote_open(struct ct_remote *r, pid_t pid, char *why, size_t n);
void ct_remote_close(struct ct_remote *r);

/*
 * Have a thread of the process call fn(arg0, arg1), or fn(str, arg1) when
 * `str` is set (copied into the process beside the trampoline), and wait
 * at most timeout_ms for it to return (*ret: what it returned). -ETIME:
 * it had not returned then (it will go on and return by itself); -EBUSY:
 * no thread was waiting in a system call, or another call was under way.
 */
int ct_remote_call(struct ct_remote *r, uint64_t fn, const char *str, uint64_t arg0, uint64_t arg1,
		   int timeout_ms, uint64_t *ret, char *why, size_t n);

/*
 * The address in the process of function `sym` of the mapped file whose
 * path ends with `file` (a full path, or "/libc.so.6"). 0, -ENOENT.
 */
int ct_remote_sym(const struct ct_remote *r, const char *file, const char *sym, uint64_t *addr);

/* Read a NUL-terminated string at `addr` (at most n-1 bytes). */
int ct_remote_read_str(const struct ct_remote *r, uint64_t addr, char *buf, size_t n);

#endif
