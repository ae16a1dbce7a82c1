// SPDX-License-Identifier: MIT
/* Listen addresses and URLs, parsed once for the config and the sinks (endpoint.h). */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
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

int ct_check_url(const void *dst, char *why, size_t n)
{
	const char *s = *(char *const *)dst;
	CURLU *u;
	char *scheme = NULL, *host = NULL;
	int err = 0;

	if (!s)
		return 0;
	if (strlen(s) > CT_URL_MAX) {
		snprintf(why, n, "longer than %d bytes", CT_URL_MAX);
		return -EINVAL;
	}
	u = curl_url();
	if (!u)
		return -ENOMEM;
	/* Parsed as given: no scheme guessed, none but http and https. */
	if (curl_url_set(u, CURLUPART_URL, s, 0) || curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) || (strcmp(scheme, "http") && strcmp(scheme, "https"))) {
		snprintf(why, n, "not an http:// or https:// URL (e.g. http://127.0.0.1:4318)");
		err = -EINVAL;
	}
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return err;
}
