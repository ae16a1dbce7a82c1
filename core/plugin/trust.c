// SPDX-License-Identifier: MIT
/*
 * Opening a file that a privileged run will load or obey (a plugin, a config
 * file) so that the file checked is the file used, as sudo does for
 * sudoers. The path is walked from / one name at a time: each is opened with
 * O_PATH | O_NOFOLLOW in the folder descriptor already checked, and checked
 * on its own descriptor before the next name is looked up in it; a symbolic
 * link is read through its own descriptor and what it names walked the same
 * way; the file is checked on the descriptor that is then read or loaded.
 * No path is looked up twice, so a user who owns a link or a folder on the
 * way (or can swap one) cannot change what is used once it was checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include "plugin/trust.h"

#define TRUST_MAX_LINKS 40 /* the kernel's limit for one lookup */

struct walk {
	bool check;          /* apply the ownership and mode rules */
	int links;           /* symbolic links followed so far */
	char real[PATH_MAX]; /* the name walked to, as realpath(3) would say it */
	char *why;
	size_t n;
};

bool ct_trust_privileged(void)
{
	return geteuid() == 0 || getauxval(AT_SECURE);
}

/* The rule for the file and for every folder on the way to it. */
static int check_one(struct walk *w, const struct stat *st)
{
	/* A root-owned sticky folder (/tmp) is safe: others cannot replace our entries. */
	bool sticky_dir = S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) && st->st_uid == 0;

	if (!w->check || S_ISLNK(st->st_mode))
		return 0; /* a link cannot be changed, and what it names is checked */
	/* A setuid or setcap run must not trust its caller's own files either. */
	if (st->st_uid != 0 && (st->st_uid != geteuid() || getauxval(AT_SECURE))) {
		snprintf(w->why, w->n, "%s is owned by uid %u, not root", w->real, st->st_uid);
		return -EPERM;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !sticky_dir) {
		snprintf(w->why, w->n, "%s is writable by %s (chmod go-w %s)", w->real,
			 (st->st_mode & S_IWOTH) ? "every user" : "its group", w->real);
		return -EPERM;
	}
	return 0;
}

static int fail(struct walk *w, int err)
{
	snprintf(w->why, w->n, "%s: %s", *w->real ? w->real : "/", strerror(-err));
	return err;
}

/* real: "/a/b" + "c" -> "/a/b/c"; ".." -> "/a". */
static int real_step(struct walk *w, const char *name)
{
	size_t len = strlen(w->real);

	if (!strcmp(name, "..")) {
		char *slash = strrchr(w->real, '/');

		if (slash)
			*slash = 0;
		return 0;
	}
	if (len + 1 + strlen(name) >= sizeof(w->real))
		return fail(w, -ENAMETOOLONG);
	w->real[len] = '/';
	strcpy(w->real + len + 1, name);
	return 0;
}

static int open_root(struct walk *w)
{
	struct stat st;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), err;

	w->real[0] = 0;
	if (fd < 0)
		return fail(w, -errno);
	if (fstat(fd, &st))
		err = fail(w, -errno);
	else if ((err = check_one(w, &st)) == 0)
		return fd;
	close(fd);
	return err;
}

/*
 * Walk `path` from the folder `at` (already checked; / for an absolute
 * path) and return an O_PATH descriptor of what it names, links followed,
 * every name on the way checked. `at` is not closed.
 */
static int walk_from(struct walk *w, int at, const char *path)
{
	char *copy = strdup(path), *save = NULL, *name;
	int cur = -1, err = 0;

	if (!copy)
		return fail(w, -ENOMEM);
	if (path[0] == '/')
		cur = open_root(w);
	else if ((cur = fcntl(at, F_DUPFD_CLOEXEC, 0)) < 0)
		cur = fail(w, -errno);
	if (cur < 0) {
		err = cur;
		goto out;
	}
	for (name = strtok_r(copy, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		char target[PATH_MAX];
		struct stat st;
		ssize_t len;
		int next;

		if (!strcmp(name, "."))
			continue;
		next = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			err = -errno;
			if (!real_step(w, name))
				fail(w, err);
			goto out;
		}
		if (fstat(next, &st) || (err = real_step(w, name))) {
			err = err ? err : fail(w, -errno);
			close(next);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			len = readlinkat(next, "", target, sizeof(target));
			close(next);
			if (len < 0 || (size_t)len >= sizeof(target) || ++w->links > TRUST_MAX_LINKS) {
				err = fail(w, len < 0 ? -errno : len >= (ssize_t)sizeof(target) ? -ENAMETOOLONG : -ELOOP);
				goto out;
			}
			target[len] = 0;
			real_step(w, ".."); /* back to the link's folder */
			next = walk_from(w, cur, target);
			if (next < 0) {
				err = next;
				goto out;
			}
		} else if ((err = check_one(w, &st))) {
			close(next);
			goto out;
		}
		close(cur);
		cur = next;
	}
out:
	free(copy);
	if (err && cur >= 0)
		close(cur);
	return err ? err : cur;
}

int ct_trusted_open(const char *path, bool check, char *why, size_t n)
{
	struct walk w = { .check = check, .why = why, .n = n };
	char cwd[PATH_MAX], fd_name[64];
	struct stat st, again;
	int at = AT_FDCWD, pfd, fd = -1, err = 0;

	if (!check) {
		/* Nothing to defend: the file is the user's own business. */
		fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		snprintf(w.real, sizeof(w.real), "%s", path);
		if (fd < 0)
			return fail(&w, -errno);
		pfd = fd;
		goto opened;
	}
	/* A relative path is walked from / too, through the current folder's name. */
	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return fail(&w, -errno);
		at = walk_from(&w, AT_FDCWD, cwd);
		if (at < 0)
			return at;
	}
	pfd = walk_from(&w, at, path);
	if (at != AT_FDCWD)
		close(at);
	if (pfd < 0)
		return pfd;
opened:
	if (fstat(pfd, &st)) {
		err = fail(&w, -errno);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, n, "%s is not a regular file", w.real);
		err = -EINVAL;
		goto out;
	}
	if (pfd == fd) {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		return fd;
	}
	/* Now that it is known to be a regular file, open it to read: the
	 * O_PATH descriptor's own file, through its name in /proc. */
	snprintf(fd_name, sizeof(fd_name), "/proc/self/fd/%d", pfd);
	fd = open(fd_name, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &again)) {
		err = fail(&w, -errno);
		goto out;
	}
	if (again.st_dev != st.st_dev || again.st_ino != st.st_ino) {
		err = fail(&w, -ESTALE);
		goto out;
	}
out:
	if (pfd != fd)
		close(pfd);
	if (err && fd >= 0)
		close(fd);
	return err ? err : fd;
}
