/* SPDX-License-Identifier: MIT */
#ifndef CT_SESSION_H
#define CT_SESSION_H

#include <sys/types.h>
#include "config/config.h"

struct ct_target {
	pid_t pid;          /* -p: a running process (0: none) */
	char *const *argv;  /* -- COMMAND ARGS (NULL: none) */
};

/*
 * Trace until the command or process ends, or SIGINT/SIGTERM/SIGHUP. Returns the
 * command's exit status (128+signal if it was killed) in command mode, 0 on
 * a clean run otherwise, or 1 after an error that stopped tracing.
 */
int ct_session_run(struct ct_config *conf, const struct ct_target *t);

/* tracer.mode = aggregate: the kernel counts, no per-call records. */
bool ct_session_aggregate(const struct ct_config *conf);

/* Which APIs the config asks for: profile, include and exclude globs. */
void ct_session_select(const struct ct_config *conf, const struct ct_plugin *p, bool *enabled);

/* Exit early with a clear message when BPF is out of reach. */
int ct_check_privileges(void);

#endif
