/* SPDX-License-Identifier: MIT */
/*
 * The daemon's control socket (docs/daemon.md): AF_UNIX, stream, in a
 * folder of root's that no one else may enter, held by one daemon at a
 * time (a lock beside it). Each connection is a peer of uid 0 (SO_PEERCRED;
 * others are told no and closed), sends one request (request.h) of at most
 * CT_REQUEST_MAX bytes within CT_CONTROL_REQUEST_S seconds, and waits for
 * its capture's reply (capture.h). Served from the daemon session's loop,
 * never blocking it; it outlives the sessions (a reload keeps it and every
 * capture running).
 */
#ifndef CT_CONTROL_SERVER_H
#define CT_CONTROL_SERVER_H

#include "config/config.h"
#include "control/capture.h"

#define CT_CONTROL_PENDING 8   /* connections whose request is not whole yet */
#define CT_CONTROL_CAPTURES 4  /* captures at once: one more is refused, said */
#define CT_CONTROL_REQUEST_S 5 /* to send a whole request */

struct ct_control_conn {
	int fd;
	size_t len;
	unsigned long long deadline_ns;
	char buf[CT_REQUEST_MAX];
};

struct ct_control {
	int listen_fd, dir_fd, lock_fd;
	char *name; /* the socket's name in its folder */
	char *path;
	unsigned next_id;
	struct ct_control_conn pending[CT_CONTROL_PENDING];
	struct ct_capture captures[CT_CONTROL_CAPTURES];
	bool busy[CT_CONTROL_CAPTURES];
};

/* Nothing open: ct_control_serve and ct_control_close do nothing. */
void ct_control_init(struct ct_control *c);
/* Listen on `path`, its folder made (0700) if missing. -errno, said:
 * a folder that is not root's alone, another daemon that holds it. */
int ct_control_open(struct ct_control *c, const char *path);
/* Accept, read, start and finish what is ready; never blocks. `conf`
 * (the running session's): the plugins a capture traces with. */
void ct_control_serve(struct ct_control *c, const struct ct_config *conf);
/* Refuse what is pending, stop every capture and wait for it (its file is
 * closed complete, its client told), remove the socket. */
void ct_control_close(struct ct_control *c);

#endif
