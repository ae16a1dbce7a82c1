/* SPDX-License-Identifier: MIT */
#ifndef CT_TARGET_H
#define CT_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Called with a path that opens the file found from here, /proc/self/fd/N
 * of a descriptor held for the call (so it names that file, whatever becomes
 * of the path it was found by), and the path as the process sees it.
 * Return non-zero to stop. */
typedef int (*ct_target_fn)(const char *open_path, const char *display, void *ctx);

/* Can -p PID be traced: a live user-space process? Logs the reason if not. */
int ct_target_check_pid(pid_t pid);

/* Every distinct file the process maps (its executable included). */
int ct_target_pid_files(pid_t pid, ct_target_fn fn, void *ctx);

/* The executable of a process (/proc/PID/exe). Returns 0, or -errno:
 * -ESRCH when the process has ended. */
int ct_target_exe(pid_t pid, ct_target_fn fn, void *ctx);

/*
 * The file that a process has just opened as descriptor `fd` by `path`
 * (the watcher saw it; NULL if the path is not known whole), whose name
 * starts with `prefix`: the process may have closed that descriptor since
 * (ld.so does once the library is mapped), and its number may name another
 * file. Tried in turn: the descriptor if it still names such a file (and,
 * where the task was not held at its open, the same file as the path, if
 * the path is still there); the path, in the process's root (or folder);
 * the files of that name it maps. Returns how many files fn was called
 * for, or -ESRCH when the process has ended (a short-lived one: not an
 * error), -ENOENT when it is alive but none of them leads to the file.
 */
int ct_target_opened(pid_t pid, int fd, const char *path, bool held, const char *prefix, ct_target_fn fn,
		     void *ctx);

/* Does the basename of `path` start with one of the n prefixes? */
bool ct_target_name_matches(const char *path, const char *const *prefixes, size_t n);

/* Library files on the system whose names start with a prefix: the folders
 * of /etc/ld.so.conf.d, the usual lib folders, $CUDA_HOME/lib64 and
 * /usr/local/cuda/lib64. Each real file once. `searched` gets the folders. */
int ct_target_system_libs(const char *const *prefixes, size_t n_prefixes, ct_target_fn fn, void *ctx,
			  char *searched, size_t searched_len);

/* A command's executable as execvp would find it, into out; -errno if none. */
int ct_target_command_path(const char *program, char *out, size_t n);

struct ct_plugin;
/* How many of the plugin's symbols `path` defines itself (a runtime linked
 * into it), or -errno. */
int ct_target_count_symbols(const struct ct_plugin *p, const char *path);

#endif
