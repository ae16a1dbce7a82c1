/* SPDX-License-Identifier: MIT */
/*
 * One capture the daemon runs for a request (docs/daemon.md): the daemon
 * creates the output file itself (ct_out_create_private), then runs the
 * tracer it is, again, as a process of its own: cudatracer -p PID
 * --duration D -o jsonl:- with the file as its standard output, the
 * daemon's plugins, and its standard error a pipe the daemon reads. What
 * that run says goes to the daemon's log and to the client ("say" lines);
 * when it ends, the client is told where the file is, or why it failed. A
 * capture shares nothing with the daemon's own session: its probes, ring
 * and sink are its own, it is not touched by a reload, and several run
 * side by side.
 */
#ifndef CT_CONTROL_CAPTURE_H
#define CT_CONTROL_CAPTURE_H

#include <stdbool.h>
#include <sys/types.h>
#include "config/config.h"
#include "control/request.h"

struct ct_capture {
	unsigned id;        /* for the log: capture 1, 2 ... */
	pid_t run;          /* the tracer run, or 0 once reaped */
	int status;         /* its wait status, once reaped */
	int client;         /* the connection the reply goes to */
	int log_fd;         /* read end of the run's standard error */
	pid_t target;
	char *path;
	int file_fd;        /* the output file, kept to tell it from a file put in its place */
	char line[1024];    /* a line of the run's stderr being read */
	size_t len;
	char error[512];    /* the last error it said */
};

/* Create the file, start the run. Takes `client` only on success (it is
 * the caller's to answer and close otherwise); -errno with the reason in
 * why (said to the client: the log has it too). */
int ct_capture_start(struct ct_capture *c, unsigned id, const struct ct_capture_request *r,
		     const struct ct_config *conf, int client, char *why, size_t n);
/* Read what the run said, reap it; once it has ended: the reply sent,
 * everything closed, true. Never blocks. */
bool ct_capture_poll(struct ct_capture *c);
/* Stop the run early (the daemon stops): SIGTERM, its file closed complete
 * as at the end of its window. ct_capture_poll then finishes it. */
void ct_capture_stop(struct ct_capture *c);

#endif
