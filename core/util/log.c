// SPDX-License-Identifier: MIT
/* Diagnostics go to stderr, prefixed, one line each. */
#include <stdarg.h>
#include <stdio.h>
#include "util/log.h"

int ct_verbosity = CT_LOG_WARN;

void ct_log(int level, const char *fmt, ...)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };
	va_list ap;

	if (level > ct_verbosity)
		return;
	fprintf(stderr, "cudatracer: %s", prefix[level & 3]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
