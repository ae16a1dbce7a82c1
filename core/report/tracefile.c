// SPDX-License-Identifier: MIT
/* Reading a recorded trace: zlib's gzread reads a plain file as it is, so
 * one path serves both; lines are split here, of any length (a kernel's
 * name has no bound). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "report/json.h"
#include "report/sqlread.h"
#include "report/tracefile.h"
#include "sinks/sinkio.h"
#include "util/log.h"

#define READ_CHUNK (256 * 1024)

struct meta {
	bool meta, has_offset;
	struct ct_tracefile *t;
};

static int meta_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct meta *m = ctx;
	char kind[16];

	if (!strcmp(key, "kind")) {
		if (ct_jp_string(j, kind, sizeof(kind)))
			return -EINVAL;
		m->meta = !strcmp(kind, "meta");
		return 0;
	}
	if (!strcmp(key, "host"))
		return ct_jp_string(j, m->t->host, sizeof(m->t->host));
	if (!strcmp(key, "boot_id"))
		return ct_jp_string(j, m->t->boot_id, sizeof(m->t->boot_id));
	if (!strcmp(key, "wall_offset_ns"))
		return m->has_offset = true, ct_jp_i64(j, &m->t->wall_offset_ns);
	if (!strcmp(key, "wall_ns"))
		return ct_jp_u64(j, &m->t->wall_ns);
	if (!strcmp(key, "mono_ns"))
		return ct_jp_u64(j, &m->t->mono_ns);
	if (!strcmp(key, "version"))
		return ct_jp_i64(j, &m->t->version);
	return 1;
}

/* More bytes into buf; 0 at the end of the file. */
static int fill(struct ct_tracefile *t)
{
	int n, zerr;

	if (t->pos) {
		memmove(t->buf, t->buf + t->pos, t->len - t->pos);
		t->len -= t->pos;
		t->scan -= t->pos;
		t->pos = 0;
	}
	if (t->cap - t->len < READ_CHUNK) {
		size_t cap = t->cap ? t->cap * 2 : 2 * READ_CHUNK;
		char *nb = realloc(t->buf, cap);

		if (!nb)
			return -ENOMEM;
		t->buf = nb;
		t->cap = cap;
	}
	n = gzread(t->gz, t->buf + t->len, READ_CHUNK);
	if (n < 0) {
		const char *why = gzerror(t->gz, &zerr);

		if (zerr == Z_ERRNO)
			why = strerror(errno);
		ct_err("%s: reading %s failed: %s%s", t->who, t->path, why,
		       zerr == Z_BUF_ERROR || zerr == Z_DATA_ERROR ?
		       " (the compressed trace is damaged or cut short)" : "");
		return -EIO;
	}
	/* zlib says a stream that stops before its end marker only here: a
	 * trace cut at a line's end would otherwise read as whole. */
	if (n == 0 && t->compressed && (gzerror(t->gz, &zerr), zerr == Z_BUF_ERROR))
		ct_warn("%s: %s: the compressed trace ends before its end marker: it was cut short (was the "
			"tracer killed?); read as far as it goes", t->who, t->path);
	t->len += (size_t)n;
	return n;
}

/* A line longer than the cap is dropped as it comes, never held whole;
 * the first is said with its line, the rest counted at the end. */
static void skip_long(struct ct_tracefile *t)
{
	if (!t->skipping && !t->long_lines)
		ct_warn("%s: %s:%ld: a line longer than %d bytes is skipped (a damaged or hostile trace?)",
			t->who, t->path, t->lineno + 1, CT_TRACE_LINE_MAX);
	t->skipping = true;
}

int ct_tracefile_next(struct ct_tracefile *t, const char **line, size_t *len)
{
	if (t->db)
		return ct_sqlread_next(t, line, len);
	for (;;) {
		/* Only bytes not looked at yet are searched: a long line costs
		 * one pass, not one per read. */
		char *nl = t->scan < t->len ? memchr(t->buf + t->scan, '\n', t->len - t->scan) : NULL;
		int n;

		if (nl && (size_t)(nl - t->buf) - t->pos > CT_TRACE_LINE_MAX)
			skip_long(t);
		if (nl && t->skipping) {
			t->pos = t->scan = (size_t)(nl - t->buf) + 1;
			t->lineno++;
			t->long_lines++;
			t->skipping = false;
			continue;
		}
		if (nl) {
			*line = t->buf + t->pos;
			*len = (size_t)(nl - *line);
			t->pos += *len + 1;
			t->scan = t->pos;
			t->lineno++;
			return 1;
		}
		t->scan = t->len;
		if (t->len - t->pos > CT_TRACE_LINE_MAX)
			skip_long(t);
		if (t->skipping)
			t->pos = t->scan = t->len;
		if (t->eof) {
			if (t->skipping) {
				t->long_lines++;
				t->skipping = false;
			}
			if (t->long_lines)
				ct_warn("%s: %s: %ld lines longer than %d bytes were skipped", t->who, t->path,
					t->long_lines, CT_TRACE_LINE_MAX);
			t->long_lines = 0;
			if (t->pos == t->len)
				return 0;
			/* What a killed tracer leaves: the calls before it are good. */
			ct_warn("%s: %s:%ld: the last line is cut short (was the tracer killed?): it is "
				"skipped, the trace is read up to line %ld", t->who, t->path, t->lineno + 1,
				t->lineno);
			t->pos = t->len;
			return 0;
		}
		n = fill(t);
		if (n < 0)
			return n;
		t->eof = n == 0;
	}
}

/*
 * The trace is opened once, non-blocking (a FIFO or a terminal in its place
 * must not hang a report run as root), and must be a regular file: the
 * descriptor checked is the one read.
 */
static int open_trace(const char *path, const char *who)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), err;
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		ct_err("%s: %s is not a regular file: not a jsonl trace", who, path);
		close(fd);
		return -EINVAL;
	}
	/* Reads of a regular file do not block; the flag is dropped all the same. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static int open_any(struct ct_tracefile *t, const char *path, const char *who, bool no_meta_ok)
{
	int fd = open_trace(path, who);
	char magic[sizeof(CT_SQLITE_MAGIC)] = { 0 };
	struct meta m = { .t = t };
	struct ct_jp j;
	const char *line;
	size_t len;
	int err;

	memset(t, 0, sizeof(*t));
	t->path = path;
	t->who = who;
	if (fd < 0) {
		if (fd != -EINVAL)
			ct_err("%s: cannot read %s: %s", who, path, strerror(-fd));
		return fd;
	}
	if (pread(fd, magic, sizeof(magic), 0) == sizeof(magic) && !memcmp(magic, CT_SQLITE_MAGIC, sizeof(magic)))
		return ct_sqlread_open(t, fd);
	t->compressed = (unsigned char)magic[0] == 0x1f && (unsigned char)magic[1] == 0x8b;
	t->gz = gzdopen(fd, "rb");
	if (!t->gz) {
		close(fd);
		return -ENOMEM;
	}
	gzbuffer(t->gz, READ_CHUNK);
	err = ct_tracefile_next(t, &line, &len);
	if (err < 0)
		return err;
	if (err == 0) {
		ct_err("%s: %s is empty: not a jsonl trace", who, path);
		return -EINVAL;
	}
	j = (struct ct_jp){ line, line + len };
	if (no_meta_ok && (ct_jp_object(&j, meta_key, &m) || !m.meta)) {
		/* A trace from before the meta line: its first line is a call, read again. */
		t->pos -= len + 1;
		t->scan = t->pos;
		t->lineno--;
		t->version = 0;
		return 0;
	}
	j = (struct ct_jp){ line, line + len };
	if (ct_jp_object(&j, meta_key, &m) || !ct_jp_at_end(&j) || !m.meta) {
		ct_err("%s: %s: its first line is not a meta line: not a jsonl trace of this "
		       "cudatracer (docs/events.md)", who, path);
		return -EINVAL;
	}
	if (!m.has_offset) {
		ct_err("%s: %s:1: a meta line without wall_offset_ns", who, path);
		return -EINVAL;
	}
	t->has_meta = true;
	if (t->version < 1)
		t->version = 1; /* the meta line came with version 1 */
	return 0;
}

int ct_tracefile_open(struct ct_tracefile *t, const char *path, const char *who)
{
	return open_any(t, path, who, false);
}

int ct_tracefile_open_old(struct ct_tracefile *t, const char *path, const char *who)
{
	return open_any(t, path, who, true);
}

/* What `path` names (standard output for NULL or "-"); false when nothing
 * is there yet, which no input can be. */
static bool stat_output(const char *path, struct stat *st)
{
	return !path || !strcmp(path, "-") ? !fstat(STDOUT_FILENO, st) : !stat(path, st);
}

int ct_tracefile_refuse_outputs(const char *who, char *const *inputs, size_t n_in, const char *const *outputs,
				size_t n_out)
{
	for (size_t o = 0; o < n_out; o++) {
		struct stat out, in;

		if (!stat_output(outputs[o], &out) || ct_out_is_dev_null(&out))
			continue;
		for (size_t i = 0; i < n_in; i++) {
			if (stat(inputs[i], &in) || in.st_dev != out.st_dev || in.st_ino != out.st_ino)
				continue;
			if (!outputs[o] || !strcmp(outputs[o], "-"))
				ct_err("%s: standard output is the trace %s: what is written to it would be read back; "
				       "redirect it to another file", who, inputs[i]);
			else
				ct_err("%s: the output %s is the trace %s (the same file): writing it would destroy "
				       "the trace; give another path", who, outputs[o], inputs[i]);
			return -EINVAL;
		}
	}
	return 0;
}

void ct_tracefile_close(struct ct_tracefile *t)
{
	ct_sqlread_close(t);
	if (t->gz)
		gzclose(t->gz);
	free(t->buf);
	t->gz = NULL;
	t->buf = NULL;
}
