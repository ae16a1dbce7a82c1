// SPDX-License-Identifier: MIT
/* Capture requests as text, and the daemon's reply lines (request.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "config/keys.h"
#include "control/request.h"

static int check_pid(const void *dst, char *why, size_t n)
{
	uint64_t v = *(const uint64_t *)dst;

	if (v >= 1 && v <= INT_MAX)
		return 0;
	snprintf(why, n, "expected a process id, 1 to %d", INT_MAX);
	return -EINVAL;
}

static int check_window(const void *dst, char *why, size_t n)
{
	uint64_t v = *(const uint64_t *)dst;

	if (v >= 1000000 && v <= CT_REQUEST_WINDOW_MAX)
		return 0;
	snprintf(why, n, "expected 1ms to 24h, with its unit (10s, 500ms, 2m)");
	return -EINVAL;
}

static int check_output(const void *dst, char *why, size_t n)
{
	const char *p = *(char *const *)dst;

	if (p && p[0] == '/' && strlen(p) < PATH_MAX)
		return 0;
	snprintf(why, n, "expected an absolute path to a new file (the client makes a relative one absolute)");
	return -EINVAL;
}

#define RK(name, type, def, field, check) \
	{ name, type, def, offsetof(struct ct_capture_request, field), NULL, NULL, check }

/* Every key a request may hold; those without a default must be given. */
static const struct ct_key request_keys[] = {
	RK("pid", CT_KEY_U64, NULL, pid, check_pid),
	RK("duration", CT_KEY_DUR, NULL, duration, check_window),
	RK("output", CT_KEY_STR, NULL, output, check_output),
	RK("stacks", CT_KEY_BOOL, "false", stacks, NULL),
	RK("gpu_activity", CT_KEY_BOOL, "false", gpu_activity, NULL),
	{ 0 },
};

static const char request_word[] = "capture";

bool ct_request_complete(const char *text, size_t len)
{
	for (size_t i = 1; i < len; i++)
		if (text[i] == '\n' && text[i - 1] == '\n')
			return true;
	return false;
}

/* Which keys a request gave, by their row. */
static int key_given(const struct ct_key *k, bool *given, char *why, size_t n)
{
	size_t i = (size_t)(k - request_keys);

	if (given[i]) {
		snprintf(why, n, "%s given twice", k->name);
		return -EINVAL;
	}
	given[i] = true;
	return 0;
}

static int parse_line(char *line, struct ct_capture_request *r, bool *given, char *why, size_t n)
{
	char *eq = strchr(line, '='), what[256];
	const struct ct_key *k;
	int err;

	for (const char *p = line; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			snprintf(why, n, "a control byte in a line");
			return -EINVAL;
		}
	if (!eq) {
		snprintf(why, n, "expected KEY=VALUE, got '%.64s'", line);
		return -EINVAL;
	}
	*eq = 0;
	k = ct_key_find(request_keys, line);
	if (!k) {
		snprintf(why, n, "unknown key '%.64s' (pid, duration, output, stacks, gpu_activity)", line);
		return -EINVAL;
	}
	err = key_given(k, given, why, n);
	if (!err && (err = ct_key_set(k, r, eq + 1, what, sizeof(what))))
		snprintf(why, n, "%s=%.64s: %s", k->name, eq + 1, what);
	return err;
}

int ct_request_parse(const char *text, size_t len, struct ct_capture_request *r, char *why, size_t n)
{
	bool given[sizeof(request_keys) / sizeof(request_keys[0])] = { 0 };
	char *copy = len < CT_REQUEST_MAX ? strndup(text, len) : NULL, *save = NULL, *line, *end;
	int err = 0;

	memset(r, 0, sizeof(*r));
	if (!copy || memchr(text, 0, len) || !(end = strstr(copy, "\n\n"))) {
		snprintf(why, n, copy ? "a request is text ended by an empty line" : "a request too long (at most %d bytes)",
			 CT_REQUEST_MAX);
		free(copy);
		return -EINVAL;
	}
	end[1] = 0;
	if (end[2]) {
		snprintf(why, n, "bytes after the empty line that ends the request");
		free(copy);
		return -EINVAL;
	}
	ct_keys_defaults(request_keys, r);
	line = strtok_r(copy, "\n", &save);
	if (!line || strcmp(line, request_word)) {
		snprintf(why, n, "expected '%s' on the first line", request_word);
		err = -EINVAL;
	}
	while (!err && (line = strtok_r(NULL, "\n", &save)))
		err = parse_line(line, r, given, why, n);
	for (const struct ct_key *k = request_keys; !err && k->name; k++)
		if (!k->def && !given[k - request_keys]) {
			snprintf(why, n, "%s not given", k->name);
			err = -EINVAL;
		}
	free(copy);
	if (err)
		ct_request_free(r);
	return err;
}

void ct_request_free(struct ct_capture_request *r)
{
	ct_keys_free(request_keys, r);
	memset(r, 0, sizeof(*r));
}

void ct_reply(int fd, const char *kind, const char *text)
{
	char line[1024];
	int len = snprintf(line, sizeof(line) - 1, "%s %s", kind, text);

	if (len < 0)
		return;
	if (len > (int)sizeof(line) - 2)
		len = (int)sizeof(line) - 2;
	for (int i = 0; i < len; i++)
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	line[len++] = '\n';
	(void)!send(fd, line, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);
}
