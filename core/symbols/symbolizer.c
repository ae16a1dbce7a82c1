// SPDX-License-Identifier: MIT
/*
 * Address -> symbol for traced processes: /proc/PID/maps finds the file,
 * the ELF reader (elf.h) reads its functions once per (device, inode), a
 * per-process cache remembers every answer, the unknown ones included.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "symbols/elf.h"
#include "symbols/symbolizer.h"
#include "util/log.h"
#include "util/u64map.h"

/* libstdc++'s demangler (C ABI; the GCC runtime library exception applies). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct sym_file {
	uint64_t dev, ino;
	struct ct_elf_funcs funcs;
	char **demangled;      /* per function, made on first use; not_cxx: not a C++ name */
	struct sym_file *next;
};

struct sym_map {
	uint64_t start, end, pgoff;
	uint64_t dev, ino;
	char *path;            /* as the process sees it */
	struct sym_file *file; /* NULL until first needed */
};

struct sym_proc {
	uint32_t pid;
	struct sym_map *maps; /* sorted by start, as the kernel lists them */
	size_t n_maps;
	struct ct_u64map addrs; /* addr -> name, or unknown_name */
	bool gone;              /* its maps could not be read: do not try again */
};

/* Answers cached as unknown; the map's values cannot be NULL. */
static const char unknown_name[] = "";
static char not_cxx[] = "";

static struct ct_u64map procs;    /* pid -> struct sym_proc * */
static struct sym_file *files;   /* every file read, parsed or not */

char *ct_demangle(const char *name)
{
	int status = 0;
	char *out;

	if (!name || strncmp(name, "_Z", 2))
		return NULL;
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (status) {
		free(out);
		return NULL;
	}
	return out;
}

/* ---- files ---------------------------------------------------------- */

static void file_free(struct sym_file *f);

/*
 * Read the functions of the file open as `path` into f. `same` (the
 * mapping) when the path may since name another file: it must still be the
 * mapped one, checked on the descriptor read, not on the path. `root` is
 * the process's root, where its debug files are looked up. Returns 0 when the file was read (even
 * if it has no symbols), or a negative errno when it could not be.
 */
static int load_file(struct sym_file *f, const char *path, const char *root,
		     const struct sym_map *same)
{
	struct ct_elf *e, *dbg;
	const char *id;
	char dbg_path[4096];
	struct stat st;
	int err, fd;

	err = ct_elf_open_path(path, &e);
	if (err) {
		ct_dbg("symbolizer: cannot read symbols of %s: %s", path, strerror(-err));
		return err;
	}
	if (same && (fstat(ct_elf_fd(e), &st) || major(st.st_dev) != (same->dev >> 32) ||
		     minor(st.st_dev) != (uint32_t)same->dev || st.st_ino != same->ino)) {
		err = -ENOENT;
		goto cleanup;
	}
	err = ct_elf_funcs_add(&f->funcs, e);
	if (err)
		goto cleanup;
	id = ct_elf_build_id(e);
	if (!ct_elf_has_symtab(e) && id[0]) {
		/* Stripped: distributions keep the symbols in a debug file by build-id. */
		snprintf(dbg_path, sizeof(dbg_path), "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
		fd = ct_elf_open_fd_in_root(root, dbg_path);
		if (fd >= 0 && ct_elf_open(fd, e, &dbg) == 0) {
			if (ct_elf_funcs_add(&f->funcs, dbg) == 0)
				ct_dbg("symbolizer: symbols of %s from %s", path, dbg_path);
			ct_elf_close(dbg);
		}
	}
	ct_elf_funcs_sort(&f->funcs);
	f->demangled = calloc(f->funcs.n ? f->funcs.n : 1, sizeof(*f->demangled));
	if (!f->demangled)
		err = -ENOMEM;
cleanup:
	ct_elf_close(e);
	return err;
}

/*
 * Candidate `cand` (0, 1, 2) for opening a mapped file from here: the
 * mapping itself (/proc/PID/map_files: needs root, right even for a file
 * deleted or replaced since), the file in the process's root (containers),
 * or, once the process is gone, the path itself if it still names the same
 * file (device and inode: load_file checks).
 */
static void mapped_file_path(const struct sym_map *m, uint32_t pid, int cand, char *path, size_t n)
{
	if (cand == 0)
		snprintf(path, n, "/proc/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64, pid, m->start, m->end);
	else if (cand == 1)
		snprintf(path, n, "/proc/%" PRIu32 "/root%s", pid, m->path);
	else
		snprintf(path, n, "%s", m->path);
}

static struct sym_file *file_get(const struct sym_map *m, uint32_t pid)
{
	char path[4096], root[64];
	struct sym_file *f;

	for (f = files; f; f = f->next)
		if (f->dev == m->dev && f->ino == m->ino)
			return f;
	snprintf(root, sizeof(root), "/proc/%" PRIu32 "/root", pid);
	/* The process can exit between candidates: then the next one (the path
	 * itself) is tried. */
	for (int cand = 0; cand < 3; cand++) {
		mapped_file_path(m, pid, cand, path, sizeof(path));
		f = calloc(1, sizeof(*f));
		if (!f)
			return NULL;
		f->dev = m->dev;
		f->ino = m->ino;
		if (load_file(f, path, root, cand == 2 ? m : NULL)) {
			file_free(f);
			continue;
		}
		/* Cached even when it has no symbols, so a stripped file is read once. */
		f->next = files;
		files = f;
		return f;
	}
	return NULL; /* not cached: another process may still show it */
}

static void file_free(struct sym_file *f)
{
	for (size_t i = 0; f->demangled && i < f->funcs.n; i++)
		if (f->demangled[i] != not_cxx)
			free(f->demangled[i]);
	free(f->demangled);
	ct_elf_funcs_free(&f->funcs);
	free(f);
}

static const char *file_lookup(struct sym_file *f, uint64_t file_off)
{
	long i = ct_elf_funcs_at(&f->funcs, file_off);

	if (i < 0)
		return NULL;
	if (!f->demangled[i]) {
		f->demangled[i] = ct_demangle(ct_elf_funcs_name(&f->funcs, i));
		if (!f->demangled[i])
			f->demangled[i] = not_cxx;
	}
	return f->demangled[i] != not_cxx ? f->demangled[i] : ct_elf_funcs_name(&f->funcs, i);
}

/* ---- processes ------------------------------------------------------ */

static void maps_free(struct sym_map *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

/* Read the file-backed mappings of a process. */
static int maps_read(uint32_t pid, struct sym_map **out, size_t *n_out)
{
	char path[64], *line = NULL;
	size_t line_cap = 0, n = 0, cap = 0;
	struct sym_map *maps = NULL;
	FILE *fp;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", pid);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	while (getline(&line, &line_cap, fp) > 0) {
		unsigned long long start, end, pgoff, ino;
		unsigned int major, minor;
		int name_at = 0;
		char *name;
		size_t len;

		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu %n", &start, &end, &pgoff, &major,
			   &minor, &ino, &name_at) < 6 || !ino || !name_at)
			continue;
		name = line + name_at;
		if (*name != '/')
			continue; /* [vdso], anonymous memory, memfd: no file to read */
		len = strcspn(name, "\n");
		name[len] = 0;
		if (n == cap) {
			struct sym_map *nm;

			cap = cap ? cap * 2 : 64;
			nm = realloc(maps, cap * sizeof(*maps));
			if (!nm) {
				err = -ENOMEM;
				goto cleanup;
			}
			maps = nm;
		}
		maps[n] = (struct sym_map){
			.start = start, .end = end, .pgoff = pgoff,
			.dev = ((uint64_t)major << 32) | minor, .ino = ino,
			.path = strdup(name),
		};
		if (!maps[n].path) {
			err = -ENOMEM;
			goto cleanup;
		}
		n++;
	}
	*out = maps;
	*n_out = n;
	maps = NULL;
	n = 0;
cleanup:
	maps_free(maps, n);
	free(line);
	fclose(fp);
	return err;
}

static struct sym_proc *proc_get(uint32_t pid, bool create)
{
	struct sym_proc *p = ct_u64map_get(&procs, pid);

	if (p || !create)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (ct_u64map_put(&procs, pid, p)) {
		free(p);
		return NULL;
	}
	return p;
}

static void proc_free(struct sym_proc *p)
{
	maps_free(p->maps, p->n_maps);
	ct_u64map_free(&p->addrs);
	free(p);
}

static int proc_refresh(struct sym_proc *p)
{
	struct sym_map *maps = NULL;
	size_t n = 0;
	int err = maps_read(p->pid, &maps, &n);

	if (err)
		return err;
	if (!n) {
		/* An exiting process shows no maps: keep what it had, for the
		 * records still to be decoded. */
		maps_free(maps, n);
		return -ESRCH;
	}
	maps_free(p->maps, p->n_maps);
	p->maps = maps;
	p->n_maps = n;
	return 0;
}

static struct sym_map *proc_find_map(struct sym_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

int ct_sym_refresh(uint32_t pid)
{
	struct sym_proc *p = proc_get(pid, true);

	return p ? proc_refresh(p) : -ENOMEM;
}

const char *ct_sym_lookup(uint32_t pid, uint64_t addr)
{
	struct sym_proc *p;
	struct sym_map *m;
	const char *name = NULL;

	if (!addr)
		return NULL;
	p = proc_get(pid, true);
	if (!p)
		return NULL;
	name = ct_u64map_get(&p->addrs, addr);
	if (name)
		return name == unknown_name ? NULL : name;

	m = proc_find_map(p, addr);
	if (!m && !p->gone) {
		/* A library loaded since the last read; a process that has gone
		 * is not read again for every address it used. */
		if (proc_refresh(p) == 0)
			m = proc_find_map(p, addr);
		else
			p->gone = true;
	}
	if (!m && !p->n_maps) {
		ct_dbg("symbolizer: pid %u: no maps known for 0x%llx", pid, (unsigned long long)addr);
		return NULL; /* nothing known (process gone?): do not cache a guess */
	}
	if (!m)
		ct_dbg("symbolizer: pid %u: 0x%llx is in no mapping of %zu", pid, (unsigned long long)addr, p->n_maps);
	if (m) {
		if (!m->file)
			m->file = file_get(m, pid);
		if (!m->file) {
			ct_dbg("symbolizer: pid %u: %s could not be read", pid, m->path);
			return NULL; /* the file could not be read now: ask again next time */
		}
		name = file_lookup(m->file, addr - m->start + m->pgoff);
	}
	/* A failed put only costs a repeated lookup. */
	ct_u64map_put(&p->addrs, addr, (void *)(name ? name : unknown_name));
	return name;
}

void ct_sym_forget(uint32_t pid)
{
	struct sym_proc *p = ct_u64map_del(&procs, pid);

	if (p)
		proc_free(p);
}

void ct_sym_reset(void)
{
	uint64_t key;
	void *val;

	for (size_t it = 0; ct_u64map_next(&procs, &it, &key, &val);)
		proc_free(val);
	ct_u64map_free(&procs);
	while (files) {
		struct sym_file *f = files;

		files = f->next;
		file_free(f);
	}
}
