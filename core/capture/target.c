// SPDX-License-Identifier: MIT
/*
 * Finding the runtime copies to probe: the ones a process really maps
 * (/proc/PID/maps, opened through /proc/PID/root so containers work), and
 * the ones installed on the system. PyTorch, conda and pip wheels bring
 * their own libcudart: never assume /usr/local/cuda.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cudatracer/plugin.h>
#include "util/procfs.h"
#include "symbols/elf.h"
#include "util/log.h"
#include "capture/target.h"

bool ct_target_name_matches(const char *path, const char *const *prefixes, size_t n)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; prefixes && i < n; i++)
		if (prefixes[i] && !strncmp(base, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/*
 * Files are opened once, O_PATH (no device is ever opened for real, and
 * nothing read), known by that descriptor's inode, and handed on as
 * /proc/self/fd/N: whatever happens to the path they were found by (a
 * descriptor the process closes, a path that exists only in its mount
 * namespace), that names the file found.
 */
struct seen {
	dev_t *dev;
	ino_t *ino;
	int n;
};

static bool seen_before(struct seen *s, const struct stat *st)
{
	dev_t *dev;
	ino_t *ino;

	for (int i = 0; i < s->n; i++)
		if (s->dev[i] == st->st_dev && s->ino[i] == st->st_ino)
			return true;
	dev = realloc(s->dev, (s->n + 1) * sizeof(*dev));
	if (dev)
		s->dev = dev;
	ino = realloc(s->ino, (s->n + 1) * sizeof(*ino));
	if (ino)
		s->ino = ino;
	if (!dev || !ino)
		return true;
	s->dev[s->n] = st->st_dev;
	s->ino[s->n++] = st->st_ino;
	return false;
}

static void seen_free(struct seen *s)
{
	free(s->dev);
	free(s->ino);
}

/*
 * Open `at`, and if it is a regular file not seen before (and, given a
 * prefix, one whose name still starts with it), call fn with it. `display`
 * NULL: the name the file has now. Returns 1 if fn was called (its result in
 * *stop), 0 if the file was skipped, or -errno when `at` cannot be opened.
 */
/* visit() of a descriptor the caller opened (O_PATH) and keeps. */
static int visit_fd(int fd, const char *display, const char *prefix, struct seen *seen, ct_target_fn fn,
		    void *ctx, int *stop)
{
	char self[32], name[PATH_MAX];
	struct stat st;
	ssize_t n;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return 0;
	n = readlink(self, name, sizeof(name) - 1);
	name[n > 0 ? n : 0] = 0;
	if (prefix && !ct_target_name_matches(name, &prefix, 1))
		return 0;
	if (seen_before(seen, &st))
		return 0;
	*stop = fn(self, display ? display : name, ctx);
	return 1;
}

static int visit(const char *at, const char *display, const char *prefix, struct seen *seen,
		 ct_target_fn fn, void *ctx, int *stop)
{
	int fd = open(at, O_PATH | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = visit_fd(fd, display, prefix, seen, fn, ctx, stop);
	close(fd);
	return ret;
}

/*
 * A zombie or a kernel thread has no user-space code left to probe and never
 * sends the exit event that ends a -p run: the tracer would wait for good.
 */
int ct_target_check_pid(pid_t pid)
{
	struct ct_proc_stat st;
	int err = ct_proc_stat((uint32_t)pid, &st);

	if (err == -ENOENT || err == -ESRCH) {
		ct_err("-p %d: no such process", pid);
		return err;
	}
	if (err == -EINVAL) {
		ct_err("-p %d: cannot parse /proc/%d/stat", pid, pid);
		return err;
	}
	if (err) {
		ct_err("-p %d: cannot read /proc/%d/stat: %s", pid, pid, strerror(-err));
		return err;
	}
	if (st.state == 'Z' || st.state == 'X') {
		ct_err("-p %d: process %d (%s) has exited (a zombie, waiting for its parent %d to reap it): "
		       "there is nothing left to trace", pid, pid, st.comm, st.ppid);
		return -ESRCH;
	}
	if (st.flags & CT_PF_KTHREAD) {
		ct_err("-p %d: %d (%s) is a kernel thread: it runs no user-space code, so no runtime "
		       "call to trace", pid, pid, st.comm);
		return -EINVAL;
	}
	return 0;
}

/*
 * Each file mapped by the process whose name starts with `prefix` (NULL:
 * any), through /proc/PID/map_files (the mapping itself, CAP_SYS_ADMIN),
 * else /proc/PID/root (containers). Returns how many fn was called for, or
 * -errno when the maps cannot be read.
 */
static int each_mapped_file(pid_t pid, const char *prefix, struct seen *seen, ct_target_fn fn, void *ctx)
{
	char maps[64], line[PATH_MAX + 256], at[PATH_MAX + 64];
	int found = 0, stop = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return -errno;
	while (!stop && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		size_t len, range = strcspn(line, " ");
		int r;

		if (!path)
			continue;
		len = strlen(path);
		if (len && path[len - 1] == '\n')
			path[--len] = 0;
		if (len > 10 && !strcmp(path + len - 10, " (deleted)"))
			continue;
		if (prefix && !ct_target_name_matches(path, &prefix, 1))
			continue;
		snprintf(at, sizeof(at), "/proc/%d/map_files/%.*s", pid, (int)range, line);
		r = visit(at, path, NULL, seen, fn, ctx, &stop);
		if (r < 0) {
			snprintf(at, sizeof(at), "/proc/%d/root%s", pid, path);
			r = visit(at, path, NULL, seen, fn, ctx, &stop);
		}
		found += r > 0;
	}
	fclose(f);
	return found;
}

int ct_target_pid_files(pid_t pid, ct_target_fn fn, void *ctx)
{
	struct seen seen = { 0 };
	int n = each_mapped_file(pid, NULL, &seen, fn, ctx);

	seen_free(&seen);
	if (n < 0)
		ct_err("cannot read /proc/%d/maps: %s%s", pid, strerror(-n),
		       n == -ENOENT ? " (no such process)" : "");
	return n < 0 ? n : 0;
}

/* Gone, or a zombie: its root no longer resolves. */
static bool process_ended(pid_t pid)
{
	char root[64];
	int fd;

	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	fd = open(root, O_PATH | O_CLOEXEC | O_DIRECTORY);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	close(fd);
	return false;
}

int ct_target_exe(pid_t pid, ct_target_fn fn, void *ctx)
{
	struct seen seen = { 0 };
	char exe[64];
	int stop = 0, r;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	r = visit(exe, NULL, NULL, &seen, fn, ctx, &stop);
	seen_free(&seen);
	if (r < 0 && process_ended(pid))
		return -ESRCH;
	return r < 0 ? r : 0;
}

/* Whether descriptors a and b are one file: 1, 0 (two files), or -errno. */
static int same_file(int a, int b)
{
	struct stat sa, sb;

	if (fstat(a, &sa) || fstat(b, &sb))
		return -errno;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int ct_target_opened(pid_t pid, int fd, const char *path, bool held, const char *prefix, ct_target_fn fn,
		     void *ctx)
{
	struct seen seen = { 0 };
	char at[PATH_MAX + 64];
	int stop = 0, r = 0, by_fd, by_path = -1;

	/* Each opened once, O_PATH: the descriptors compared are the ones visited. */
	snprintf(at, sizeof(at), "/proc/%d/fd/%d", pid, fd);
	by_fd = open(at, O_PATH | O_CLOEXEC);
	if (path && path[0]) {
		snprintf(at, sizeof(at), path[0] == '/' ? "/proc/%d/root%s" : "/proc/%d/cwd/%s", pid, path);
		by_path = open(at, O_PATH | O_CLOEXEC);
	}
	/* The descriptor, while it is open: always so where the watcher stopped
	 * the task (held), whatever its path names by now. Closed, its number
	 * may already name another file, even one of the same name (a copy
	 * written there by the same process: pip): unheld, it is taken only
	 * where the path it opened is gone or is that same file. */
	if (by_fd >= 0 && (held || by_path < 0 || same_file(by_fd, by_path) != 0))
		r = visit_fd(by_fd, NULL, prefix, &seen, fn, ctx, &stop);
	/* The path it opened, in its own root (or folder). */
	if (r <= 0 && by_path >= 0)
		r = visit_fd(by_path, path, NULL, &seen, fn, ctx, &stop);
	if (by_fd >= 0)
		close(by_fd);
	if (by_path >= 0)
		close(by_path);
	/* What it has mapped since (a path relative to a folder descriptor,
	 * or one renamed or replaced since). */
	if (r <= 0)
		r = each_mapped_file(pid, prefix, &seen, fn, ctx);
	seen_free(&seen);
	if (r > 0)
		return r;
	return process_ended(pid) ? -ESRCH : -ENOENT;
}

static int add_dir(char ***dirs, int *n, const char *d)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp((*dirs)[i], d))
			return 0;
	*dirs = realloc(*dirs, (*n + 1) * sizeof(char *));
	if (!*dirs)
		return -ENOMEM;
	(*dirs)[(*n)++] = strdup(d);
	return 0;
}

/* The folders listed in /etc/ld.so.conf.d/ *.conf (one per line). */
static void ld_conf_dirs(char ***dirs, int *n)
{
	glob_t g;

	if (glob("/etc/ld.so.conf.d/*.conf", 0, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "re");
		char line[PATH_MAX];

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n#")] = 0;
			if (line[0] == '/')
				add_dir(dirs, n, line);
		}
		fclose(f);
	}
	globfree(&g);
}

int ct_target_system_libs(const char *const *prefixes, size_t n_prefixes, ct_target_fn fn, void *ctx,
			  char *searched, size_t searched_len)
{
	static const char *const usual[] = { "/usr/local/cuda/lib64", "/usr/lib/x86_64-linux-gnu",
					      "/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib" };
	const char *cuda_home = getenv("CUDA_HOME");
	struct seen seen = { 0 };
	char **dirs = NULL, buf[PATH_MAX];
	int n = 0, found = 0, stop = 0;
	size_t used = 0;

	if (cuda_home) {
		snprintf(buf, sizeof(buf), "%s/lib64", cuda_home);
		add_dir(&dirs, &n, buf);
	}
	ld_conf_dirs(&dirs, &n);
	for (size_t i = 0; i < sizeof(usual) / sizeof(usual[0]); i++)
		add_dir(&dirs, &n, usual[i]);
	if (searched_len)
		searched[0] = 0;
	for (int i = 0; i < n; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;

		if (searched && used < searched_len)
			used += snprintf(searched + used, searched_len - used, "%s%s", used ? ", " : "", dirs[i]);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			char path[PATH_MAX];

			if (!ct_target_name_matches(de->d_name, prefixes, n_prefixes))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], de->d_name);
			if (visit(path, path, NULL, &seen, fn, ctx, &stop) > 0)
				found++;
			if (stop)
				break;
		}
		closedir(d);
	}
	for (int i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	seen_free(&seen);
	return found;
}

int ct_target_command_path(const char *program, char *out, size_t n)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL;

	if (strchr(program, '/')) {
		snprintf(out, n, "%s", program);
		return access(out, R_OK) ? -errno : 0;
	}
	copy = strdup(path ? path : "/usr/bin:/bin");
	if (!copy)
		return -ENOMEM;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, n, "%s/%s", d, program);
		if (!access(out, X_OK)) {
			free(copy);
			return 0;
		}
	}
	free(copy);
	return -ENOENT;
}

int ct_target_count_symbols(const struct ct_plugin *p, const char *path)
{
	const char **names = calloc(p->n_apis, sizeof(*names));
	uint64_t *offs = calloc(p->n_apis, sizeof(*offs));
	int found = -ENOMEM;

	if (names && offs) {
		for (size_t i = 0; i < p->n_apis; i++)
			names[i] = p->apis[i].symbol;
		found = ct_elf_resolve(path, names, p->n_apis, offs);
	}
	free(names);
	free(offs);
	return found;
}
