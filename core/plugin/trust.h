/* SPDX-License-Identifier: MIT */
#ifndef CT_PLUGIN_TRUST_H
#define CT_PLUGIN_TRUST_H

#include <stdbool.h>
#include <stddef.h>

/* Root, or a setuid/setcap run (AT_SECURE): what it loads must be root's. */
bool ct_trust_privileged(void);

/*
 * Open `path` to read, once. With `check`, the file and every folder on the
 * way to it (links followed, each checked where it is read) must be owned
 * by root, or by the running user when that is not a setuid/setcap run,
 * and not writable by group or others (a root-owned sticky folder may be):
 * the descriptor returned is of the file that was checked. Returns the
 * descriptor, or: -EPERM with `why` saying which name and why it is not
 * trusted; -EINVAL with `why` when it is not a regular file; another
 * negative errno (why: the name that failed) when a name cannot be opened.
 */
int ct_trusted_open(const char *path, bool check, char *why, size_t n);

#endif
