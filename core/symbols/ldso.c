// SPDX-License-Identifier: MIT
/*
 * Where ld.so will find an executable's libraries, before it runs: for
 * --explain, which says which copy of a runtime a command will map. glibc's
 * order, for each DT_NEEDED name of an object (dl-load.c, _dl_map_object):
 *
 *   1. a name with a slash is a path (relative to the current folder);
 *   2. if the object has no DT_RUNPATH: its DT_RPATH, then the DT_RPATH of
 *      each object that loaded it up to the executable (those without a
 *      DT_RUNPATH of their own);
 *   3. LD_LIBRARY_PATH, unless the executable is set-user/group-ID;
 *   4. the object's own DT_RUNPATH (not inherited);
 *   5. /etc/ld.so.cache, then the default folders, unless DF_1_NODEFLIB.
 *
 * $ORIGIN (the folder of the object, the executable's after its symbolic
 * links), $LIB and $PLATFORM are expanded. A candidate of another ELF class
 * or machine is passed over, as ld.so does. Breadth first, each name once
 * (ld.so reuses an object already loaded under that name). LD_PRELOAD and
 * /etc/ld.so.preload come first. Not modelled: glibc-hwcaps subfolders and
 * the cache's hwcap entries (the first entry of a name of the right machine
 * is taken), and of course what the program opens later with dlopen.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbols/elf.h"
#include "symbols/ldso.h"

#define LD_CACHE "/etc/ld.so.cache"
#define LD_CACHE_MAX (64u << 20)
#define LD_MAX_LIBS 4096

/* Debian's multiarch folders first, then the others' (Fedora's lib64). */
static const char *const default_dirs[] = {
#if defined(__x86_64__)
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
	"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
#endif
	"/lib64", "/usr/lib64", "/lib", "/usr/lib", NULL,
};

const char *const ct_ld_via_names[] = {
	[CT_LD_PATH] = "a path in DT_NEEDED",
	[CT_LD_PRELOAD] = "LD_PRELOAD",
	[CT_LD_RPATH] = "DT_RPATH",
	[CT_LD_LIBRARY_PATH] = "LD_LIBRARY_PATH",
	[CT_LD_RUNPATH] = "DT_RUNPATH",
	[CT_LD_CACHE] = LD_CACHE,
	[CT_LD_DEFAULT] = "a default folder",
	[CT_LD_NOT_FOUND] = "not found",
};

struct resolver {
	struct ct_ld_set *set;
	struct ct_elf_dyn *dyn; /* per library, as set->v */
	char *cache;            /* /etc/ld.so.cache, whole */
	size_t cache_len;
	bool cache_read;
	uint16_t machine;
	uint8_t elf_class;
};

/* The folder of path, into buf. */
static void dir_of(const char *path, char *buf, size_t n)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(buf, n, ".");
	else if (slash == path)
		snprintf(buf, n, "/");
	else
		snprintf(buf, n, "%.*s", (int)(slash - path), path);
}

/* $ORIGIN, ${ORIGIN}, $LIB, $PLATFORM in s, into buf. False if too long. */
static bool expand(const char *s, const char *origin, char *buf, size_t n)
{
	static const struct { const char *name, *value; } dst[] = {
		{ "ORIGIN", NULL },
#if defined(__x86_64__)
		{ "LIB", "lib/x86_64-linux-gnu" }, { "PLATFORM", "x86_64" },
#elif defined(__aarch64__)
		{ "LIB", "lib/aarch64-linux-gnu" }, { "PLATFORM", "aarch64" },
#else
		{ "LIB", "lib" }, { "PLATFORM", "" },
#endif
	};
	size_t len = 0;

	while (*s) {
		bool done = false;

		if (*s == '$') {
			for (size_t i = 0; i < sizeof(dst) / sizeof(dst[0]) && !done; i++) {
				size_t k = strlen(dst[i].name);
				const char *v = dst[i].value ? dst[i].value : origin;
				bool braced = s[1] == '{' && !strncmp(s + 2, dst[i].name, k) && s[2 + k] == '}';
				bool bare = !strncmp(s + 1, dst[i].name, k) &&
					    !((s[1 + k] >= 'A' && s[1 + k] <= 'Z') || s[1 + k] == '_');

				if (!braced && !bare)
					continue;
				len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s", v);
				s += braced ? k + 3 : k + 1;
				done = true;
			}
		}
		if (!done) {
			if (len + 1 < n)
				buf[len] = *s;
			len++;
			s++;
		}
	}
	if (len >= n)
		return false;
	buf[len] = 0;
	return true;
}

/* An ELF file ld.so would take for this executable: the same class and machine. */
static bool loadable(const struct resolver *r, const char *path)
{
	struct ct_elf_dyn d;
	struct ct_elf *e;
	bool ok;

	if (ct_elf_open_path(path, &e))
		return false;
	ok = !ct_elf_dynamic(e, &d) && d.machine == r->machine && d.elf_class == r->elf_class;
	ct_elf_dyn_free(&d);
	ct_elf_close(e);
	return ok;
}

/* name in the folders of a colon-separated list (an empty entry: the current folder). */
static bool search_list(const struct resolver *r, const char *list, const char *origin, const char *name,
			char *out, size_t n)
{
	char dir[PATH_MAX];
	const char *p = list;

	while (p) {
		const char *end = p + strcspn(p, ":;");
		char raw[PATH_MAX];

		snprintf(raw, sizeof(raw), "%.*s", (int)(end - p), p);
		if (expand(*raw ? raw : ".", origin, dir, sizeof(dir)) &&
		    (size_t)snprintf(out, n, "%s/%s", dir, name) < n && loadable(r, out))
			return true;
		p = *end ? end + 1 : NULL;
	}
	return false;
}

static void read_cache(struct resolver *r)
{
	struct stat st;
	int fd;

	r->cache_read = true;
	fd = open(LD_CACHE, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= LD_CACHE_MAX &&
	    (r->cache = malloc((size_t)st.st_size))) {
		ssize_t got = read(fd, r->cache, (size_t)st.st_size);

		r->cache_len = got > 0 ? (size_t)got : 0;
	}
	close(fd);
}

/*
 * The cache: glibc's "glibc-ld.so.cache1.1" table (alone, or after the old
 * "ld.so-1.7.0" one): a 48-byte header, then entries of {flags, key, value,
 * osversion, hwcap} (24 bytes), key and value offsets from the header's start.
 */
static bool search_cache(struct resolver *r, const char *name, char *out, size_t n)
{
	static const char magic_new[] = "glibc-ld.so.cache1.1", magic_old[] = "ld.so-1.7.0";
	const char *c;
	size_t len, at = 0;
	uint32_t nlibs;

	if (!r->cache_read)
		read_cache(r);
	c = r->cache;
	len = r->cache_len;
	if (len >= 16 && !memcmp(c, magic_old, sizeof(magic_old) - 1)) {
		memcpy(&nlibs, c + 12, 4);
		at = (16 + (size_t)nlibs * 12 + 7) & ~(size_t)7;
	}
	if (at > len || len - at < 48 || memcmp(c + at, magic_new, sizeof(magic_new) - 1))
		return false;
	c += at;
	len -= at;
	memcpy(&nlibs, c + 20, 4);
	for (uint32_t i = 0; i < nlibs && 48 + ((size_t)i + 1) * 24 <= len; i++) {
		uint32_t key, value;

		memcpy(&key, c + 48 + (size_t)i * 24 + 4, 4);
		memcpy(&value, c + 48 + (size_t)i * 24 + 8, 4);
		if (key >= len || value >= len || !memchr(c + key, 0, len - key) || !memchr(c + value, 0, len - value))
			continue;
		if (strcmp(c + key, name))
			continue;
		snprintf(out, n, "%s", c + value);
		if (loadable(r, out))
			return true;
	}
	return false;
}

/* Add one library to the set (and its dynamic section, read now). */
static int add_lib(struct resolver *r, const char *name, const char *path, enum ct_ld_via via, int by,
		   int via_of)
{
	struct ct_ld_set *s = r->set;
	struct ct_ld_lib *v;
	struct ct_elf_dyn *d;
	struct ct_elf *e;

	if (s->n >= LD_MAX_LIBS)
		return -E2BIG;
	v = realloc(s->v, (s->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->v = v;
	d = realloc(r->dyn, (s->n + 1) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	r->dyn = d;
	memset(&d[s->n], 0, sizeof(*d));
	v[s->n] = (struct ct_ld_lib){ strdup(name), path ? strdup(path) : NULL, via, by, via_of };
	if (!v[s->n].name || (path && !v[s->n].path)) {
		free(v[s->n].name);
		free(v[s->n].path);
		return -ENOMEM;
	}
	s->n++;
	if (path && !ct_elf_open_path(path, &e)) {
		int err = ct_elf_dynamic(e, &d[s->n - 1]);

		ct_elf_close(e);
		if (err)
			return err;
	}
	return 0;
}

static bool known(const struct ct_ld_set *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return true;
	return false;
}

/* Find `name`, needed by library `by` (its index), as ld.so would. */
static int resolve_one(struct resolver *r, const char *name, int by, bool preload)
{
	const struct ct_ld_lib *req = &r->set->v[by];
	const struct ct_elf_dyn *rd = &r->dyn[by];
	const char *llp = getenv("LD_LIBRARY_PATH");
	char origin[PATH_MAX], path[PATH_MAX];

	dir_of(req->path, origin, sizeof(origin));
	if (strchr(name, '/')) {
		bool ok = expand(name, origin, path, sizeof(path)) && loadable(r, path);

		return add_lib(r, name, ok ? path : NULL, ok ? (preload ? CT_LD_PRELOAD : CT_LD_PATH) : CT_LD_NOT_FOUND,
			       by, by);
	}
	if (!rd->runpath) {
		/* This object's RPATH, then each loader's up the chain. */
		for (int at = by; at >= 0; at = at ? r->set->v[at].by : -1) {
			const struct ct_elf_dyn *ad = &r->dyn[at];
			char aorigin[PATH_MAX];

			if (ad->runpath || !ad->rpath)
				continue;
			dir_of(r->set->v[at].path, aorigin, sizeof(aorigin));
			if (search_list(r, ad->rpath, aorigin, name, path, sizeof(path)))
				return add_lib(r, name, path, CT_LD_RPATH, by, at);
		}
	}
	if (llp && *llp && !r->set->secure) {
		char eorigin[PATH_MAX];

		dir_of(r->set->v[0].path, eorigin, sizeof(eorigin));
		if (search_list(r, llp, eorigin, name, path, sizeof(path)))
			return add_lib(r, name, path, preload ? CT_LD_PRELOAD : CT_LD_LIBRARY_PATH, by, by);
	}
	if (rd->runpath && search_list(r, rd->runpath, origin, name, path, sizeof(path)))
		return add_lib(r, name, path, CT_LD_RUNPATH, by, by);
	if (!rd->nodeflib && search_cache(r, name, path, sizeof(path)))
		return add_lib(r, name, path, preload ? CT_LD_PRELOAD : CT_LD_CACHE, by, by);
	for (int i = 0; !rd->nodeflib && default_dirs[i]; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", default_dirs[i], name) < sizeof(path) &&
		    loadable(r, path))
			return add_lib(r, name, path, preload ? CT_LD_PRELOAD : CT_LD_DEFAULT, by, by);
	}
	return add_lib(r, name, NULL, CT_LD_NOT_FOUND, by, by);
}

/* LD_PRELOAD (blanks or colons between names) and /etc/ld.so.preload. */
static int resolve_preloads(struct resolver *r)
{
	char file[4096] = "", *list[2] = { NULL, file };
	const char *env = getenv("LD_PRELOAD");
	int fd = open("/etc/ld.so.preload", O_RDONLY | O_CLOEXEC | O_NONBLOCK), err = 0;

	if (fd >= 0) {
		ssize_t got = read(fd, file, sizeof(file) - 1);

		file[got > 0 ? got : 0] = 0;
		close(fd);
	}
	/* ld.so ignores LD_PRELOAD names with a slash in a secure program. */
	list[0] = env && !r->set->secure ? strdup(env) : NULL;
	for (int l = 0; l < 2 && !err; l++) {
		char *save = NULL;

		for (char *tok = list[l] ? strtok_r(list[l], " \t\n:", &save) : NULL; tok && !err;
		     tok = strtok_r(NULL, " \t\n:", &save))
			if (!known(r->set, tok))
				err = resolve_one(r, tok, 0, true);
	}
	free(list[0]);
	return err;
}

int ct_ld_resolve(const char *exe, struct ct_ld_set *out)
{
	struct resolver r = { .set = out };
	char real[PATH_MAX];
	struct stat st;
	int err;

	memset(out, 0, sizeof(*out));
	if (!realpath(exe, real))
		return -errno;
	out->secure = !stat(real, &st) && (st.st_mode & (S_ISUID | S_ISGID));
	err = add_lib(&r, exe, real, CT_LD_PATH, -1, -1);
	if (err)
		goto out;
	r.machine = r.dyn[0].machine;
	r.elf_class = r.dyn[0].elf_class;
	out->dynamic = r.dyn[0].interp;
	if (!out->dynamic)
		goto out; /* linked statically: ld.so does not run */
	err = resolve_preloads(&r);
	/* Breadth first: each library's DT_NEEDED once all of the level before are in. */
	for (size_t i = 0; !err && i < out->n; i++)
		for (size_t k = 0; !err && k < r.dyn[i].n_needed; k++)
			if (!known(out, r.dyn[i].needed[k]))
				err = resolve_one(&r, r.dyn[i].needed[k], (int)i, false);
out:
	for (size_t i = 0; r.dyn && i < out->n; i++)
		ct_elf_dyn_free(&r.dyn[i]);
	free(r.dyn);
	free(r.cache);
	if (err)
		ct_ld_free(out);
	return err;
}

void ct_ld_free(struct ct_ld_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].path);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}
