// SPDX-License-Identifier: MIT
/*
 * A sink's file rotated: see rotate.h. The reader renames (one system call)
 * and output.c finishes the old file and begins the new one; everything
 * slow (gzip, the folder's listing, removals) is the worker's, beside the
 * reader. One worker a sink at a time: a rotation waits for the one before.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "sinks/rotate.h"
#include "sinks/sinkio.h"
#include "util/log.h"

/* YYYYmmddTHHMMSSZ-NNN: a second's time and which of its rotations, fixed
 * width so that names sort as times do. */
#define STAMP_LEN 20
#define PER_SECOND 1000
#define NAME_MAX_ROT 255
#define GZ_CHUNK (256 * 1024)
#define RETRY_NS 1000000000ull /* after a rename that failed */

struct ct_rotor {
	struct ct_rotate_conf rc;
	char *what;
	char *base;       /* the file's name in its folder */
	int dfd;          /* its folder, O_PATH */
	uint64_t began_ns, retry_ns; /* CLOCK_MONOTONIC */
	off_t empty_size; /* the size of a file that holds no record yet */
	/* The file renamed by the last ct_rotor_rename, for the worker. */
	char rotated[NAME_MAX_ROT + 1];
	dev_t dev;
	ino_t ino;
	pthread_t worker;
	bool running;
	time_t last_sec; /* the second of the last rotated name, and its number */
	unsigned last_n;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Where the stamp goes: before the last extension ("trace.jsonl": after
 * "trace"), or at the end of a name with none. */
static size_t stem_len(const char *base)
{
	const char *dot = strrchr(base, '.');

	return dot && dot != base ? (size_t)(dot - base) : strlen(base);
}

int ct_rotor_new(struct ct_rotor **rp, const char *what, const char *path, const struct ct_rotate_conf *rc)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	struct ct_rotor *r;
	int err;

	*rp = NULL;
	if (!path || !strcmp(path, "-") || !strcmp(path, "/dev/stdout")) {
		ct_err("%s: rotate_size and rotate_interval need a path to a file, not standard output", what);
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->rc = *rc;
	r->dfd = -1;
	r->what = strdup(what);
	r->base = strdup(slash ? slash + 1 : path);
	if (!r->what || !r->base) {
		err = -ENOMEM;
		goto fail;
	}
	/* Room for the stamp and ".gz" in one file name. */
	if (strlen(r->base) + 1 + STAMP_LEN + 3 > NAME_MAX_ROT) {
		ct_err("%s: %s: the name is too long to add a rotation's time to it", what, path);
		err = -ENAMETOOLONG;
		goto fail;
	}
	err = ct_out_folder(what, path, &r->dfd);
	if (err)
		goto fail;
	*rp = r;
	return 0;
fail:
	ct_rotor_free(r);
	return err;
}

int ct_rotor_attach(struct ct_rotor *r, FILE *out)
{
	struct stat a, b;

	/* Renamed by its name in the folder: that name must be the file
	 * written, not a link to it (the link would be renamed). */
	if (out == stdout || fstat(fileno(out), &a) || !S_ISREG(a.st_mode) ||
	    fstatat(r->dfd, r->base, &b, AT_SYMLINK_NOFOLLOW) || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		ct_err("%s: %s is not a file in its folder (a symbolic link, a device): rotation renames the file "
		       "in its own folder, give the path of a file", r->what, r->base);
		return -EINVAL;
	}
	ct_rotor_begin(r, out);
	return 0;
}

/* What the file holds with what stdio still buffers for it: a sink that
 * writes through its descriptor (chrome) moves the file's size, not the
 * stream's position. */
static off_t file_size(FILE *out)
{
	off_t pos = ftello(out);
	struct stat st;

	if (!fstat(fileno(out), &st) && st.st_size > pos)
		pos = st.st_size;
	return pos;
}

void ct_rotor_begin(struct ct_rotor *r, FILE *out)
{
	off_t pos;

	fflush(out);
	pos = file_size(out);
	r->empty_size = pos > 0 ? pos : 0;
	r->began_ns = mono_ns();
	r->retry_ns = 0;
}

bool ct_rotor_due(struct ct_rotor *r, FILE *out, bool tick)
{
	off_t pos;
	uint64_t now;

	if (!r || (!tick && !r->rc.size))
		return false;
	pos = file_size(out);
	if (pos < 0)
		return false;
	now = mono_ns();
	if (r->retry_ns && now < r->retry_ns)
		return false;
	if (r->rc.size && (uint64_t)pos >= r->rc.size && pos > r->empty_size)
		return true;
	return tick && r->rc.interval_ns && now - r->began_ns >= r->rc.interval_ns && pos > r->empty_size;
}

/* The rotated name of the try `n` this second (from the one after the
 * last name of the same second). */
static void rotated_at(struct ct_rotor *r, time_t sec, unsigned n)
{
	size_t stem = stem_len(r->base);
	struct tm tm;

	gmtime_r(&sec, &tm);
	snprintf(r->rotated, sizeof(r->rotated), "%.*s.%04d%02d%02dT%02d%02d%02dZ-%03u%s", (int)stem, r->base,
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, n, r->base + stem);
}

static void join_worker(struct ct_rotor *r)
{
	if (r->running) {
		pthread_join(r->worker, NULL);
		r->running = false;
	}
}

int ct_rotor_rename(struct ct_rotor *r, FILE *out)
{
	struct stat cur, st;
	int err = -EEXIST;
	time_t sec;

	/* What the last worker removes and compresses is settled first, and the
	 * name it held is free for this one. */
	join_worker(r);
	if ((out && fstat(fileno(out), &cur)) || fstatat(r->dfd, r->base, &st, AT_SYMLINK_NOFOLLOW)) {
		err = -errno;
		goto fail;
	}
	/* No file open: the one a session before finished, ours alone. */
	if (!out && S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1)
		cur = st;
	if (cur.st_dev != st.st_dev || cur.st_ino != st.st_ino) {
		ct_err("%s: %s in its folder is no longer the file written (replaced or removed): not rotated",
		       r->what, r->base);
		err = -ESTALE;
		goto fail;
	}
	/* Never over anything that is there, a link someone planted included:
	 * RENAME_NOREPLACE fails instead, and the next number is tried. */
	sec = time(NULL);
	for (unsigned n = sec == r->last_sec ? r->last_n + 1 : 0; err == -EEXIST && n < PER_SECOND; n++) {
		rotated_at(r, sec, n);
		err = renameat2(r->dfd, r->base, r->dfd, r->rotated, RENAME_NOREPLACE) ? -errno : 0;
		r->last_sec = sec;
		r->last_n = n;
	}
	if (err)
		goto fail;
	r->dev = cur.st_dev;
	r->ino = cur.st_ino;
	return 0;
fail:
	ct_err("%s: rotating %s failed: %s; the file goes on, rotation is tried again in a second", r->what,
	       r->base, strerror(-err));
	r->retry_ns = mono_ns() + RETRY_NS;
	return err;
}

const char *ct_rotor_rotated(const struct ct_rotor *r)
{
	return r->rotated;
}

/* The rotated file src as src.gz: made new (O_EXCL, never through a link),
 * then src removed; on any failure the .gz is removed and src stays. */
static int gzip_file(struct ct_rotor *r, const char *src)
{
	char dst[NAME_MAX_ROT + 1];
	int in = -1, out = -1, err = 0;
	gzFile gz = NULL;
	char *buf = NULL;
	struct stat st;
	ssize_t n;

	snprintf(dst, sizeof(dst), "%s.gz", src);
	/* Non-blocking: a FIFO put in its place must not hang the worker (it is then not ours below). */
	in = openat(r->dfd, src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0 || fstat(in, &st)) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_dev != r->dev || st.st_ino != r->ino) { /* replaced since the rename */
		err = -ESTALE;
		goto out;
	}
	out = openat(r->dfd, dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		err = -errno;
		goto out;
	}
	buf = malloc(GZ_CHUNK);
	gz = buf ? gzdopen(out, "wb6") : NULL;
	if (!gz) {
		err = -ENOMEM;
		goto out;
	}
	out = -1; /* gzclose closes it */
	while ((n = read(in, buf, GZ_CHUNK)) > 0)
		if (gzwrite(gz, buf, (unsigned)n) != (int)n) {
			err = -EIO;
			break;
		}
	if (n < 0 && !err)
		err = -errno;
	if (gzclose(gz) != Z_OK && !err)
		err = -EIO;
	gz = NULL;
	if (!err && unlinkat(r->dfd, src, 0))
		err = -errno;
	if (err)
		unlinkat(r->dfd, dst, 0);
out:
	if (gz)
		gzclose(gz);
	if (out >= 0) {
		close(out);
		if (err)
			unlinkat(r->dfd, dst, 0);
	}
	if (in >= 0)
		close(in);
	free(buf);
	if (err)
		ct_err("%s: compressing %s failed: %s; it is kept as it is", r->what, src, strerror(-err));
	return err;
}

static void *worker(void *arg)
{
	struct ct_rotor *r = arg;

	if (r->rc.compress == CT_ROTATE_GZIP)
		gzip_file(r, r->rotated);
	if (r->rc.keep || r->rc.keep_bytes)
		ct_rotate_prune(r->dfd, r->base, r->rc.keep, r->rc.keep_bytes);
	return NULL;
}

void ct_rotor_finished(struct ct_rotor *r)
{
	int err;

	if (r->rc.compress == CT_ROTATE_NONE && !r->rc.keep && !r->rc.keep_bytes)
		return;
	err = pthread_create(&r->worker, NULL, worker, r);
	if (err) { /* no thread: done here, the reader waits */
		worker(r);
		return;
	}
	r->running = true;
}

void ct_rotor_free(struct ct_rotor *r)
{
	if (!r)
		return;
	join_worker(r);
	if (r->dfd >= 0)
		close(r->dfd);
	free(r->what);
	free(r->base);
	free(r);
}

/* NAME.YYYYmmddTHHMMSSZ-NNN.EXT[.gz] of base NAME.EXT: the names
 * ct_rotor_rename makes, and only those. */
static bool rotated_name(const char *name, const char *base)
{
	static const char shape[] = "DDDDDDDDTDDDDDDZ-DDD";
	size_t stem = stem_len(base), ext = strlen(base + stem);
	const char *p = name;

	if (strncmp(p, base, stem) || p[stem] != '.')
		return false;
	p += stem + 1;
	for (size_t i = 0; i < STAMP_LEN; i++, p++)
		if (shape[i] == 'D' ? (*p < '0' || *p > '9') : *p != shape[i])
			return false;
	if (strncmp(p, base + stem, ext))
		return false;
	p += ext;
	return !*p || !strcmp(p, ".gz");
}

struct kept {
	char *name;
	uint64_t size;
};

static int newest_first(const void *a, const void *b)
{
	/* The stamp is fixed-width: names sort as times do. */
	return -strcmp(((const struct kept *)a)->name, ((const struct kept *)b)->name);
}

int ct_rotate_prune(int dfd, const char *base, uint64_t keep, uint64_t keep_bytes)
{
	int lfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
	struct kept *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *e;
	int removed = 0;

	if (!d) {
		if (lfd >= 0)
			close(lfd);
		return -errno;
	}
	while ((e = readdir(d))) {
		struct stat st;

		if (!rotated_name(e->d_name, base))
			continue;
		/* Ours only: a plain file of the user we run as, with no other
		 * name; a link, another user's file or a hard link is left be. */
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid() || st.st_nlink != 1)
			continue;
		if (n == cap) {
			struct kept *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		v[n].name = strdup(e->d_name);
		if (!v[n].name)
			break;
		v[n++].size = (uint64_t)st.st_size;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), newest_first);
	for (size_t i = 0; i < n; i++) {
		total += v[i].size;
		if ((keep && i >= keep) || (keep_bytes && total > keep_bytes)) {
			if (!unlinkat(dfd, v[i].name, 0))
				removed++;
		}
		free(v[i].name);
	}
	free(v);
	return removed;
}
