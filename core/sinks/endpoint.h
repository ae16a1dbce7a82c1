/* SPDX-License-Identifier: MIT */
/*
 * The addresses a sink is given (a listen address, a URL), parsed by one
 * parser that the config's key table (ct_key.check: at the start and at a
 * daemon's reload, with file:line) and the sink itself both use: a value
 * the config took is one the sink can use.
 */
#ifndef CT_ENDPOINT_H
#define CT_ENDPOINT_H

#include <stddef.h>

/* "host:port", "[v6]:port" or ":port" (every address): the host (a name or
 * an address, without brackets) and the port (0 to 65535, digits only). */
int ct_listen_split(const char *s, char *host, size_t hn, char *port, size_t pn);

/* ct_key checks: a char * holding a listen address, an http(s) URL (NULL,
 * unset, passes: a key that must be set says so, ct_key.required). */
int ct_check_listen(const void *dst, char *why, size_t n);
int ct_check_url(const void *dst, char *why, size_t n);
/* The longest URL a sink is given (room is left for a path after it). */
#define CT_URL_MAX 1000

#endif
