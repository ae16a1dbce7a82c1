// SPDX-License-Identifier: MIT
/* Call stacks as the sinks show them: see stackfmt.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/stackfmt.h"
#include "util/strbuf.h"

static void frame_raw(const struct ct_frame_info *f, char *buf, size_t n);

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
		     str_max(f->py_file);
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

/* Names from the traced process's files, escaped for a terminal. */
void ct_frame_text(const struct ct_frame_info *f, char *buf, size_t n)
{
	char raw[1024];

	frame_raw(f, raw, sizeof(raw));
	ct_text_esc(buf, n, raw);
}

static void frame_raw(const struct ct_frame_info *f, char *buf, size_t n)
{
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
		snprintf(buf, n, "%s+0x%" PRIx64 " (%s)", f->function, f->offset, f->module ? f->module : "[unknown]");
	else if (f->module)
		snprintf(buf, n, "[unknown] 0x%" PRIx64 " (%s+0x%" PRIx64 ")", f->addr, f->module, f->offset);
	else
		snprintf(buf, n, "[unknown] 0x%" PRIx64, f->addr);
}

static void site_free(struct ct_site *s)
{
	for (uint32_t i = 0; i < s->n_lines; i++)
		free(s->lines[i]);
	free(s->lines);
	free(s);
}

struct ct_site *ct_sites_get(struct ct_sites *t, const struct ct_callstack *cs)
{
	struct ct_site *s = ct_u64map_get(&t->by_key, cs->site);
	char line[1024];

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->lines = calloc(cs->n ? cs->n : 1, sizeof(*s->lines))))
		goto fail;
	s->key = cs->site;
	for (uint32_t i = 0; i < cs->n; i++) {
		ct_frame_text(&cs->frames[i], line, sizeof(line));
		if (!(s->lines[i] = strdup(line)))
			goto fail;
		s->n_lines++;
	}
	if (ct_u64map_put(&t->by_key, s->key, s))
		goto fail;
	return s;
fail:
	if (s)
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
	uint64_t key;
	void *val;

	for (size_t it = 0; ct_u64map_next(&t->by_key, &it, &key, &val);)
		site_free(val);
	ct_u64map_free(&t->by_key);
}
