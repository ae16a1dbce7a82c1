/* SPDX-License-Identifier: MIT */
/*
 * Daemon mode (--daemon, tracer.daemon; docs/daemon.md): every process,
 * until SIGTERM; SIGHUP reads the config again and rebuilds the session from
 * it, or keeps the running one when the new one is refused; systemd is told
 * READY=1, RELOADING=1 and STOPPING=1 on $NOTIFY_SOCKET (Type=notify).
 */
#ifndef CT_DAEMON_H
#define CT_DAEMON_H

#include "config/config.h"

/* Builds and checks a config from the same file and command line as the
 * first (each error said, with file:line); 0, or an error with `out` freed. */
typedef int (*ct_daemon_load_fn)(void *ctx, struct ct_config *out);

/* The rules of a daemon's config on top of the keys' own: no pid, no
 * command's options, no sink on standard output. Said, naming `file`. */
int ct_daemon_check(const struct ct_config *c, const char *file);
/* What a session's setup would trip on, tried without starting one (a
 * reload's check, and --check-config): each plugin loads, each sink's file
 * could be opened to write (looked at, nothing opened or created). Said. */
int ct_daemon_precheck(const struct ct_config *c);

/* Runs sessions from `conf` (taken: emptied here) and each accepted reload,
 * until SIGTERM or SIGINT. Returns the exit status: 0 after a clean stop. */
int ct_daemon_run(struct ct_config *conf, ct_daemon_load_fn load, void *ctx);

/* One line to systemd ("READY=1"); nothing without $NOTIFY_SOCKET. */
void ct_notify(const char *state);

#endif
