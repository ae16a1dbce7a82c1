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

char *ct_w_csv_field(char *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	bool quote = strpbrk((const char *)p, ",\"") != NULL;

	/* Line breaks are escaped with the other controls, so a row is one
	 * line; only a comma or a quote still needs the quotes. */
	if (quote)
		*w++ = '"';
	while (*p) {
		int n = ct_text_keep(p);

		if (*p == '"')
			*w++ = '"';
		if (!n) {
			w = ct_w_xhh(w, *p++);
			continue;
		}
		w = ct_w_put(w, (const char *)p, n);
		p += n;
	}
	if (quote)
		*w++ = '"';
	return w;
}

void ct_csv_field(FILE *out, const char *s)
{
	struct ct_sb b = { 0 };

	if (!ct_sb_room(&b, ct_csv_field_max(s)))
		return;
	CT_SB_APPLY(&b, ct_w_csv_field(b.p, s));
	fwrite(b.p, 1, b.len, out);
	ct_sb_free(&b);
}

const char *ct_text_comm(char buf[CT_COMM_TEXT], const char *comm)
{
	ct_text_esc(buf, CT_COMM_TEXT, comm);
	return buf;
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

void ct_fmt_result(char *buf, size_t n, const struct ct_event *ev)
{
	if (!ev->has_result)
		snprintf(buf, n, "%s", "");
	else if (ev->result_name)
		snprintf(buf, n, "%s", ev->result_name);
	else
		snprintf(buf, n, "%" PRId64, ev->result);
}

void ct_html_str(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		int n = ct_text_keep(p);

		switch (n ? *p : 0) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		case 0:
			/* A C0 control or DEL as its control picture (ESC: U+241B),
			 * a C1 control or a byte that is not UTF-8 as U+FFFD. */
			n = *p >= 0x80 && ct_utf8_is_c1(p) ? 2 : 1;
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "&#x%x;", *p == 0x7f ? 0x2421 : 0x2400 + *p);
			else
				fputs("&#xfffd;", out);
			break;
		default: fwrite(p, 1, n, out);
		}
		p += n;
	}
}
