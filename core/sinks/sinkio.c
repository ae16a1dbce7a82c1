// SPDX-License-Identifier: MIT
/* Output helpers shared by several sinks: see sinkio.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include "sinks/sink.h"
#include "sinks/sinkio.h"
#include "util/log.h"
#include "util/strbuf.h"

#define CT_OUT_MAX_LINKS 40 /* the kernel's limit for one lookup */

/* Who may own what we write to: the user we run as; under sudo also the
 * user who ran sudo, for files (never for symbolic links: through their
 * own link they could point root at any file). */
struct out_user {
	uid_t uid;
	bool sudo;
	uid_t sudo_uid;
	gid_t sudo_gid;
	bool own_folder; /* ct_out_create_private: the file's folder is no other user's to change */
};

static bool parse_id(const char *s, unsigned *v)
{
	char *end;
	unsigned long n;

	if (!s || !*s)
		return false;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n >= UINT_MAX)
		return false;
	*v = (unsigned)n;
	return true;
}

static void out_user(struct out_user *u)
{
	unsigned uid, gid;

	*u = (struct out_user){ .uid = geteuid() };
	u->sudo = u->uid == 0 && parse_id(getenv("SUDO_UID"), &uid) && parse_id(getenv("SUDO_GID"), &gid) &&
		  uid != 0;
	if (u->sudo) {
		u->sudo_uid = uid;
		u->sudo_gid = gid;
	}
}

bool ct_fd_opened_again(int fd, const struct stat *st)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		struct stat o;
		int n = atoi(e->d_name);

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || n == fd || n == dirfd(d))
			continue;
		found = !fstat(n, &o) && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
	}
	closedir(d);
	return found;
}

/* /dev/null, /dev/zero and /dev/full: writes go nowhere (or fail, for
 * tests of a full disk), and opening them does nothing. */
bool ct_out_is_dev_null(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 &&
	       (minor(st->st_rdev) == 3 || minor(st->st_rdev) == 5 || minor(st->st_rdev) == 7);
}

static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" :
	       S_ISDIR(m) ? "a folder" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* Root follows a symbolic link only of its own or of the user it runs as:
 * through their own link, another user (the one who ran sudo included)
 * could point it at any file or folder. */
static bool link_refused(const char *what, const char *shown, const struct out_user *u, const struct stat *st,
			 const char *whose, int whose_len)
{
	if (st->st_uid == u->uid || st->st_uid == 0)
		return false;
	ct_err("%s: refusing to write to %s: %s%.*s is a symbolic link owned by uid %u, not by uid %u running "
	       "cudatracer or root (give the path it points to)", what, shown, whose_len ? "its folder " : "it",
	       whose_len, whose, (unsigned)st->st_uid, (unsigned)u->uid);
	return true;
}

/*
 * The folder `dir` (absolute, or relative to `at`), one name at a time: the
 * kernel would follow a link anywhere on the way, so a user's folder
 * swapped for a link to /etc would have root write in /etc. Each name is
 * opened with O_PATH | O_NOFOLLOW in the folder before it; a link is
 * followed under the rule of a link in the last place (link_refused), read
 * through its own descriptor. Says why when it fails.
 */
static int walk_dir(const char *what, const char *shown, const struct out_user *u, int at, const char *dir,
		    int *links, int *dfdp)
{
	char *copy = strdup(dir), *save = NULL, *name;
	int cur = -1, next = -1, err = 0;

	if (!copy)
		return -ENOMEM;
	cur = openat(at, dir[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0) {
		err = -errno;
		goto cant_open;
	}
	for (name = strtok_r(copy, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		char target[PATH_MAX];
		struct stat st;
		ssize_t n;

		if (!strcmp(name, "."))
			continue;
		next = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 || fstat(next, &st)) {
			err = -errno;
			goto cant_open;
		}
		if (S_ISLNK(st.st_mode)) {
			if (link_refused(what, shown, u, &st, dir, (int)(name - copy + strlen(name)))) {
				err = -EPERM;
				goto out;
			}
			n = readlinkat(next, "", target, sizeof(target));
			err = n < 0 ? -errno : (size_t)n >= sizeof(target) ? -ENAMETOOLONG :
			      ++*links > CT_OUT_MAX_LINKS ? -ELOOP : 0;
			if (err)
				goto cant_open;
			target[n] = 0;
			close(next);
			next = -1;
			err = walk_dir(what, shown, u, cur, target, links, &next);
			if (err)
				goto out;
		} else if (!S_ISDIR(st.st_mode)) {
			err = -ENOTDIR;
			goto cant_open;
		}
		close(cur);
		cur = next;
		next = -1;
	}
	*dfdp = cur;
	cur = -1;
	goto out;
cant_open:
	ct_err("%s: cannot open %s for writing: %s", what, shown, strerror(-err));
out:
	if (next >= 0)
		close(next);
	if (cur >= 0)
		close(cur);
	free(copy);
	return err;
}

/* A folder where another user may rename, remove or replace what we
 * create: theirs, or writable by a group other than root's, or by anyone;
 * unless sticky (/tmp), where only a file's owner may. */
static bool folder_shared(const struct out_user *u, const struct stat *ds)
{
	if (ds->st_mode & S_ISVTX)
		return false;
	return (ds->st_uid != 0 && ds->st_uid != u->uid) || ((ds->st_mode & S_IWGRP) && ds->st_gid != 0) ||
	       (ds->st_mode & S_IWOTH);
}

/* One step of ct_out_open: path relative to the folder `at`. */
static int open_at(const char *what, const char *shown, const struct out_user *u, int at, const char *path,
		   int *links, enum ct_out_mode mode, int *fdp)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	char target[PATH_MAX];
	struct stat ds, st, again;
	bool created = false;
	int dfd = -1, fd = -1, err = 0;
	ssize_t n;

	if (!dir)
		return -ENOMEM;
	if (!*base) {
		err = -EISDIR;
		goto cant_open;
	}
	/* The folder is held open: what we check and what we open are in it. */
	err = walk_dir(what, shown, u, at, dir, links, &dfd);
	if (err)
		goto out;
	if (fstat(dfd, &ds)) {
		err = -errno;
		goto cant_open;
	}
	if (u->own_folder && folder_shared(u, &ds)) {
		ct_err("%s: refusing to create %s: its folder (mode %04o, uid %u, gid %u) may be changed by other "
		       "users and is not sticky (give a path in a folder of root's)", what, shown,
		       (unsigned)(ds.st_mode & 07777), (unsigned)ds.st_uid, (unsigned)ds.st_gid);
		err = -EPERM;
		goto out;
	}
	for (int tries = 0; fd < 0; tries++) {
		if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT) {
				err = -errno;
				goto cant_open;
			}
			fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
			if (fd < 0 && errno == EEXIST && mode == CT_OUT_NEW) {
				err = -EEXIST;
				goto out;
			}
			if (fd < 0 && errno == EEXIST && tries < 3)
				continue; /* made meanwhile: look at it again */
			if (fd < 0) {
				err = -errno;
				goto cant_open;
			}
			created = true;
			break;
		}
		if (mode == CT_OUT_NEW) { /* a name in use, whatever it is: the caller picks another */
			err = -EEXIST;
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			if (link_refused(what, shown, u, &st, "", 0)) {
				err = -EPERM;
				goto out;
			}
			if (++*links > CT_OUT_MAX_LINKS) {
				err = -ELOOP;
				goto cant_open;
			}
			n = readlinkat(dfd, base, target, sizeof(target));
			/* A link cannot be changed, only replaced: the same inode
			 * after the read means we read the link we checked. */
			if (n < 0 || fstatat(dfd, base, &again, AT_SYMLINK_NOFOLLOW)) {
				err = -errno;
				goto cant_open;
			}
			if ((size_t)n >= sizeof(target)) {
				err = -ENAMETOOLONG;
				goto cant_open;
			}
			target[n] = 0;
			if (again.st_ino != st.st_ino || again.st_dev != st.st_dev)
				continue;
			err = open_at(what, shown, u, dfd, target, links, mode, fdp);
			goto out;
		}
		/* Before any open, which for a device may do something (a tape
		 * rewinds, a watchdog arms); the descriptor is checked again. */
		if (!S_ISREG(st.st_mode) && !ct_out_is_dev_null(&st))
			break;
		fd = openat(dfd, base, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 && (errno == ELOOP || errno == ENOENT) && tries < 3)
			continue; /* replaced meanwhile */
		if (fd < 0) {
			err = -errno;
			goto cant_open;
		}
	}
	if (fd >= 0 && fstat(fd, &st)) {
		err = -errno;
		goto cant_open;
	}
	if (ct_out_is_dev_null(&st))
		goto opened;
	if (!S_ISREG(st.st_mode)) {
		ct_err("%s: refusing to write to %s: it is %s, not a regular file (for standard output give -)",
		       what, shown, file_kind(st.st_mode));
		err = -EINVAL;
		goto out;
	}
	if (!created && st.st_uid != u->uid && !(u->sudo && st.st_uid == u->sudo_uid)) {
		ct_err("%s: refusing to write to %s: it is owned by uid %u, not by uid %u running cudatracer "
		       "(remove it, or give another path)", what, shown, (unsigned)st.st_uid, (unsigned)u->uid);
		err = -EPERM;
		goto out;
	}
	if (!created && st.st_nlink > 1) {
		ct_err("%s: refusing to write to %s: it has %lu hard links, and another of its names may be a file "
		       "that must not be overwritten (remove it, or give another path)",
		       what, shown, (unsigned long)st.st_nlink);
		err = -EPERM;
		goto out;
	}
	/* Trace data shows other people's kernels, sizes and pointers: the
	 * owner alone reads it (whatever the umask). Under sudo, a new file in
	 * the invoking user's own folder is theirs, so they can read their
	 * trace. A file that was there keeps its owner and mode. */
	if (created && (fchmod(fd, 0600) ||
			(u->sudo && ds.st_uid == u->sudo_uid && fchown(fd, u->sudo_uid, u->sudo_gid)))) {
		err = -errno;
		goto cant_open;
	}
	/* Emptied only now that it has passed; continued, every write goes
	 * at its end whoever else writes to it. */
	if (!created && mode == CT_OUT_EMPTY && ftruncate(fd, 0)) {
		err = -errno;
		goto cant_open;
	}
opened:
	if (fcntl(fd, F_SETFL, (fcntl(fd, F_GETFL) & ~O_NONBLOCK) | (mode == CT_OUT_APPEND ? O_APPEND : 0))) {
		err = -errno;
		goto cant_open;
	}
	*fdp = fd;
	fd = -1;
	goto out;
cant_open:
	ct_err("%s: cannot open %s for writing: %s", what, shown, strerror(-err));
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	free(dir);
	return err;
}

static int out_open_as(const struct out_user *as, const char *what, const char *path, enum ct_out_mode mode,
		       FILE **out)
{
	struct out_user u = *as;
	int fd = -1, links = 0, err;

	err = open_at(what, path, &u, AT_FDCWD, path, &links, mode, &fd);
	if (err)
		return err;
	*out = fdopen(fd, mode == CT_OUT_APPEND ? "a" : "w");
	if (!*out) {
		err = -errno;
		close(fd);
		ct_err("%s: cannot open %s for writing: %s", what, path, strerror(-err));
	}
	return err;
}

static int out_open(const char *what, const char *path, enum ct_out_mode mode, FILE **out)
{
	struct out_user u;

	out_user(&u);
	return out_open_as(&u, what, path, mode, out);
}

int ct_out_folder(const char *what, const char *path, int *dfdp)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	struct out_user u;
	int links = 0, err;

	if (!dir)
		return -ENOMEM;
	out_user(&u);
	err = walk_dir(what, path, &u, AT_FDCWD, dir, &links, dfdp);
	free(dir);
	return err;
}

int ct_out_create_private(const char *what, const char *path, FILE **out)
{
	struct out_user u;

	out_user(&u);
	u.sudo = false; /* a request's file is root's alone */
	u.own_folder = true;
	return out_open_as(&u, what, path, CT_OUT_NEW, out);
}

int ct_out_open(const char *what, const char *path, FILE **out)
{
	if (!path || !strcmp(path, "-") || !strcmp(path, "/dev/stdout")) {
		*out = stdout;
		return 0;
	}
	return out_open(what, path, CT_OUT_EMPTY, out);
}

int ct_out_open_mode(const char *what, const char *path, enum ct_out_mode mode, FILE **out)
{
	return mode == CT_OUT_EMPTY ? ct_out_open(what, path, out) : out_open(what, path, mode, out);
}

int ct_out_create(const char *what, const char *path, FILE **out)
{
	return out_open(what, path, CT_OUT_NEW, out);
}

char *ct_w_csv_field(char *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	bool quote = strpbrk((const char *)p, ",\"") != NULL;

	/* Line breaks are escaped with the other controls, so a row is one
	 * line; only a comma or a quote still needs the quotes. */
	if (quote)
		*w++ = '"';
	while (*p) {
		int n = ct_text_keep(p);

		if (*p == '"')
			*w++ = '"';
		if (!n) {
			w = ct_w_xhh(w, *p++);
			continue;
		}
		w = ct_w_put(w, (const char *)p, n);
		p += n;
	}
	if (quote)
		*w++ = '"';
	return w;
}

void ct_csv_field(FILE *out, const char *s)
{
	struct ct_sb b = { 0 };

	if (!ct_sb_room(&b, ct_csv_field_max(s)))
		return;
	CT_SB_APPLY(&b, ct_w_csv_field(b.p, s));
	fwrite(b.p, 1, b.len, out);
	ct_sb_free(&b);
}

const char *ct_text_comm(char buf[CT_COMM_TEXT], const char *comm)
{
	ct_text_esc(buf, CT_COMM_TEXT, comm);
	return buf;
}

bool ct_out_rewritable(FILE *out)
{
	struct stat st;
	int fd = out ? fileno(out) : -1;
	int fl;

	/* Standard output is the shell's: a file it opened holds what was
	 * written before us, and the traced command writes into it too. */
	if (fd < 0 || out == stdout || fstat(fd, &st) || !S_ISREG(st.st_mode))
		return false;
	fl = fcntl(fd, F_GETFL);
	return fl >= 0 && !(fl & O_APPEND);
}

bool ct_out_continued(FILE *out)
{
	struct stat st;
	int fd = out ? fileno(out) : -1;
	int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;

	return fl >= 0 && (fl & O_APPEND) && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0;
}

int ct_out_restart(FILE *out)
{
	if (fflush(out))
		return -errno;
	rewind(out);
	if (ftruncate(fileno(out), 0))
		return -errno;
	return 0;
}

void ct_fmt_time(char *buf, size_t n, uint64_t ts_ns)
{
	time_t sec = (time_t)(ts_ns / 1000000000ull);
	struct tm tm;

	gmtime_r(&sec, &tm);
	snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%06uZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned)(ts_ns % 1000000000ull / 1000));
}

void ct_html_str(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		int n = ct_text_keep(p);

		switch (n ? *p : 0) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		case 0:
			/* A C0 control or DEL as its control picture (ESC: U+241B),
			 * a C1 control or a byte that is not UTF-8 as U+FFFD. */
			n = *p >= 0x80 && ct_utf8_is_c1(p) ? 2 : 1;
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "&#x%x;", *p == 0x7f ? 0x2421 : 0x2400 + *p);
			else
				fputs("&#xfffd;", out);
			break;
		default: fwrite(p, 1, n, out);
		}
		p += n;
	}
}
