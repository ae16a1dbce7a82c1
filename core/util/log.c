// SPDX-License-Identifier: MIT
/* Diagnostics go to stderr, prefixed, one line each. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "util/log.h"
#include "util/strbuf.h"

int ct_verbosity = CT_LOG_WARN;

/* Messages name paths and symbols of the traced program, which may hold
 * control bytes: those go out as \xHH (line breaks and tabs as they are). */
static void put_escaped(const char *s)
{
	char esc[4];

	while (*s) {
		int n = ct_text_keep((const unsigned char *)s);

		if (n || *s == '\n' || *s == '\t') {
			n = n ? n : 1;
			fwrite(s, 1, (size_t)n, stderr);
			s += n;
			continue;
		}
		fwrite(esc, 1, (size_t)(ct_w_xhh(esc, (unsigned char)*s++) - esc), stderr);
	}
}

static void vlog(const char *prefix, const char *fmt, va_list ap)
{
	char small[512], *msg = small;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small) && (msg = malloc((size_t)n + 1)))
		vsnprintf(msg, (size_t)n + 1, fmt, again);
	va_end(again);
	fprintf(stderr, "cudatracer: %s", prefix);
	put_escaped(msg ? msg : small);
	fputc('\n', stderr);
	if (msg != small)
		free(msg);
}

void ct_log(int level, const char *fmt, ...)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };
	va_list ap;

	if (level > ct_verbosity)
		return;
	va_start(ap, fmt);
	vlog(prefix[level & 3], fmt, ap);
	va_end(ap);
}

void ct_note(const char *fmt, ...)
{
	va_list ap;

	if (ct_verbosity < CT_LOG_WARN)
		return;
	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}
