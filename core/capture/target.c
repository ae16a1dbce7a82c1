// SPDX-License-Identifier: MIT
/*
 * Finding the runtime copies to probe: the ones a process really maps
 * (/proc/PID/maps, opened through /proc/PID/root so containers work), and
 * the ones installed on the system. PyTorch, conda and pip wheels bring
 * their own libcudart: never assume /usr/local/cuda.
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

struct seen {
	dev_t *dev;
	ino_t *ino;
	int n;
};

static bool seen_before(struct seen *s, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return true; /* unreadable: nothing to probe */
	for (int i = 0; i < s->n; i++)
		if (s->dev[i] == st.st_dev && s->ino[i] == st.st_ino)
			return true;
	s->dev = realloc(s->dev, (s->n + 1) * sizeof(*s->dev));
	s->ino = realloc(s->ino, (s->n + 1) * sizeof(*s->ino));
	if (!s->dev || !s->ino)
		return true;
	s->dev[s->n] = st.st_dev;
	s->ino[s->n++] = st.st_ino;
	return false;
}

static void seen_free(struct seen *s)
{
	free(s->dev);
	free(s->ino);
}

int ct_target_pid_files(pid_t pid, ct_target_fn fn, void *ctx)
{
	char maps[64], line[PATH_MAX + 256], open_path[PATH_MAX + 64];
	struct seen seen = { 0 };
	FILE *f;
	int err = 0;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f) {
		err = -errno;
		ct_err("cannot read %s: %s%s", maps, strerror(errno),
		       errno == ENOENT ? " (no such process)" : "");
		return err;
	}
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		size_t len;

		if (!path)
			continue;
		len = strlen(path);
		if (len && path[len - 1] == '\n')
			path[--len] = 0;
		if (len > 10 && !strcmp(path + len - 10, " (deleted)"))
			continue;
		snprintf(open_path, sizeof(open_path), "/proc/%d/root%s", pid, path);
		if (seen_before(&seen, open_path))
			continue;
		if (fn(open_path, path, ctx))
			break;
	}
	fclose(f);
	seen_free(&seen);
	return 0;
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
	int n = 0, found = 0;
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
			if (seen_before(&seen, path))
				continue;
			found++;
			if (fn(path, path, ctx))
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
