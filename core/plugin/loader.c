// SPDX-License-Identifier: MIT
/*
 * The plugin loader: find libct-NAME.so on the plugin path, dlopen it,
 * check the ABI version and the descriptor's size before reading anything
 * else, then check that its tables make sense. Running as root, refuse
 * files and folders that someone else could have written (as sudo does).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/log.h"
#include "plugin/loader.h"

/* The fields a plugin must provide; the BPF hook after them is optional. */
#define CT_PLUGIN_MIN_SZ offsetof(struct ct_plugin, bpf_hook)

static bool env_paths_allowed(void)
{
	/* Under sudo or setuid a plugin path from the environment could make
	 * root run a user's code: ignore it unless allowed explicitly. */
	if (getauxval(AT_SECURE))
		return false;
	if (getenv("SUDO_USER") && !getenv("CUDATRACER_ALLOW_ENV_PLUGIN_PATH"))
		return false;
	return true;
}

static int push_dirs(char ***v, int *n, const char *list)
{
	char *copy, *save = NULL;

	if (!list || !*list)
		return 0;
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char **nv = realloc(*v, (*n + 2) * sizeof(char *));

		if (!nv) {
			free(copy);
			return -ENOMEM;
		}
		*v = nv;
		(*v)[(*n)++] = strdup(tok);
		(*v)[*n] = NULL;
	}
	free(copy);
	return 0;
}

char **ct_plugin_dirs(const char *conf_path)
{
	char exe[PATH_MAX], buf[PATH_MAX + 64];
	char **v = calloc(1, sizeof(char *));
	const char *env = getenv("CUDATRACER_PLUGIN_PATH");
	ssize_t len;
	int n = 0;

	if (!v)
		return NULL;
	push_dirs(&v, &n, conf_path);
	if (env && env_paths_allowed())
		push_dirs(&v, &n, env);
	else if (env)
		ct_warn("ignoring CUDATRACER_PLUGIN_PATH under sudo/setuid (set CUDATRACER_ALLOW_ENV_PLUGIN_PATH=1 to use it)");
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		char *slash;

		exe[len] = 0;
		slash = strrchr(exe, '/');
		if (slash)
			*slash = 0;
		/* The build tree keeps plugins in build/plugins. */
		snprintf(buf, sizeof(buf), "%s/plugins", exe);
		push_dirs(&v, &n, buf);
		snprintf(buf, sizeof(buf), "%s/../lib/cudatracer/plugins", exe);
		push_dirs(&v, &n, buf);
	}
	push_dirs(&v, &n, CT_PLUGIN_DIR);
	return v;
}

void ct_plugin_dirs_free(char **dirs)
{
	for (int i = 0; dirs && dirs[i]; i++)
		free(dirs[i]);
	free(dirs);
}

static int check_one(const char *path, const struct stat *st, char *why, size_t n)
{
	/* A root-owned sticky folder (/tmp) is safe: others cannot replace our entries. */
	bool sticky_dir = S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) && st->st_uid == 0;

	/* A setuid or setcap run must not trust its caller's own files either. */
	if (st->st_uid != 0 && (st->st_uid != geteuid() || getauxval(AT_SECURE))) {
		snprintf(why, n, "%s is owned by uid %u, not root", path, st->st_uid);
		return -EPERM;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !sticky_dir) {
		snprintf(why, n, "%s is writable by %s (chmod go-w %s)", path,
			 (st->st_mode & S_IWOTH) ? "every user" : "its group", path);
		return -EPERM;
	}
	return 0;
}

int ct_path_is_trusted(const char *path, char *why, size_t n)
{
	char real[PATH_MAX];
	struct stat st;

	if (geteuid() != 0 && !getauxval(AT_SECURE))
		return 0;
	if (!realpath(path, real)) {
		snprintf(why, n, "%s: %s", path, strerror(errno));
		return -errno;
	}
	/* The file, then every folder up to the root. */
	for (;;) {
		char *slash;
		int err;

		if (stat(real, &st)) {
			snprintf(why, n, "%s: %s", real, strerror(errno));
			return -errno;
		}
		err = check_one(real, &st, why, n);
		if (err)
			return err;
		slash = strrchr(real, '/');
		if (!slash || slash == real) {
			if (strcmp(real, "/")) {
				strcpy(real, "/");
				continue;
			}
			return 0;
		}
		*slash = 0;
	}
}

static int check_tables(const struct ct_plugin *p, const char *path)
{
	if (!p->name || !p->apis || !p->n_apis || !p->libraries || !p->n_libraries) {
		ct_err("plugin %s: descriptor lacks a name, libraries or an API table", path);
		return -EINVAL;
	}
	for (size_t i = 0; i < p->n_apis; i++) {
		const struct ct_api *a = &p->apis[i];

		if (!a->symbol || a->n_args > CT_MAX_ARGS || a->n_reads > CT_MAX_READS) {
			ct_err("plugin %s: API row %zu is malformed", path, i);
			return -EINVAL;
		}
		for (size_t r = 0; r < a->n_reads; r++) {
			const struct ct_read *rd = &a->reads[r];

			if (rd->slot >= CT_MAX_SLOTS || rd->dst + rd->words > CT_MAX_MEM_WORDS) {
				ct_err("plugin %s: %s: read %zu is out of range (slot %u, words %u..%u of %d)",
				       path, a->symbol, r, rd->slot, rd->dst, rd->dst + rd->words, CT_MAX_MEM_WORDS);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int open_plugin(const char *path, struct ct_loaded_plugin *out)
{
	char why[PATH_MAX + 128];
	ct_plugin_entry_fn entry;
	const struct ct_plugin *p;
	void *dl;
	int err;

	if (access(path, R_OK)) {
		err = -errno;
		ct_err("cannot load plugin %s: %s", path, strerror(errno));
		return err;
	}
	err = ct_path_is_trusted(path, why, sizeof(why));
	if (err) {
		ct_err("refusing plugin %s while running privileged: %s", path, why);
		return err;
	}
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		ct_err("cannot load plugin %s: %s", path, dlerror());
		return -ENOEXEC;
	}
	entry = (ct_plugin_entry_fn)dlsym(dl, CT_PLUGIN_ENTRY_SYMBOL);
	if (!entry) {
		ct_err("%s is not a cudatracer plugin: it does not export %s()", path, CT_PLUGIN_ENTRY_SYMBOL);
		dlclose(dl);
		return -ENOEXEC;
	}
	p = entry();
	if (!p) {
		ct_err("plugin %s: %s() returned no descriptor", path, CT_PLUGIN_ENTRY_SYMBOL);
		dlclose(dl);
		return -ENOEXEC;
	}
	if (p->abi_version != CT_ABI_VERSION) {
		ct_err("plugin %s was built for plugin ABI %u, but this cudatracer (%s) speaks ABI %u: "
		       "rebuild the plugin against this cudatracer's headers (pkg-config --cflags cudatracer)",
		       path, p->abi_version, CT_VERSION, CT_ABI_VERSION);
		dlclose(dl);
		return -EPROTO;
	}
	if (p->sz < CT_PLUGIN_MIN_SZ) {
		ct_err("plugin %s: descriptor is %zu bytes, smaller than the %zu this ABI requires: "
		       "rebuild the plugin against this cudatracer's headers",
		       path, p->sz, (size_t)CT_PLUGIN_MIN_SZ);
		dlclose(dl);
		return -EPROTO;
	}
	err = check_tables(p, path);
	if (err) {
		dlclose(dl);
		return err;
	}
	out->dl = dl;
	out->p = p;
	out->path = strdup(path);
	return 0;
}

int ct_plugin_load(const char *name, char *const *dirs, struct ct_loaded_plugin *out)
{
	char path[PATH_MAX];
	int err;

	memset(out, 0, sizeof(*out));
	if (strchr(name, '/')) {
		err = open_plugin(name, out);
	} else {
		err = -ENOENT;
		for (int i = 0; dirs && dirs[i]; i++) {
			snprintf(path, sizeof(path), "%s/libct-%s.so", dirs[i], name);
			if (access(path, F_OK))
				continue;
			err = open_plugin(path, out);
			break;
		}
		if (err == -ENOENT) {
			ct_err("plugin '%s' not found: looked for libct-%s.so in:", name, name);
			for (int i = 0; dirs && dirs[i]; i++)
				ct_err("  %s", dirs[i]);
			ct_err("set [tracer] plugin_path, or pass a path: --plugin /path/to/libct-%s.so", name);
		}
	}
	return err;
}

void ct_plugin_unload(struct ct_loaded_plugin *lp)
{
	if (lp->dl)
		dlclose(lp->dl);
	free(lp->path);
	memset(lp, 0, sizeof(*lp));
}

int ct_plugin_list(char *const *dirs, FILE *out)
{
	int found = 0;

	for (int i = 0; dirs && dirs[i]; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;

		if (!d)
			continue;
		while ((de = readdir(d))) {
			size_t len = strlen(de->d_name);
			char path[PATH_MAX];
			struct ct_loaded_plugin lp;

			if (strncmp(de->d_name, "libct-", 6) || len < 10 || strcmp(de->d_name + len - 3, ".so"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], de->d_name);
			if (ct_plugin_load(path, NULL, &lp))
				continue;
			fprintf(out, "%-10s %-8s %-40s %s\n", lp.p->name, lp.p->version ? lp.p->version : "",
				lp.p->description ? lp.p->description : "", path);
			found++;
			ct_plugin_unload(&lp);
		}
		closedir(d);
	}
	if (!found)
		fprintf(out, "no plugins found\n");
	return found;
}
