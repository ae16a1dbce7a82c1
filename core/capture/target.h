/* SPDX-License-Identifier: MIT */
#ifndef CT_TARGET_H
#define CT_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Called with a path that opens the file from here (through /proc/PID/root)
 * and the path as the process sees it. Return non-zero to stop. */
typedef int (*ct_target_fn)(const char *open_path, const char *display, void *ctx);

/* Every distinct file the process maps (its executable included). */
int ct_target_pid_files(pid_t pid, ct_target_fn fn, void *ctx);

/* Does the basename of `path` start with one of the n prefixes? */
bool ct_target_name_matches(const char *path, const char *const *prefixes, size_t n);

/* Library files on the system whose names start with a prefix: the folders
 * of /etc/ld.so.conf.d, the usual lib folders, $CUDA_HOME/lib64 and
 * /usr/local/cuda/lib64. Each real file once. `searched` gets the folders. */
int ct_target_system_libs(const char *const *prefixes, size_t n_prefixes, ct_target_fn fn, void *ctx,
			  char *searched, size_t searched_len);

#endif
