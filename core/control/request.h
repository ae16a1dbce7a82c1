/* SPDX-License-Identifier: MIT */
/*
 * A capture request and its replies, as they go over the daemon's control
 * socket (docs/daemon.md). A request is text: the word "capture" on its
 * own line, then KEY=VALUE lines, then an empty line, at most
 * CT_REQUEST_MAX bytes in all. The keys are a table (request.c), parsed
 * by the config's own value parsers. The daemon answers with lines:
 * "say TEXT" (what the capture says as it goes, any number), then one
 * "ok PATH" or "error TEXT", and closes the connection.
 */
#ifndef CT_CONTROL_REQUEST_H
#define CT_CONTROL_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CT_REQUEST_MAX 4096
/* The longest window a request may ask for (ns): a day. */
#define CT_REQUEST_WINDOW_MAX (24ull * 3600 * 1000000000ull)

struct ct_capture_request {
	uint64_t pid;
	uint64_t duration;   /* ns, 1 ms to CT_REQUEST_WINDOW_MAX */
	bool stacks;         /* call stacks (stacks.apis' default classes) */
	bool gpu_activity;   /* asked for, and refused: a running process cannot have it */
	char *output;        /* absolute path of the jsonl file the daemon creates */
};

/* Whether `text` (len bytes, not NUL-ended) holds a whole request: the
 * empty line that ends it. */
bool ct_request_complete(const char *text, size_t len);
/* Parse a whole request into r (ct_request_free frees it). 0, or -EINVAL
 * with the reason in why. */
int ct_request_parse(const char *text, size_t len, struct ct_capture_request *r, char *why, size_t n);
void ct_request_free(struct ct_capture_request *r);

/* One reply line ("say", "ok", "error") to fd, never blocking and never
 * raising SIGPIPE: a client that went away or reads nothing loses it. Line
 * breaks in text are sent as blanks, so a line is one line. */
void ct_reply(int fd, const char *kind, const char *text);

#endif
