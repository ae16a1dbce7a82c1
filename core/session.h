/* SPDX-License-Identifier: MIT */
#ifndef CT_SESSION_H
#define CT_SESSION_H

#include <sys/types.h>
#include "config/config.h"

struct ct_target {
	pid_t pid;          /* -p: a running process (0: none) */
	char *const *argv;  /* -- COMMAND ARGS (NULL: none) */
};

/* Daemon mode's part in a run (daemon.c). */
struct ct_session_daemon {
	/* At SIGHUP: 1, the run ends for a new config (CT_SESSION_RELOAD);
	 * 0, it goes on. */
	int (*reload)(void *ctx);
	void *ctx;
	/* At every turn of the run's loop (100 ms at most apart): the
	 * daemon's own work, which must never block (the control socket). */
	void (*serve)(void *ctx);
	bool started;    /* set by the run: tracing went live */
	int stop_signal; /* set by the run: the SIGTERM or SIGINT that ended it, or 0 */
};

/* What ct_session_run returns when it ended for a reload: no exit status. */
#define CT_SESSION_RELOAD 256

/*
 * Trace until the command or process ends, or SIGINT/SIGTERM/SIGHUP. Returns the
 * command's exit status (128+signal if it was killed) in command mode, 0 on
 * a clean run otherwise, or 1 after an error that stopped tracing. With d
 * (daemon mode), SIGHUP asks d->reload instead of stopping.
 */
int ct_session_run(struct ct_config *conf, const struct ct_target *t, struct ct_session_daemon *d);

/* tracer.mode = aggregate: the kernel counts, no per-call records. */
bool ct_session_aggregate(const struct ct_config *conf);

/* Which APIs the config asks for: profile, include and exclude globs. */
void ct_session_select(const struct ct_config *conf, const struct ct_plugin *p, bool *enabled);

/* Whether an API is recorded at entry only, and what said so. */
enum ct_timing {
	CT_TIMING_TIMED,        /* entry and return: result and duration */
	CT_TIMING_ENTRY_PLUGIN, /* entry only: the plugin's row (CT_API_ENTRY_ONLY) */
	CT_TIMING_ENTRY_CONFIG, /* entry only: tracer.entry_only */
	CT_TIMING_TIMED_CONFIG, /* timed: tracer.timed, over the plugin or entry_only */
};
/* "timed", "entry-only (plugin default)", ...: for --list-apis, --explain and -v. */
extern const char *const ct_timing_names[];
enum ct_timing ct_session_timing(const struct ct_config *conf, const struct ct_api *a);
static inline bool ct_timing_entry_only(enum ct_timing t)
{
	return t == CT_TIMING_ENTRY_PLUGIN || t == CT_TIMING_ENTRY_CONFIG;
}

/* Exit early with a clear message when BPF is out of reach; tracing a
 * command, the in-process engine (no privileges) is offered first. */
int ct_check_privileges(bool command);

#endif
