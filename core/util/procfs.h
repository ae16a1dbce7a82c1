/* SPDX-License-Identifier: MIT */
/*
 * The kernel's files about a process, /proc/PID/...: read once through the
 * descriptor checked (regular, opened non-blocking), bounded, and parsed in
 * one place.
 */
#ifndef CT_UTIL_PROCFS_H
#define CT_UTIL_PROCFS_H

#include <stddef.h>
#include <stdint.h>

/*
 * /proc/PID/NAME, at most `max` bytes, NUL-terminated (*len: the bytes
 * read, without the NUL); free() it. NULL with errno set where it cannot be
 * opened or a read fails (ENOENT: the process is gone; ESRCH: it was reaped
 * after the open).
 */
char *ct_proc_read(uint32_t pid, const char *name, size_t max, size_t *len);
/* The same for any kernel file named by its path (/proc/driver/...). */
char *ct_file_read(const char *path, size_t max, size_t *len);

/* The number after `key` ("Tgid:", "TracerPid:") in /proc/PID/status; -1 when unreadable or absent. */
long ct_proc_status_field(uint32_t pid, const char *key);

/* What /proc/PID/stat says of a process. */
struct ct_proc_stat {
	char comm[64]; /* its name, whatever bytes it holds */
	char state;    /* R, S, D, Z (zombie), X (dead), ... */
	int ppid;
	unsigned long flags; /* PF_* */
	unsigned long long start; /* when it started, in clock ticks after boot: a pid used again starts later */
};

/* /proc/PID/stat's flags (include/linux/sched.h) */
#define CT_PF_EXITING 0x4u
#define CT_PF_KTHREAD 0x00200000u

/* 0, or -ENOENT (gone), -errno (unreadable), -EINVAL (not understood). */
int ct_proc_stat(uint32_t pid, struct ct_proc_stat *st);

#endif
