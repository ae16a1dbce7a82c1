/* SPDX-License-Identifier: MIT */
/*
 * Listening sockets handed from one session to the next (a daemon's
 * reload): a port closed and bound again could be taken by anyone in
 * between, and its scrapes answered. A sink that stops hands its socket
 * over, named by its listen address; the next session's sink with the same
 * address takes it; the rest are closed once the next session's sinks are
 * open, so a new address is bound before the old one is let go.
 */
#ifndef CT_LISTENERS_H
#define CT_LISTENERS_H

#include <stdbool.h>

/* On in a daemon, off (the default) elsewhere: a socket handed over when
 * off is closed at once. Turned off, every socket held is closed. */
void ct_listeners_handover(bool on);
/* A stopping sink's listening socket, for a session after it (taken: the
 * socket is closed here when no one takes it). */
void ct_listeners_keep(const char *listen, int fd);
/* The socket kept for `listen`, or -1: the caller owns it. */
int ct_listeners_take(const char *listen);
/* Close those no sink of the session that has opened its sinks took. */
void ct_listeners_close_unclaimed(void);

#endif
