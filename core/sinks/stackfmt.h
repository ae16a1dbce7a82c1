/* SPDX-License-Identifier: MIT */
/*
 * A call stack (event.h's struct ct_callstack) as the sinks show it: one
 * JSON array for jsonl and chrome (the shape docs/events.md documents),
 * one line per frame for text, memory, summary and html; and the sites
 * (distinct stacks) that memory, summary and html group by, with their
 * frames kept as text after the event is gone.
 */
#ifndef CT_STACKFMT_H
#define CT_STACKFMT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <cudatracer/event.h>
#include "util/u64map.h"

/* Bytes ct_stack_json_w() can write for cs: reserve them. */
size_t ct_stack_json_max(const struct ct_callstack *cs);
/* [{"function":...,"offset":...,"module":...,"addr":...}, ...] */
char *ct_stack_json_w(char *w, const struct ct_callstack *cs);
/* Python frames as a JSON array ([{"function":..,"file":..,"line":N},...],
 * docs/stacks-python.md), with room for ct_py_stack_json_max() bytes. */
size_t ct_py_stack_json_max(const struct ct_py_frames *fr);
char *ct_py_stack_json_w(char *w, const struct ct_py_frames *fr);

/* One frame for people: "inner+0x1a (/path/app)", "[unknown] 0x1234 (/path/lib.so)",
 * "[truncated]", "train (model.py:42)". Cut to fit n. */
void ct_frame_text(const struct ct_frame_info *f, char *buf, size_t n);
/* A Python frame likewise: "train (model.py:42)". */
void ct_py_frame_text(const struct ct_py_frame_info *p, char *buf, size_t n);

/* Bytes ct_stack_lines_w() and ct_py_lines_w() can write: reserve them. */
size_t ct_stack_lines_max(const struct ct_callstack *cs);
size_t ct_py_lines_max(const struct ct_py_frames *py);
/* The frames as a JSON array of ct_frame_text() lines, innermost first:
 * ["inner+0x1a (/path/app)", ...] (chrome's args) */
char *ct_stack_lines_w(char *w, const struct ct_callstack *cs);
/* Python frames likewise: ["train (model.py:42)", ...] */
char *ct_py_lines_w(char *w, const struct ct_py_frames *py);

/* What the summary and html show of sites: this many of each group (the
 * most calls or bytes), this many frames of each (the innermost). */
#define CT_SITES_SHOWN 5
#define CT_SITE_FRAMES_SHOWN 8

/*
 * A site: a distinct stack, native frames and Python frames (two lines of a
 * script that reach the runtime through the same ctypes frames are two
 * sites), its frames as text, and what the sink adds up there.
 */
struct ct_site {
	uint64_t key;         /* ct_site_key() */
	char **lines;         /* one per native frame, innermost first */
	uint32_t n_lines;
	char **py_lines;      /* one per Python frame, innermost first */
	uint32_t n_py_lines;
	uint64_t count, bytes, live, live_bytes; /* the sink's to fill */
};

struct ct_sites {
	struct ct_u64map by_key;  /* site -> struct ct_site * */
};

/* The site of a call's stacks (either may be NULL): cs->site, and its Python frames'. */
uint64_t ct_site_key(const struct ct_callstack *cs, const struct ct_py_frames *py);
/* The site of a call's stacks, made on first use; NULL when out of memory. */
struct ct_site *ct_sites_get(struct ct_sites *t, const struct ct_callstack *cs, const struct ct_py_frames *py);
/* The sites in an array (free() it), sorted by cmp. */
struct ct_site **ct_sites_sorted(const struct ct_sites *t, int (*cmp)(const void *, const void *), size_t *n);
void ct_sites_free(struct ct_sites *t);
/* For ct_sites_sorted(): most calls first, then by key (a stable order). */
int ct_site_cmp_count(const void *x, const void *y);
/* The site's frames one a line, each written by put(): its first `max`
 * native frames (0: all), "... N more frames" for the others, then its
 * Python frames likewise. */
void ct_site_text(FILE *out, const struct ct_site *s, uint32_t max, void (*put)(FILE *out, const char *line));
/* For ct_site_text(): a line of a text report, under its site's heading. */
void ct_site_line_indented(FILE *out, const char *line);
/* "stack":[LINE, ...] of the site's first `max` native frames (0: all), then
 * ,"py_stack":[LINE, ...] likewise when it has Python frames. */
void ct_site_json(FILE *out, const struct ct_site *s, uint32_t max);

#endif
