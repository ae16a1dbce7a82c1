// SPDX-License-Identifier: MIT
/* Listen addresses and URLs, parsed once for the config and the sinks (endpoint.h). */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <strings.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/endpoint.h"

/* A host name as DNS allows it: letters, digits, '-' and '.' (no resolving
 * here: the config is read before any network is asked). */
static bool host_name(const char *h)
{
	if (!*h || strlen(h) > 253 || *h == '-' || *h == '.')
		return false;
	for (; *h; h++)
		if (!isalnum((unsigned char)*h) && *h != '-' && *h != '.')
			return false;
	return true;
}

int ct_listen_split(const char *s, char *host, size_t hn, char *port, size_t pn)
{
	const char *colon = strrchr(s, ':');
	unsigned char addr[16];
	bool v6 = false;
	char *end;
	size_t len;
	long p;

	if (!colon || !colon[1])
		return -EINVAL;
	len = colon - s;
	if (len && s[0] == '[' && s[len - 1] == ']') {
		s++;
		len -= 2;
		v6 = true;
	}
	if (len >= hn || strlen(colon + 1) >= pn)
		return -EINVAL;
	memcpy(host, s, len);
	host[len] = 0;
	errno = 0;
	p = strtol(colon + 1, &end, 10);
	if (errno || *end || !isdigit((unsigned char)colon[1]) || p > 65535)
		return -EINVAL;
	if (v6 ? inet_pton(AF_INET6, host, addr) != 1
	       : len && inet_pton(AF_INET, host, addr) != 1 && !host_name(host))
		return -EINVAL;
	strcpy(port, colon + 1);
	return 0;
}

int ct_check_listen(const void *dst, char *why, size_t n)
{
	const char *s = *(char *const *)dst;
	char host[256], port[32];

	if (s && ct_listen_split(s, host, sizeof(host), port, sizeof(port))) {
		snprintf(why, n, "not ADDR:PORT (127.0.0.1:9464, [::1]:9464, :9464; port 0 to 65535)");
		return -EINVAL;
	}
	return 0;
}

/* scheme://host[:port][/...]: the scheme http or https, a host, a port of
 * 1 to 5 digits up to 65535, no blank or control anywhere. Parsed here, not
 * by libcurl: the config is checked before any sink opens, and a tracer
 * whose sinks write files maps no network library (sinks/netlibs.c). */
static bool url_ok(const char *s)
{
	size_t host, port = 0;
	const char *p;

	if (!strncasecmp(s, "http://", 7))
		s += 7;
	else if (!strncasecmp(s, "https://", 8))
		s += 8;
	else
		return false;
	for (p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return false;
	if (*s == '[') { /* an IPv6 address */
		p = strchr(s, ']');
		if (!p || p == s + 1)
			return false;
		host = (size_t)(p - s) + 1;
	} else {
		host = strcspn(s, ":/?#");
	}
	if (!host || s[0] == '@')
		return false;
	s += host;
	if (*s == ':') {
		unsigned long v = 0;

		for (s++; isdigit((unsigned char)s[port]) && port < 6; port++)
			v = v * 10 + (unsigned long)(s[port] - '0');
		if (!port || port > 5 || v > 65535)
			return false;
		s += port;
	}
	return !*s || *s == '/' || *s == '?' || *s == '#';
}

int ct_check_url(const void *dst, char *why, size_t n)
{
	const char *s = *(char *const *)dst;

	if (!s)
		return 0;
	if (strlen(s) > CT_URL_MAX) {
		snprintf(why, n, "longer than %d bytes", CT_URL_MAX);
		return -EINVAL;
	}
	if (!url_ok(s)) {
		snprintf(why, n, "not an http:// or https:// URL (e.g. http://127.0.0.1:4318)");
		return -EINVAL;
	}
	return 0;
}
