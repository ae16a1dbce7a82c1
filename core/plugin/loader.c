// SPDX-License-Identifier: MIT
/*
 * The plugin loader: find libct-NAME.so on the plugin path, dlopen it, have
 * the validator check its descriptor (head first, then every row), and hand
 * the rest of the core a copy with each row's variants made APIs of their own. Running as root, refuse
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
#include "plugin/elfcheck.h"
#include "plugin/loader.h"
#include "plugin/validate.h"
#include "plugin/variants.h"


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
	char exe[PATH_MAX], buf[PATH_MAX + 64], real[PATH_MAX], built[PATH_MAX];
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
		/* An installed tree, wherever it was put: bin/ to the libdir;
		 * once only where that is CT_PLUGIN_DIR, pushed below. */
		snprintf(buf, sizeof(buf), "%s/%s", exe, CT_PLUGIN_RELDIR);
		if (realpath(buf, real) && (!realpath(CT_PLUGIN_DIR, built) || strcmp(real, built)))
			push_dirs(&v, &n, real);
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
	dl = ct_elf_dlopen(path, RTLD_NOW | RTLD_LOCAL, why, sizeof(why));
	if (!dl) {
		ct_err("cannot load plugin %s: %s", path, why);
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
	err = ct_plugin_validate(p, why, sizeof(why));
	if (err) {
		ct_err("cannot load plugin %s: %s", path, why);
		dlclose(dl);
		return err;
	}
	out->p = ct_plugin_expand(p);
	if (!out->p) {
		dlclose(dl);
		return -ENOMEM;
	}
	out->raw = p;
	out->dl = dl;
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
	free((void *)lp->p);
	if (lp->dl)
		dlclose(lp->dl);
	free(lp->path);
	memset(lp, 0, sizeof(*lp));
}

struct listed {
	int dir;
	char *name, *version, *description, *path;
	size_t apis;
};

static int listed_cmp(const void *pa, const void *pb)
{
	const struct listed *a = pa, *b = pb;

	return a->dir != b->dir ? a->dir - b->dir : strcmp(a->name ? a->name : "", b->name ? b->name : "");
}

static void listed_width(int *w, const char *s)
{
	int len = (int)strlen(s);

	if (len > *w)
		*w = len;
}

/* Every plugin that loads, folder by folder (the first of a name is what --plugin NAME gets). */
int ct_plugin_list(char *const *dirs, FILE *out)
{
	struct listed *v = NULL;
	int n = 0, wn = 4, wv = 7, wd = 11;

	for (int i = 0; dirs && dirs[i]; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;

		while (d && (de = readdir(d))) {
			size_t len = strlen(de->d_name);
			char path[PATH_MAX];
			struct ct_loaded_plugin lp;
			struct listed *nv;

			if (strncmp(de->d_name, "libct-", 6) || len < 10 || strcmp(de->d_name + len - 3, ".so"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], de->d_name);
			if (ct_plugin_load(path, NULL, &lp))
				continue;
			nv = realloc(v, (n + 1) * sizeof(*v));
			if (nv) {
				v = nv;
				v[n++] = (struct listed){ i, strdup(lp.p->name), strdup(lp.p->version ? lp.p->version : "-"),
							  strdup(lp.p->description ? lp.p->description : "-"),
							  strdup(path), lp.p->n_apis };
			}
			ct_plugin_unload(&lp);
		}
		if (d)
			closedir(d);
	}
	qsort(v, n, sizeof(*v), listed_cmp);
	for (int i = 0; i < n; i++) {
		listed_width(&wn, v[i].name ? v[i].name : "");
		listed_width(&wv, v[i].version ? v[i].version : "");
		listed_width(&wd, v[i].description ? v[i].description : "");
	}
	if (n)
		fprintf(out, "%-*s  %-*s  %5s  %-*s  %s\n", wn, "NAME", wv, "VERSION", "APIS", wd, "DESCRIPTION",
			"PATH");
	else
		fprintf(out, "no plugins found\n");
	for (int i = 0; i < n; i++) {
		fprintf(out, "%-*s  %-*s  %5zu  %-*s  %s\n", wn, v[i].name ? v[i].name : "", wv,
			v[i].version ? v[i].version : "", v[i].apis, wd,
			v[i].description ? v[i].description : "", v[i].path ? v[i].path : "");
		free(v[i].name);
		free(v[i].version);
		free(v[i].description);
		free(v[i].path);
	}
	free(v);
	return n;
}
