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
#include <cudatracer/event.h>
#include "symbols/demangle.h"
#include "symbols/elf.h"
#include "symbols/srcline.h"
#include "symbols/cudareg.h"
#include "symbols/symbolizer.h"
#include "symbols/unwind.h"
#include "util/log.h"
#include "util/u64map.h"

struct sym_file {
	uint64_t dev, ino;
	struct ct_elf_funcs funcs;
	char **names;          /* per function, made on first use (ct_name_keep) */
	struct ct_srclines *lines; /* its DWARF line tables, read for the first frame in it; NULL: none */
	bool lines_read;
	/* The kernels its code registers (cudareg.c), by their host stub: read
	 * for the first stub address its symbols do not name. */
	struct ct_elf_funcs regs;
	char **reg_names;
	bool regs_read;
	struct sym_file *next;
};

struct sym_map {
	uint64_t start, end, pgoff;
	uint64_t dev, ino;
	bool exec;             /* code: what an address is named from */
	char *path;            /* as the process sees it */
	struct sym_file *file; /* NULL until first needed */
};

struct sym_proc {
	uint32_t pid;
	struct ct_u64map stacks; /* the caller's key -> struct ct_callstack *, frames resolved */
	struct sym_map *maps; /* sorted by start, as the kernel lists them */
	size_t n_maps;
	struct ct_u64map addrs; /* addr -> name, or unknown_name */
	bool gone;              /* its maps could not be read: do not try again */
	bool unnamed;           /* counted in unnamed_procs */
};

/* Answers cached as unknown; the map's values cannot be NULL. */
static const char unknown_name[] = "";

static struct ct_u64map procs;    /* pid -> struct sym_proc * */
/* Addresses in processes that ended before their maps were read, and those processes. */
static uint64_t unnamed_lookups, unnamed_procs;
static struct sym_file *files;   /* every file read, parsed or not */

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
	f->names = calloc(f->funcs.n ? f->funcs.n : 1, sizeof(*f->names));
	if (!f->names)
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
	for (size_t i = 0; f->names && i < f->funcs.n; i++)
		free(f->names[i]);
	free(f->names);
	for (size_t i = 0; f->reg_names && i < f->regs.n; i++)
		free(f->reg_names[i]);
	free(f->reg_names);
	ct_elf_funcs_free(&f->regs);
	ct_srclines_close(f->lines);
	ct_elf_funcs_free(&f->funcs);
	free(f);
}

/* The name of the function covering file_off, and where it starts; NULL: none. */
static const char *file_lookup_at(struct sym_file *f, uint64_t file_off, uint64_t *start)
{
	long i = ct_elf_funcs_at(&f->funcs, file_off);

	if (i < 0)
		return NULL;
	if (start)
		*start = f->funcs.fns[i].off;
	if (!f->names[i])
		f->names[i] = ct_name_keep(ct_elf_funcs_name(&f->funcs, i), SIZE_MAX);
	return f->names[i]; /* NULL, out of memory: unknown */
}

static const char *file_lookup(struct sym_file *f, uint64_t file_off)
{
	return file_lookup_at(f, file_off, NULL);
}

static int reg_put(void *ctx, uint64_t stub_off, const char *name, size_t len)
{
	struct sym_file *f = ctx;

	/* One whose stub a symbol names already adds nothing. */
	if (ct_elf_funcs_at(&f->funcs, stub_off) >= 0)
		return 0;
	return ct_elf_funcs_put(&f->regs, stub_off, 0, name, len, 0) ? -ENOMEM : 0;
}

/* The kernels m's file registers, once: read as its symbols were (mapped_file_path), the same file. */
static void regs_load(struct sym_file *f, const struct sym_map *m, uint32_t pid)
{
	char path[4096];
	struct ct_elf *e;
	struct stat st;
	int found = -ENOENT;

	f->regs_read = true;
	for (int cand = 0; cand < 3 && found == -ENOENT; cand++) {
		mapped_file_path(m, pid, cand, path, sizeof(path));
		if (ct_elf_open_path(path, &e))
			continue;
		if (!fstat(ct_elf_fd(e), &st) && major(st.st_dev) == (m->dev >> 32) &&
		    minor(st.st_dev) == (uint32_t)m->dev && st.st_ino == m->ino)
			found = ct_cudareg_scan(e, reg_put, f);
		ct_elf_close(e);
	}
	if (found < 0 || !f->regs.n)
		return;
	ct_elf_funcs_sort(&f->regs);
	f->reg_names = calloc(f->regs.n, sizeof(*f->reg_names));
	ct_dbg("symbolizer: %s registers %d kernels, %zu of them not named by its symbols", m->path, found,
	       f->regs.n);
}

/* A kernel's host stub at file_off, by the registration that named it. */
static const char *reg_lookup(struct sym_file *f, const struct sym_map *m, uint32_t pid, uint64_t file_off)
{
	long i;

	if (!f->regs_read)
		regs_load(f, m, pid);
	if (!f->reg_names || (i = ct_elf_funcs_at(&f->regs, file_off)) < 0)
		return NULL;
	if (!f->reg_names[i])
		f->reg_names[i] = ct_name_keep(ct_elf_funcs_name(&f->regs, i), SIZE_MAX);
	return f->reg_names[i];
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
		char perms[8] = "";
		int name_at = 0;
		char *name;
		size_t len;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &major,
			   &minor, &ino, &name_at) < 7 || !ino || !name_at)
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
			.exec = strchr(perms, 'x') != NULL,
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

static void proc_free(void *v)
{
	struct sym_proc *p = v;

	ct_u64map_free_all(&p->stacks, free);
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

/*
 * The mapping of an address, reading the maps again once if it is in none
 * (a library loaded since); NULL: none (JIT code, or the process is gone
 * and never had its maps read).
 */
static struct sym_map *proc_map_of(struct sym_proc *p, uint64_t addr)
{
	struct sym_map *m = proc_find_map(p, addr);

	if (!m && !p->gone) {
		/* A library loaded since the last read; a process that has gone
		 * is not read again for every address it used. */
		if (proc_refresh(p) == 0)
			m = proc_find_map(p, addr);
		else
			p->gone = true;
	}
	return m;
}

/*
 * The code mapping of an address (what a return address or a function
 * pointer is named from), reading the maps again once if it is in none or
 * only in a mapping of data: a file mapped there and gone since (ld.so.cache,
 * whose place anonymous memory, JIT code, may take) names nothing.
 */
static struct sym_map *code_map_of(struct sym_proc *p, uint64_t addr)
{
	struct sym_map *m = proc_find_map(p, addr);

	if (m && m->exec)
		return m;
	if (m && !p->gone && proc_refresh(p))
		p->gone = true;
	m = m ? proc_find_map(p, addr) : proc_map_of(p, addr);
	return m && m->exec ? m : NULL;
}

void ct_sym_unnamed(uint64_t *lookups, uint64_t *processes)
{
	*lookups = unnamed_lookups;
	*processes = unnamed_procs;
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

	m = code_map_of(p, addr);
	if (!m && !p->n_maps) {
		ct_dbg("symbolizer: pid %u: no maps known for 0x%llx", pid, (unsigned long long)addr);
		if (!p->gone)
			return NULL; /* nothing known yet: do not cache a guess */
		/* Gone, its maps never read: nothing will name it (counted once). */
		unnamed_lookups++;
		if (!p->unnamed)
			unnamed_procs++;
		p->unnamed = true;
		ct_u64map_put(&p->addrs, addr, (void *)unknown_name);
		return NULL;
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
		if (!name)
			name = reg_lookup(m->file, m, pid, addr - m->start + m->pgoff);
	}
	/* A failed put only costs a repeated lookup. */
	ct_u64map_put(&p->addrs, addr, (void *)(name ? name : unknown_name));
	return name;
}

/* ---- call stacks ---------------------------------------------------- */

int ct_sym_each_file(uint32_t pid, ct_sym_file_fn fn, void *ctx)
{
	struct sym_proc *p = proc_get(pid, true);
	int err = 0;

	if (!p)
		return -ENOMEM;
	if (!p->n_maps && !p->gone && proc_refresh(p))
		p->gone = true;
	for (size_t i = 0; i < p->n_maps && !err;) {
		size_t j = i + 1;

		/* A file's mappings are listed one after the other. */
		while (j < p->n_maps && p->maps[j].dev == p->maps[i].dev && p->maps[j].ino == p->maps[i].ino)
			j++;
		err = fn(ctx, p->maps[i].path, p->maps[i].start, p->maps[j - 1].end);
		i = j;
	}
	return p->n_maps ? err : -ESRCH;
}

/* The mapped file of m, opened as ct_sym_open_mapped() says. */
static int map_open(const struct sym_map *m, uint32_t pid)
{
	char path[4096];
	struct stat st;

	for (int cand = 0; cand < 3; cand++) {
		int fd;

		mapped_file_path(m, pid, cand, path, sizeof(path));
		fd = ct_elf_open_fd(path);
		if (fd < 0)
			continue;
		/* The mapped file itself, whatever its path names now. */
		if (!fstat(fd, &st) && major(st.st_dev) == (m->dev >> 32) && minor(st.st_dev) == (uint32_t)m->dev &&
		    st.st_ino == m->ino)
			return fd;
		close(fd);
	}
	return -ENOENT;
}

int ct_sym_open_mapped(uint32_t pid, uint64_t addr)
{
	struct sym_proc *p = proc_get(pid, true);
	struct sym_map *m = p ? proc_map_of(p, addr) : NULL;

	return m ? map_open(m, pid) : -ENOENT;
}

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
	const unsigned char *c = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
	return s ? fnv(h, s, strlen(s) + 1) : fnv(h, "", 1);
}

uint64_t ct_sym_site(const struct ct_frame_info *fr, uint32_t n)
{
	uint64_t site = 0xcbf29ce484222325ull;

	for (uint32_t i = 0; i < n; i++) {
		const struct ct_frame_info *f = &fr[i];

		if (f->kind != CT_FRAME_NATIVE) {
			site = fnv(site, &f->kind, sizeof(f->kind));
			if (f->kind == CT_FRAME_PYTHON) {
				site = fnv_str(site, f->py_function);
				site = fnv_str(site, f->py_file);
				site = fnv(site, &f->py_line, sizeof(f->py_line));
			}
			continue;
		}
		if (f->module)
			site = fnv_str(site, base_name(f->module));
		if (f->function)
			site = fnv_str(site, f->function);
		site = fnv(site, &f->offset, sizeof(f->offset));
	}
	return site;
}

/* One frame: its module, function, offset and source line, names copied to *pool. */
struct frame_names {
	const char *module, *function, *src_file;
	uint64_t offset;
	uint32_t src_line;
};

/* The source line of the call at file offset `call` of m's file, when the
 * file has DWARF lines (read at its first frame, once). */
static void frame_line(struct sym_proc *p, struct sym_map *m, uint64_t call, struct frame_names *out)
{
	struct sym_file *f = m->file;

	if (!f->lines_read) {
		int fd = map_open(m, p->pid);

		f->lines_read = true;
		if (fd >= 0) {
			f->lines = ct_srclines_open(fd);
			close(fd);
		}
	}
	if (f->lines && ct_srclines_at(f->lines, call, &out->src_file, &out->src_line))
		out->src_file = NULL;
}

static void frame_resolve(struct sym_proc *p, uint64_t addr, struct frame_names *out)
{
	struct sym_map *m = proc_find_map(p, addr - 1);
	uint64_t off, start = 0;

	if (m && !m->exec)
		m = NULL;

	*out = (struct frame_names){ .offset = addr };
	if (!m)
		return;
	out->module = m->path;
	off = addr - m->start + m->pgoff;
	out->offset = off;
	if (!m->file)
		m->file = file_get(m, p->pid);
	/* A return address: the call is the byte before it (a noreturn call
	 * can be a function's last instruction). */
	if (m->file && (out->function = file_lookup_at(m->file, off - 1, &start)))
		out->offset = off - start;
	if (m->file)
		frame_line(p, m, off - 1, out);
}

const struct ct_callstack *ct_sym_stack(uint32_t pid, uint64_t key, const uint64_t *pcs, uint32_t n,
					enum ct_frame_kind end)
{
	struct sym_proc *p = proc_get(pid, true);
	struct frame_names *names = NULL;
	struct ct_callstack *cs;
	struct ct_frame_info *fr;
	uint32_t total = n + (end != CT_FRAME_NATIVE);
	size_t pool = 0;
	char *at;

	if (!p)
		return NULL;
	cs = ct_u64map_get(&p->stacks, key);
	if (cs)
		return cs;
	names = calloc(n ? n : 1, sizeof(*names));
	if (!names)
		return NULL;
	/* The maps are read again (at most once) before any frame is named:
	 * a read frees the paths the frames named so far point into. */
	for (uint32_t i = 0; i < n; i++) {
		struct sym_map *m = proc_find_map(p, pcs[i] - 1);

		if (!m || !m->exec) {
			code_map_of(p, pcs[i] - 1);
			break;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		frame_resolve(p, pcs[i], &names[i]);
		pool += (names[i].module ? strlen(names[i].module) + 1 : 0) +
			(names[i].function ? strlen(names[i].function) + 1 : 0) +
			(names[i].src_file ? strlen(names[i].src_file) + 1 : 0);
	}
	/* One block: the stack, its frames, their names; it outlives the maps
	 * it was read from (they are read again when libraries come and go). */
	cs = calloc(1, sizeof(*cs) + total * sizeof(*fr) + pool);
	if (!cs)
		goto cleanup;
	fr = (struct ct_frame_info *)(cs + 1);
	at = (char *)(fr + total);
	for (uint32_t i = 0; i < n; i++) {
		fr[i].kind = CT_FRAME_NATIVE;
		fr[i].addr = pcs[i];
		fr[i].offset = names[i].offset;
		if (names[i].module) {
			fr[i].module = strcpy(at, names[i].module);
			at += strlen(at) + 1;
		}
		if (names[i].function) {
			fr[i].function = strcpy(at, names[i].function);
			at += strlen(at) + 1;
		}
		if (names[i].src_file) {
			fr[i].src_file = strcpy(at, names[i].src_file);
			fr[i].src_line = names[i].src_line;
			at += strlen(at) + 1;
		}
	}
	if (end != CT_FRAME_NATIVE)
		fr[n].kind = end;
	cs->frames = fr;
	cs->n = total;
	cs->site = ct_sym_site(fr, total);
	if (ct_u64map_put(&p->stacks, key, cs)) {
		free(cs);
		cs = NULL;
	}
cleanup:
	free(names);
	return cs;
}

void ct_sym_forget(uint32_t pid)
{
	struct sym_proc *p = ct_u64map_del(&procs, pid);

	ct_unwind_forget(pid);
	if (p)
		proc_free(p);
}

void ct_sym_reset(void)
{
	ct_u64map_free_all(&procs, proc_free);
	ct_unwind_reset();
	while (files) {
		struct sym_file *f = files;

		files = f->next;
		file_free(f);
	}
}
