// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/procfs.h"

char *ct_proc_read(uint32_t pid, const char *name, size_t max, size_t *len)
{
	char path[64];

	if (snprintf(path, sizeof(path), "/proc/%u/%s", pid, name) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return ct_file_read(path, max, len);
}

long ct_proc_status_field(uint32_t pid, const char *key)
{
	char *status = ct_proc_read(pid, "status", 1 << 16, NULL), *p;
	size_t n = strlen(key);
	long v = -1;

	/* At a line's start: "Tgid:" is not "PPid:"'s tail, nor "NSpgid:"'s. */
	for (p = status; p && (p = strstr(p, key)); p += n)
		if (p == status || p[-1] == '\n') {
			v = strtol(p + n, NULL, 10);
			break;
		}
	free(status);
	return v;
}

char *ct_file_read(const char *path, size_t max, size_t *len)
{
	char *buf = NULL, *nb;
	size_t n = 0, cap = 0;
	struct stat st;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		err = errno;
		if (!err || S_ISDIR(st.st_mode) || !S_ISREG(st.st_mode))
			err = EINVAL;
		goto out;
	}
	for (;;) {
		ssize_t got;

		if (n + 1 >= cap) {
			if (cap > max)
				break;
			cap = cap ? cap * 4 : 16384;
			if (cap > max + 1)
				cap = max + 1;
			if (!(nb = realloc(buf, cap))) {
				err = ENOMEM;
				goto out;
			}
			buf = nb;
			if (n + 1 >= cap)
				break; /* max reached */
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		/* A process reaped after the open fails the read with ESRCH:
		 * said so, never an empty file (its stat unparsed, taken for
		 * a process that lives, whose exit then went unheard). */
		if (got < 0) {
			err = errno;
			goto out;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
out:
	close(fd);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

int ct_proc_stat(uint32_t pid, struct ct_proc_stat *st)
{
	size_t n;
	char *buf = ct_proc_read(pid, "stat", 4096, &n), *open_paren, *close_paren;
	int ret = -EINVAL;

	memset(st, 0, sizeof(*st));
	if (!buf)
		return -errno;
	/* The name may hold spaces and parentheses: it ends at the last ')'. */
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (open_paren && close_paren && close_paren > open_paren &&
	    sscanf(close_paren + 1, " %c %d %*d %*d %*d %*d %lu %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &st->state, &st->ppid, &st->flags, &st->start) >= 3) {
		snprintf(st->comm, sizeof(st->comm), "%.*s", (int)(close_paren - open_paren - 1), open_paren + 1);
		ret = 0;
	}
	free(buf);
	return ret;
}
