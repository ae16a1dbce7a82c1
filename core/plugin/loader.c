// SPDX-License-Identifier: MIT
/*
 * The plugin loader: find libct-NAME.so on the plugin path, dlopen it, have
 * the validator check its descriptor (head first, then every row), and hand
 * the rest of the core a copy with each row's variants made APIs of their own. Running as root, refuse
 * files and folders that someone else could have written (as sudo does:
 * plugin/trust.c).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "util/log.h"
#include "plugin/elfcheck.h"
#include "plugin/loader.h"
#include "plugin/trust.h"
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

/* Load one file; on failure `msg` says why in one line that names it. */
static int open_plugin(const char *path, struct ct_loaded_plugin *out, char *msg, size_t n)
{
	char why[PATH_MAX + 128];
	ct_plugin_entry_fn entry;
	const struct ct_plugin *p;
	void *dl;
	int fd, err;

	/* Opened once, checked on that descriptor, loaded from it. */
	fd = ct_trusted_open(path, ct_trust_privileged(), why, sizeof(why));
	if (fd < 0) {
		if (fd == -EPERM)
			snprintf(msg, n, "refusing plugin %s while running privileged: %s", path, why);
		else
			snprintf(msg, n, "cannot load plugin %s: %s", path, fd == -EINVAL ? why : strerror(-fd));
		return fd;
	}
	dl = ct_elf_dlopen(fd, path, RTLD_NOW | RTLD_LOCAL, why, sizeof(why));
	close(fd);
	if (!dl) {
		snprintf(msg, n, "cannot load plugin %s: %s", path, why);
		return -ENOEXEC;
	}
	entry = (ct_plugin_entry_fn)dlsym(dl, CT_PLUGIN_ENTRY_SYMBOL);
	if (!entry) {
		snprintf(msg, n, "%s is not a cudatracer plugin: it does not export %s()", path, CT_PLUGIN_ENTRY_SYMBOL);
		dlclose(dl);
		return -ENOEXEC;
	}
	p = entry();
	if (!p) {
		snprintf(msg, n, "plugin %s: %s() returned no descriptor", path, CT_PLUGIN_ENTRY_SYMBOL);
		dlclose(dl);
		return -ENOEXEC;
	}
	err = ct_plugin_validate(p, why, sizeof(why));
	if (err) {
		snprintf(msg, n, "cannot load plugin %s: %s", path, why);
		dlclose(dl);
		return err;
	}
	out->p = ct_plugin_expand(p);
	if (!out->p) {
		snprintf(msg, n, "plugin %s: out of memory", path);
		dlclose(dl);
		return -ENOMEM;
	}
	out->raw = p;
	out->dl = dl;
	out->path = strdup(path);
	return 0;
}

#define CT_PLUGIN_MSG (2 * PATH_MAX + 256)

int ct_plugin_load(const char *name, char *const *dirs, struct ct_loaded_plugin *out)
{
	char path[PATH_MAX], msg[CT_PLUGIN_MSG];
	int err;

	memset(out, 0, sizeof(*out));
	if (strchr(name, '/')) {
		err = open_plugin(name, out, msg, sizeof(msg));
		if (err)
			ct_err("%s", msg);
	} else {
		err = -ENOENT;
		for (int i = 0; dirs && dirs[i]; i++) {
			snprintf(path, sizeof(path), "%s/libct-%s.so", dirs[i], name);
			if (access(path, F_OK))
				continue;
			err = open_plugin(path, out, msg, sizeof(msg));
			if (err)
				ct_err("%s", msg);
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

static int loaded_index(const char *name, const struct ct_loaded_plugin *loaded, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(loaded[i].p->name, name))
			return i;
	return -1;
}

int ct_plugin_load_once(const char *name, char *const *dirs, struct ct_loaded_plugin *loaded, int n)
{
	int err, i = strchr(name, '/') ? -1 : loaded_index(name, loaded, n);

	if (i < 0) {
		err = ct_plugin_load(name, dirs, &loaded[n]);
		if (err)
			return err;
		i = loaded_index(loaded[n].p->name, loaded, n);
		if (i < 0)
			return 1;
		ct_plugin_unload(&loaded[n]);
	}
	ct_warn("plugin '%s' is named twice (%s, then %s): loaded once", loaded[i].p->name, loaded[i].path, name);
	return 0;
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
	char *failed; /* why it did not load; the other fields NULL but path */
	size_t apis;
};

/* By name, then in folder order: the first of a name is what --plugin NAME gets. */
static int listed_cmp(const void *pa, const void *pb)
{
	const struct listed *a = pa, *b = pb;
	int c = strcmp(a->name ? a->name : "", b->name ? b->name : "");

	return c ? c : a->dir != b->dir ? a->dir - b->dir : strcmp(a->path, b->path);
}

static void listed_width(int *w, const char *s)
{
	int len = (int)strlen(s);

	if (len > *w)
		*w = len;
}

static void listed_free(struct listed *l)
{
	free(l->name);
	free(l->version);
	free(l->description);
	free(l->path);
	free(l->failed);
}

/* One libct-*.so of a folder, loaded to read its descriptor, or why it did not load. */
static int list_one(struct listed **v, int *n, int dir, const char *path)
{
	struct ct_loaded_plugin lp = { 0 };
	char msg[CT_PLUGIN_MSG];
	struct listed *nv = realloc(*v, (*n + 1) * sizeof(**v)), *l;

	if (!nv)
		return -ENOMEM;
	*v = nv;
	l = &nv[*n];
	memset(l, 0, sizeof(*l));
	l->dir = dir;
	l->path = strdup(path);
	if (open_plugin(path, &lp, msg, sizeof(msg))) {
		l->failed = strdup(msg);
	} else {
		l->name = strdup(lp.p->name);
		l->version = strdup(lp.p->version ? lp.p->version : "-");
		l->description = strdup(lp.p->description ? lp.p->description : "-");
		l->apis = lp.p->n_apis;
		ct_plugin_unload(&lp);
	}
	if (!l->path || (!l->failed && (!l->name || !l->version || !l->description))) {
		listed_free(l);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

/*
 * Every libct-*.so on the plugin path: those that load in a table sorted by
 * name (a later one of a name marked as not used), then each that did not,
 * with the reason, then the folders searched.
 */
int ct_plugin_list(char *const *dirs, FILE *out)
{
	struct listed *v = NULL;
	int n = 0, ok = 0, wn = 4, wv = 7, wd = 11;

	for (int i = 0; dirs && dirs[i]; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;

		while (d && (de = readdir(d))) {
			size_t len = strlen(de->d_name);
			char path[PATH_MAX];

			if (strncmp(de->d_name, "libct-", 6) || len < 10 || strcmp(de->d_name + len - 3, ".so"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], de->d_name);
			list_one(&v, &n, i, path);
		}
		if (d)
			closedir(d);
	}
	qsort(v, n, sizeof(*v), listed_cmp);
	for (int i = 0; i < n; i++) {
		if (v[i].failed)
			continue;
		ok++;
		listed_width(&wn, v[i].name);
		listed_width(&wv, v[i].version);
		listed_width(&wd, v[i].description);
	}
	if (ok)
		fprintf(out, "%-*s  %-*s  %5s  %-*s  %s\n", wn, "NAME", wv, "VERSION", "APIS", wd, "DESCRIPTION",
			"PATH");
	else
		fprintf(out, "no plugins found\n");
	for (int i = 0; i < n; i++) {
		bool shadowed = i && !v[i].failed && v[i - 1].name && !strcmp(v[i - 1].name, v[i].name);

		if (!v[i].failed)
			fprintf(out, "%-*s  %-*s  %5zu  %-*s  %s%s\n", wn, v[i].name, wv, v[i].version, v[i].apis, wd,
				v[i].description, v[i].path, shadowed ? " (not used: --plugin loads the one above)" : "");
	}
	if (ok < n) {
		fprintf(out, "\nnot loaded (%d):\n", n - ok);
		for (int i = 0; i < n; i++)
			if (v[i].failed)
				fprintf(out, "  %s\n", v[i].failed);
	}
	fputs("\nplugin path:", out);
	for (int i = 0; dirs && dirs[i]; i++)
		fprintf(out, "%s%s", i ? ":" : " ", dirs[i]);
	fputs(" ([tracer] plugin_path, then CUDATRACER_PLUGIN_PATH, then the built-in folders)\n", out);
	for (int i = 0; i < n; i++)
		listed_free(&v[i]);
	free(v);
	return ok;
}
