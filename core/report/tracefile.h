/* SPDX-License-Identifier: MIT */
/*
 * A recorded jsonl trace, read line by line: plain or gzip-compressed (as it
 * is: zlib tells them apart), or a sqlite sink's database (its rows as those
 * lines, sqlread.h), its meta line read and checked at open
 * (docs/events.md). Shared by `cudatracer report` and `cudatracer merge`;
 * every refusal is said once, with the path and the line, after `who`.
 */
#ifndef CT_REPORT_TRACEFILE_H
#define CT_REPORT_TRACEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A longer line is skipped, counted and said: a trace's line is a call's
 * JSON (a few KiB, more with a long kernel name); a gzip bomb's is not. */
#define CT_TRACE_LINE_MAX (4 << 20)

struct ct_tracefile {
	const char *path, *who;
	void *gz;            /* gzFile */
	char *buf;           /* what was read and not yet returned: buf[pos, len) */
	size_t cap, pos, len;
	size_t scan;         /* buf[pos, scan) holds no line break */
	bool eof, skipping;  /* skipping: inside a line longer than the cap */
	long long_lines;     /* lines skipped for their length */
	long lineno;         /* of the line last returned */
	/* The meta line. */
	char host[256], boot_id[64];
	int64_t wall_offset_ns; /* wall - mono when the trace began */
	uint64_t wall_ns, mono_ns;
	int64_t version;     /* the meta line's; 0 for a trace without one */
	bool has_meta;
	bool compressed;
	void *db;            /* a sqlite sink's database (sqlread.c), read instead */
};

/* Open and read the meta line; -errno or -EINVAL (said). */
int ct_tracefile_open(struct ct_tracefile *t, const char *path, const char *who);
/* The same, and a trace from before the meta line (version 0) is read from
 * its first line, its wall offset unknown (0). */
int ct_tracefile_open_old(struct ct_tracefile *t, const char *path, const char *who);
/*
 * The next line, without its newline, valid until the next call: 1; 0 at
 * the end; <0 on a read error (said). A last line without its newline (a
 * killed tracer's) is skipped with a warning, as is said a compressed
 * trace that ends before its end marker.
 */
int ct_tracefile_next(struct ct_tracefile *t, const char **line, size_t *len);
void ct_tracefile_close(struct ct_tracefile *t);
/*
 * -EINVAL (said, naming both) when one of the outputs (paths; NULL or "-":
 * standard output) is the same file, by device and inode, as one of the
 * inputs: called before anything is opened for writing, so that
 * `report T.jsonl -o jsonl:T.jsonl` cannot empty its own trace. Outputs
 * not there yet and /dev/null pass.
 */
int ct_tracefile_refuse_outputs(const char *who, char *const *inputs, size_t n_in, const char *const *outputs,
				size_t n_out);

#endif
