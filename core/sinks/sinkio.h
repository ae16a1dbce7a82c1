/* SPDX-License-Identifier: MIT */
/* Small output helpers shared by the sinks: escaping for csv, html and text,
 * rewriting a file, and opening a sink's file safely as root. */
#ifndef CT_SINKIO_H
#define CT_SINKIO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cudatracer/event.h>

/* One RFC 4180 field: control bytes and bytes that are not UTF-8 escaped as
 * in text (\x1b, see ct_text_keep), then quoted when it holds a comma or a
 * quote, quotes doubled. At most ct_csv_field_max(s) bytes. */
char *ct_w_csv_field(char *w, const char *s);
static inline size_t ct_csv_field_max(const char *s)
{
	return 4 * (s ? strlen(s) : 0) + 2;
}
void ct_csv_field(FILE *out, const char *s);

/* A comm as text (ct_text_esc) in buf, which it returns. */
#define CT_COMM_TEXT (4 * CT_COMM_LEN)
const char *ct_text_comm(char buf[CT_COMM_TEXT], const char *comm);

/*
 * Open a sink's file to write, safely when running as root in folders other
 * users can write to; says why in one line naming `what` and the path when
 * it refuses. "-" and "/dev/stdout" are standard output; /dev/null (and
 * /dev/zero, /dev/full) are allowed. Refused: a symbolic link owned by neither the running user nor
 * root, as the file or as any folder on the way to it (the folders are
 * walked one name at a time, never followed by the kernel); a FIFO, device,
 * socket or folder; a file owned by another user
 * (under sudo, the invoking user's is allowed); a file with more than one
 * hard link. New files are 0600; under sudo, a new file in the invoking
 * user's own folder is given to them. An existing file is emptied only
 * after it passed. The folder is held open and the checks are made on
 * what is opened, never on a path opened again.
 */
int ct_out_open(const char *what, const char *path, FILE **out);
/* The same for a new file only: -EEXIST, unsaid, when the name is taken by
 * anything (a file, a link, a folder), so the caller can pick another. */
int ct_out_create(const char *what, const char *path, FILE **out);
/* The same for a file the daemon makes for a request: new only (-EEXIST,
 * unsaid), root's alone, and refused (-EPERM, said) in a folder another
 * user may change (theirs, or writable by a group not root's or by anyone)
 * unless it is sticky. */
int ct_out_create_private(const char *what, const char *path, FILE **out);
/* The folder of path, walked as ct_out_open walks it (a link on the way
 * followed only if root's or the user's), opened O_PATH into *dfd: what a
 * sink's rotation renames and removes is named in it. Says why it fails. */
int ct_out_folder(const char *what, const char *path, int *dfd);
/* How a sink's file is opened: emptied (ct_out_open), only if it is new
 * (ct_out_create), or continued, keeping what it holds, every write going
 * at its end (a daemon's session after another wrote the file). */
enum ct_out_mode { CT_OUT_EMPTY, CT_OUT_NEW, CT_OUT_APPEND };
int ct_out_open_mode(const char *what, const char *path, enum ct_out_mode mode, FILE **out);

struct stat;
/*
 * Whether another descriptor of this process is open on the file fd is
 * (st: fd's fstat): a library given /proc/self/fd/N (SQLite) resolves it to
 * a path and opens that, which could name another file by then; checked
 * after it opened, before anything is read or written through it.
 */
bool ct_fd_opened_again(int fd, const struct stat *st);
/* /dev/null, /dev/zero or /dev/full: a write goes nowhere (or fails). */
bool ct_out_is_dev_null(const struct stat *st);

/* True if `out` is a regular file the sink opened itself (never standard
 * output, even redirected to a file) and not O_APPEND: one we may
 * truncate and rewrite. */
bool ct_out_rewritable(FILE *out);
/* True if `out` continues a file that holds what a session before wrote
 * (ct_out_open_mode's CT_OUT_APPEND, and not empty). */
bool ct_out_continued(FILE *out);
/* Flush, truncate to empty and rewind, so the next write replaces the file. */
int ct_out_restart(FILE *out);

/* Wall-clock ns since the epoch as 2024-05-01T12:34:56.123456Z. */
void ct_fmt_time(char *buf, size_t n, uint64_t ts_ns);


/* Text for HTML: & < > " ' as entities; C0 controls and DEL as their
 * control pictures (ESC: &#x241b;, shown as ␛); C1 controls and bytes that
 * are not UTF-8 as &#xfffd;. Valid UTF-8 as it is. */
void ct_html_str(FILE *out, const char *s);

#endif
