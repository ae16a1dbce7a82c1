// SPDX-License-Identifier: MIT
/* How values are shown: one place, so text, csv and json agree. Strings
 * from the traced program are escaped here for text (ct_text_esc) and in
 * ct_w_json_str for JSON. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "sinks/sink.h"
#include "util/strbuf.h"

/* A string the traced program chose, escaped (see ct_text_esc), with
 * snprintf's contract; in quotes for a string argument. */
static int fmt_str(char *buf, size_t n, const char *s, bool quoted)
{
	size_t len;

	if (!quoted)
		return (int)ct_text_esc(buf, n, s);
	if (n < 2) {
		if (n)
			buf[0] = 0;
		return (int)ct_text_esc(NULL, 0, s) + 2;
	}
	buf[0] = '"';
	len = ct_text_esc(buf + 1, n - 1, s);
	if (len + 2 < n) {
		buf[len + 1] = '"';
		buf[len + 2] = 0;
	}
	return (int)len + 2;
}

int ct_format_field(char *buf, size_t n, const struct ct_field *f)
{
	const struct ct_arg *a = f->arg;

	if (!f->valid)
		return snprintf(buf, n, "?");
	switch (a->kind) {
	case CT_ARG_INT:
		return snprintf(buf, n, "%" PRId64, (int64_t)f->v);
	case CT_ARG_UINT:
	case CT_ARG_SIZE:
		return snprintf(buf, n, "%" PRIu64, f->v);
	case CT_ARG_HEX:
		return snprintf(buf, n, "0x%" PRIx64, f->v);
	case CT_ARG_PTR:
	case CT_ARG_HANDLE:
		if (f->str) /* a kernel's name, from the target's own symbols */
			return fmt_str(buf, n, f->str, false);
		return f->v ? snprintf(buf, n, "0x%" PRIx64, f->v) : snprintf(buf, n, "NULL");
	case CT_ARG_ENUM:
		if (f->enum_name)
			return snprintf(buf, n, "%s", f->enum_name);
		return snprintf(buf, n, "%" PRId64, (int64_t)f->v);
	case CT_ARG_DIM3:
		return snprintf(buf, n, "(%" PRIu64 ",%" PRIu64 ",%" PRIu64 ")", f->v3[0], f->v3[1], f->v3[2]);
	case CT_ARG_SIZES3: {
		int len = 0;

		len += snprintf(buf, n, "[");
		for (int i = 0; i < f->n3; i++)
			len += snprintf(buf + len, n > (size_t)len ? n - len : 0, "%s%" PRIu64,
					i ? "," : "", f->v3[i]);
		len += snprintf(buf + len, n > (size_t)len ? n - len : 0, "]");
		return len;
	}
	case CT_ARG_STRING:
		return fmt_str(buf, n, f->str, true);
	case CT_ARG_FLOAT: {
		float fl;
		uint32_t bits = (uint32_t)f->v;

		memcpy(&fl, &bits, sizeof(fl));
		return snprintf(buf, n, "%g", fl);
	}
	}
	return snprintf(buf, n, "0x%" PRIx64, f->v);
}

char *ct_json_field_w(char *w, const struct ct_field *f)
{
	char buf[64];

	if (!f->valid)
		return ct_w_lit(w, "null");
	switch (f->arg->kind) {
	case CT_ARG_INT:
		return ct_w_i64(w, (int64_t)f->v);
	case CT_ARG_UINT:
	case CT_ARG_SIZE:
		return ct_w_u64(w, f->v);
	case CT_ARG_ENUM:
		if (f->enum_name)
			return ct_w_json_str(w, f->enum_name);
		return ct_w_i64(w, (int64_t)f->v);
	case CT_ARG_DIM3:
	case CT_ARG_SIZES3: {
		int n = f->arg->kind == CT_ARG_DIM3 ? 3 : f->n3;

		*w++ = '[';
		for (int i = 0; i < n; i++) {
			if (i)
				*w++ = ',';
			w = ct_w_u64(w, f->v3[i]);
		}
		*w++ = ']';
		return w;
	}
	case CT_ARG_STRING:
		return ct_w_json_str(w, f->str);
	case CT_ARG_FLOAT:
		return ct_w_put(w, buf, ct_format_field(buf, sizeof(buf), f));
	default:
		if ((f->arg->kind == CT_ARG_PTR || f->arg->kind == CT_ARG_HANDLE) && f->str)
			return ct_w_json_str(w, f->str);
		*w++ = '"';
		w = ct_w_hex(w, f->v);
		*w++ = '"';
		return w;
	}
}

bool ct_format_field_sb(struct ct_sb *b, const struct ct_field *f)
{
	int n;

	if (!ct_sb_room(b, 64))
		return false;
	n = ct_format_field(b->p + b->len, b->cap - b->len, f);
	if (n < 0)
		return false;
	if ((size_t)n >= b->cap - b->len) { /* a long name: format it again with room */
		if (!ct_sb_room(b, (size_t)n + 1))
			return false;
		ct_format_field(b->p + b->len, (size_t)n + 1, f);
	}
	b->len += (size_t)n;
	return true;
}

void ct_json_field_sb(struct ct_sb *b, const struct ct_field *f)
{
	CT_SB_APPLY(b, ct_json_field_w(b->p + b->len, f));
}

/* The FILE versions, for sinks that are not on the hot path. */
void ct_json_str(FILE *out, const char *s)
{
	struct ct_sb b = { 0 };

	if (!ct_sb_room(&b, 6 * strlen(s ? s : "") + 2))
		return;
	ct_sb_json_str(&b, s);
	fwrite(b.p, 1, b.len, out);
	ct_sb_free(&b);
}

size_t ct_json_field_max(const struct ct_field *f)
{
	const char *s = NULL;

	if (f->valid) {
		if (f->arg->kind == CT_ARG_ENUM)
			s = f->enum_name;
		else if (f->arg->kind == CT_ARG_STRING || f->arg->kind == CT_ARG_PTR ||
			 f->arg->kind == CT_ARG_HANDLE)
			s = f->str;
	}
	/* A string escaped takes up to 6 bytes a byte; any other value fits in
	 * 64 ([20 digits,20,20] at most). */
	return s ? 6 * strlen(s) + 2 : 64;
}

/* {"devPtr":"0x7f..","size":4096}: the decoded arguments as one JSON object,
 * the values as the jsonl sink writes them; NUL-terminated. */
int ct_args_json(struct ct_sb *b, const struct ct_event *ev)
{
	b->len = 0;
	if (!ct_sb_room(b, 2))
		return -ENOMEM;
	ct_sb_ch(b, '{');
	for (unsigned i = 0; i < ev->n_fields; i++) {
		const struct ct_field *f = &ev->fields[i];
		const char *name = f->arg && f->arg->name ? f->arg->name : "?";

		if (!ct_sb_room(b, 6 * strlen(name) + 4 + ct_json_field_max(f)))
			return -ENOMEM;
		if (i)
			ct_sb_ch(b, ',');
		ct_sb_json_str(b, name);
		ct_sb_ch(b, ':');
		ct_json_field_sb(b, f);
	}
	if (!ct_sb_room(b, 2))
		return -ENOMEM;
	ct_sb_ch(b, '}');
	b->p[b->len] = 0;
	return 0;
}
