/* SPDX-License-Identifier: MIT */
/* Small output helpers shared by the summary, csv, memory, chrome and html sinks. */
#ifndef CT_SINKIO_H
#define CT_SINKIO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <cudatracer/event.h>

/* One RFC 4180 field: quoted when it holds a comma, quote, CR or LF. */
void ct_csv_field(FILE *out, const char *s);

/* True if `out` is a regular file we may truncate and rewrite (not O_APPEND). */
bool ct_out_rewritable(FILE *out);
/* Flush, truncate to empty and rewind, so the next write replaces the file. */
int ct_out_restart(FILE *out);

/* Wall-clock ns since the epoch as 2024-05-01T12:34:56.123456Z. */
void ct_fmt_time(char *buf, size_t n, uint64_t ts_ns);

struct ct_sb;
/* "name=value name=value ..." for every field of an event, appended whole;
 * false when out of memory. */
bool ct_fmt_args(struct ct_sb *b, const struct ct_event *ev);

/* Text for HTML: escapes & < > " '. */
void ct_html_str(FILE *out, const char *s);

#endif
