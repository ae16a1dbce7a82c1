// SPDX-License-Identifier: MIT
/* Call stacks as the sinks show them: see stackfmt.h. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/sink.h"
#include "sinks/stackfmt.h"
#include "symbols/symbolizer.h"
#include "util/plural.h"
#include "util/strbuf.h"

static void frame_raw(const struct ct_frame_info *f, char *buf, size_t n);

static struct ct_frame_info py_frame(const struct ct_py_frame_info *p)
{
	return (struct ct_frame_info){ .kind = CT_FRAME_PYTHON, .py_function = p->function, .py_file = p->file,
				       .py_line = p->line > 0 ? (uint32_t)p->line : 0 };
}

#define FRAME_FIXED 128 /* keys, numbers and punctuation of one frame */

static size_t str_max(const char *s)
{
	return s ? 6 * strlen(s) + 2 : 16;
}

size_t ct_stack_json_max(const struct ct_callstack *cs)
{
	size_t n = 16;

	for (uint32_t i = 0; i < cs->n; i++) {
		const struct ct_frame_info *f = &cs->frames[i];

		n += FRAME_FIXED + str_max(f->module) + str_max(f->function) + str_max(f->py_function) +
		     str_max(f->py_file) + str_max(f->src_file);
	}
	return n;
}

static char *put_str_or(char *w, const char *s, const char *missing)
{
	return s ? ct_w_json_str(w, s) : ct_w_json_str(w, missing);
}

static char *put_frame(char *w, const struct ct_frame_info *f)
{
	switch (f->kind) {
	case CT_FRAME_PYTHON:
		w = ct_w_lit(w, "{\"py_function\":");
		w = put_str_or(w, f->py_function, "[unknown]");
		w = ct_w_lit(w, ",\"py_file\":");
		w = put_str_or(w, f->py_file, "[unknown]");
		w = ct_w_lit(w, ",\"py_line\":");
		w = ct_w_u64(w, f->py_line);
		return ct_w_lit(w, "}");
	case CT_FRAME_TRUNCATED:
		return ct_w_lit(w, "{\"function\":\"[truncated]\"}");
	case CT_FRAME_UNWOUND:
		return ct_w_lit(w, "{\"function\":\"[unknown]\",\"why\":\"no unwind information\"}");
	case CT_FRAME_NATIVE:
		break;
	}
	w = ct_w_lit(w, "{\"function\":");
	w = put_str_or(w, f->function, "[unknown]");
	w = ct_w_lit(w, ",\"offset\":\"");
	w = ct_w_hex(w, f->offset);
	w = ct_w_lit(w, "\",\"module\":");
	w = put_str_or(w, f->module, "[unknown]");
	w = ct_w_lit(w, ",\"addr\":\"");
	w = ct_w_hex(w, f->addr);
	if (f->src_file) {
		w = ct_w_lit(w, "\",\"file\":");
		w = ct_w_json_str(w, f->src_file);
		w = ct_w_lit(w, ",\"line\":");
		w = ct_w_u64(w, f->src_line);
		return ct_w_lit(w, "}");
	}
	return ct_w_lit(w, "\"}");
}

char *ct_stack_json_w(char *w, const struct ct_callstack *cs)
{
	*w++ = '[';
	for (uint32_t i = 0; i < cs->n; i++) {
		if (i)
			*w++ = ',';
		w = put_frame(w, &cs->frames[i]);
	}
	*w++ = ']';
	return w;
}

size_t ct_py_stack_json_max(const struct ct_py_frames *fr)
{
	size_t n = 16;

	for (uint32_t i = 0; i < fr->n; i++)
		n += 6 * (strlen(fr->f[i].function) + strlen(fr->f[i].file)) + 64 +
		     (fr->f[i].why ? 6 * strlen(fr->f[i].why) + 16 : 0);
	return n;
}

char *ct_py_stack_json_w(char *w, const struct ct_py_frames *fr)
{
	*w++ = '[';
	for (uint32_t i = 0; i < fr->n; i++) {
		const struct ct_py_frame_info *f = &fr->f[i];

		if (i)
			*w++ = ',';
		w = ct_w_lit(w, "{\"function\":");
		w = ct_w_json_str(w, f->function);
		w = ct_w_lit(w, ",\"file\":");
		w = ct_w_json_str(w, f->file);
		w = ct_w_lit(w, ",\"line\":");
		w = ct_w_u64(w, (uint64_t)(f->line > 0 ? f->line : 0));
		if (f->why) {
			w = ct_w_lit(w, ",\"why\":");
			w = ct_w_json_str(w, f->why);
		}
		*w++ = '}';
	}
	*w++ = ']';
	return w;
}

/* Names from the traced process's files, escaped for a terminal. */
void ct_frame_text(const struct ct_frame_info *f, char *buf, size_t n)
{
	char raw[1024];

	frame_raw(f, raw, sizeof(raw));
	ct_text_esc(buf, n, raw);
}

void ct_py_frame_text(const struct ct_py_frame_info *p, char *buf, size_t n)
{
	struct ct_frame_info f = py_frame(p);

	ct_frame_text(&f, buf, n);
}

static void frame_raw(const struct ct_frame_info *f, char *buf, size_t n)
{
	int len;

	switch (f->kind) {
	case CT_FRAME_PYTHON:
		snprintf(buf, n, "%s (%s:%" PRIu32 ")", f->py_function ? f->py_function : "[unknown]",
			 f->py_file ? f->py_file : "[unknown]", f->py_line);
		return;
	case CT_FRAME_TRUNCATED:
		snprintf(buf, n, "[truncated]");
		return;
	case CT_FRAME_UNWOUND:
		snprintf(buf, n, "[unknown] (no unwind information)");
		return;
	case CT_FRAME_NATIVE:
		break;
	}
	if (f->function)
		len = snprintf(buf, n, "%s+0x%" PRIx64 " (%s)", f->function, f->offset, f->module ? f->module : "[unknown]");
	else if (f->module)
		len = snprintf(buf, n, "[unknown] 0x%" PRIx64 " (%s+0x%" PRIx64 ")", f->addr, f->module, f->offset);
	else
		len = snprintf(buf, n, "[unknown] 0x%" PRIx64, f->addr);
	if (f->src_file && len >= 0 && (size_t)len < n)
		snprintf(buf + len, n - (size_t)len, " at %s:%" PRIu32, f->src_file, f->src_line);
}

/* A line of ct_frame_text() is at most its raw text (names and ~64 bytes)
 * escaped for a terminal (x4), then for JSON (x2 more at most). */
static size_t line_max(const struct ct_frame_info *f)
{
	size_t raw = 80 + (f->module ? strlen(f->module) : 0) + (f->function ? strlen(f->function) : 0) +
		     (f->py_function ? strlen(f->py_function) : 0) + (f->py_file ? strlen(f->py_file) : 0) +
		     (f->src_file ? strlen(f->src_file) : 0);

	return 8 * (raw < 1024 ? raw : 1024) + 3;
}

size_t ct_stack_lines_max(const struct ct_callstack *cs)
{
	size_t n = 2;

	for (uint32_t i = 0; i < cs->n; i++)
		n += line_max(&cs->frames[i]);
	return n;
}

size_t ct_py_lines_max(const struct ct_py_frames *py)
{
	size_t n = 2;

	for (uint32_t i = 0; i < py->n; i++) {
		struct ct_frame_info f = py_frame(&py->f[i]);

		n += line_max(&f);
	}
	return n;
}

static char *put_line(char *w, bool comma, const struct ct_frame_info *f)
{
	char line[1024];

	if (comma)
		*w++ = ',';
	ct_frame_text(f, line, sizeof(line));
	return ct_w_json_str(w, line);
}

char *ct_stack_lines_w(char *w, const struct ct_callstack *cs)
{
	*w++ = '[';
	for (uint32_t i = 0; i < cs->n; i++)
		w = put_line(w, i, &cs->frames[i]);
	*w++ = ']';
	return w;
}

char *ct_py_lines_w(char *w, const struct ct_py_frames *py)
{
	*w++ = '[';
	for (uint32_t i = 0; i < py->n; i++) {
		struct ct_frame_info f = py_frame(&py->f[i]);

		w = put_line(w, i, &f);
	}
	*w++ = ']';
	return w;
}

static void lines_free(char **v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void site_free(void *v)
{
	struct ct_site *s = v;

	lines_free(s->lines, s->n_lines);
	lines_free(s->py_lines, s->n_py_lines);
	free(s);
}

uint64_t ct_site_key(const struct ct_callstack *cs, const struct ct_py_frames *py)
{
	uint64_t key = cs ? cs->site : 0;

	for (uint32_t i = 0; py && i < py->n; i++) {
		struct ct_frame_info f = py_frame(&py->f[i]);

		key = (key ^ ct_sym_site(&f, 1)) * 0x100000001b3ull;
	}
	return key;
}

/* Each frame's line, kept: *v has n of them, or is NULL (out of memory). */
static char **lines_of(uint32_t n, const struct ct_callstack *cs, const struct ct_py_frames *py)
{
	char **v = calloc(n ? n : 1, sizeof(*v)), line[1024];

	for (uint32_t i = 0; v && i < n; i++) {
		if (cs)
			ct_frame_text(&cs->frames[i], line, sizeof(line));
		else
			ct_py_frame_text(&py->f[i], line, sizeof(line));
		if (!(v[i] = strdup(line))) {
			lines_free(v, i);
			return NULL;
		}
	}
	return v;
}

struct ct_site *ct_sites_get(struct ct_sites *t, const struct ct_callstack *cs, const struct ct_py_frames *py)
{
	uint64_t key = ct_site_key(cs, py);
	struct ct_site *s = ct_u64map_get(&t->by_key, key);

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->key = key;
	if (!(s->lines = lines_of(cs ? cs->n : 0, cs, NULL)))
		goto fail;
	s->n_lines = cs ? cs->n : 0;
	if (!(s->py_lines = lines_of(py ? py->n : 0, NULL, py)))
		goto fail;
	s->n_py_lines = py ? py->n : 0;
	if (ct_u64map_put(&t->by_key, s->key, s))
		goto fail;
	return s;
fail:
	site_free(s);
	return NULL;
}

struct ct_site **ct_sites_sorted(const struct ct_sites *t, int (*cmp)(const void *, const void *), size_t *n)
{
	struct ct_site **v = malloc((t->by_key.n ? t->by_key.n : 1) * sizeof(*v));
	uint64_t key;
	void *val;

	*n = 0;
	if (!v)
		return NULL;
	for (size_t it = 0; ct_u64map_next(&t->by_key, &it, &key, &val);)
		v[(*n)++] = val;
	qsort(v, *n, sizeof(*v), cmp);
	return v;
}

void ct_sites_free(struct ct_sites *t)
{
	ct_u64map_free_all(&t->by_key, site_free);
}

int ct_site_cmp_count(const void *x, const void *y)
{
	const struct ct_site *a = *(struct ct_site *const *)x, *b = *(struct ct_site *const *)y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return (a->key > b->key) - (a->key < b->key);
}

static void lines_text(FILE *out, char *const *v, uint32_t n, uint32_t max, void (*put)(FILE *, const char *))
{
	char more[64];

	for (uint32_t f = 0; f < n && (!max || f < max); f++)
		put(out, v[f]);
	if (max && n > max) {
		snprintf(more, sizeof(more), "... %u more frame%s", n - max, CT_S(n - max));
		put(out, more);
	}
}

void ct_site_text(FILE *out, const struct ct_site *s, uint32_t max, void (*put)(FILE *out, const char *line))
{
	lines_text(out, s->lines, s->n_lines, max, put);
	lines_text(out, s->py_lines, s->n_py_lines, max, put);
}

void ct_site_line_indented(FILE *out, const char *line)
{
	fprintf(out, "      %s\n", line);
}

static void lines_json(FILE *out, char *const *v, uint32_t n, uint32_t max)
{
	fputc('[', out);
	for (uint32_t f = 0; f < n && (!max || f < max); f++) {
		if (f)
			fputc(',', out);
		ct_json_str(out, v[f]);
	}
	fputc(']', out);
}

void ct_site_json(FILE *out, const struct ct_site *s, uint32_t max)
{
	fputs("\"stack\":", out);
	lines_json(out, s->lines, s->n_lines, max);
	if (s->n_py_lines) {
		fputs(",\"py_stack\":", out);
		lines_json(out, s->py_lines, s->n_py_lines, max);
	}
}
