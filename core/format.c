// SPDX-License-Identifier: MIT
/* How values are shown: one place, so text, csv and json agree. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "sink.h"

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
		if (f->str)
			return snprintf(buf, n, "%s", f->str);
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
		return snprintf(buf, n, "\"%s\"", f->str ? f->str : "");
	case CT_ARG_FLOAT: {
		float fl;
		uint32_t bits = (uint32_t)f->v;

		memcpy(&fl, &bits, sizeof(fl));
		return snprintf(buf, n, "%g", fl);
	}
	}
	return snprintf(buf, n, "0x%" PRIx64, f->v);
}

void ct_json_str(FILE *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*p < 0x20 || *p >= 0x7f) {
				/* Bytes that are not printable ASCII: escaped, so that
				 * invalid UTF-8 from a target can never break the JSON. */
				fputs("\\u00", out);
				fputc(hex[*p >> 4], out);
				fputc(hex[*p & 15], out);
			} else {
				fputc(*p, out);
			}
		}
	}
	fputc('"', out);
}

void ct_json_field(FILE *out, const struct ct_field *f)
{
	char buf[64];

	if (!f->valid) {
		fputs("null", out);
		return;
	}
	switch (f->arg->kind) {
	case CT_ARG_INT:
		fprintf(out, "%" PRId64, (int64_t)f->v);
		return;
	case CT_ARG_UINT:
	case CT_ARG_SIZE:
		fprintf(out, "%" PRIu64, f->v);
		return;
	case CT_ARG_ENUM:
		if (f->enum_name)
			ct_json_str(out, f->enum_name);
		else
			fprintf(out, "%" PRId64, (int64_t)f->v);
		return;
	case CT_ARG_DIM3:
	case CT_ARG_SIZES3: {
		int n = f->arg->kind == CT_ARG_DIM3 ? 3 : f->n3;

		fputc('[', out);
		for (int i = 0; i < n; i++)
			fprintf(out, "%s%" PRIu64, i ? "," : "", f->v3[i]);
		fputc(']', out);
		return;
	}
	case CT_ARG_STRING:
		ct_json_str(out, f->str ? f->str : "");
		return;
	case CT_ARG_FLOAT:
		ct_format_field(buf, sizeof(buf), f);
		fputs(buf, out);
		return;
	default:
		if ((f->arg->kind == CT_ARG_PTR || f->arg->kind == CT_ARG_HANDLE) && f->str) {
			ct_json_str(out, f->str);
			return;
		}
		snprintf(buf, sizeof(buf), "0x%" PRIx64, f->v);
		ct_json_str(out, buf);
	}
}
