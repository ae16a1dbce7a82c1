/* SPDX-License-Identifier: MIT */
/*
 * A database of the sqlite sink (docs/sqlite.md) read as a trace: its rows
 * made into the lines jsonl writes, so that report and merge read either.
 */
#ifndef CT_REPORT_SQLREAD_H
#define CT_REPORT_SQLREAD_H

#include <stddef.h>

struct ct_tracefile;

/* The first bytes of every SQLite database file. */
#define CT_SQLITE_MAGIC "SQLite format 3"

/* Open the database on fd (taken), check its schema and fill the trace's
 * meta; -EINVAL said. */
int ct_sqlread_open(struct ct_tracefile *t, int fd);
/* As ct_tracefile_next: the calls, then the GPU activity; lineno is the row's id. */
int ct_sqlread_next(struct ct_tracefile *t, const char **line, size_t *len);
void ct_sqlread_close(struct ct_tracefile *t);

#endif
