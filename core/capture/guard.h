/* SPDX-License-Identifier: MIT */
#ifndef CT_GUARD_H
#define CT_GUARD_H

#include <sys/types.h>

/* A process that continues the tasks the watcher stopped if the tracer cannot. */
struct ct_guard {
	pid_t pid;
	int fd; /* write end of the pipe the guard waits on; -1 when none */
};

/* Fork the guard, holding only `events_fd` (the watcher's event ring); it is in
 * its own session, deaf to group signals, when this returns 0. */
int ct_guard_start(struct ct_guard *g, int events_fd);
/* Let the guard run now: the tracer no longer reads the events. */
void ct_guard_stop(struct ct_guard *g);

#endif
