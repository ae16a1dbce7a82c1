// SPDX-License-Identifier: MIT
/* Output helpers shared by several sinks: see sinkio.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "sinks/sink.h"
#include "sinks/sinkio.h"
#include "util/strbuf.h"

void ct_csv_field(FILE *out, const char *s)
{
	if (!s)
		s = "";
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

bool ct_out_rewritable(FILE *out)
{
	struct stat st;
	int fd = out ? fileno(out) : -1;
	int fl;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode))
		return false;
	fl = fcntl(fd, F_GETFL);
	return fl >= 0 && !(fl & O_APPEND);
}

int ct_out_restart(FILE *out)
{
	if (fflush(out))
		return -errno;
	rewind(out);
	if (ftruncate(fileno(out), 0))
		return -errno;
	return 0;
}

void ct_fmt_time(char *buf, size_t n, uint64_t ts_ns)
{
	time_t sec = (time_t)(ts_ns / 1000000000ull);
	struct tm tm;

	gmtime_r(&sec, &tm);
	snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%06uZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned)(ts_ns % 1000000000ull / 1000));
}

bool ct_fmt_args(struct ct_sb *b, const struct ct_event *ev)
{
	for (unsigned i = 0; i < ev->n_fields; i++) {
		const struct ct_field *f = &ev->fields[i];
		const char *name = f->arg && f->arg->name ? f->arg->name : "?";

		if (!ct_sb_room(b, strlen(name) + 2))
			return false;
		if (i)
			ct_sb_ch(b, ' ');
		ct_sb_put(b, name, strlen(name));
		ct_sb_ch(b, '=');
		if (!ct_format_field_sb(b, f))
			return false;
	}
	return true;
}

void ct_html_str(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*s, out);
		}
	}
}
