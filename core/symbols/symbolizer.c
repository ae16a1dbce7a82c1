// SPDX-License-Identifier: MIT
/*
 * Address -> symbol for traced processes: /proc/PID/maps finds the file,
 * libelf reads its symbols once per (device, inode), a per-process cache
 * remembers every answer, the unknown ones included.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "symbols/symbolizer.h"
#include "util/log.h"
#include "util/u64map.h"

/* libstdc++'s demangler (C ABI; the GCC runtime library exception applies). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct sym_sym {
	uint64_t addr;
	uint64_t size;     /* 0: only the exact address matches */
	const char *name;  /* in the file's name blob */
	char *demangled;   /* made on first use; NULL: not yet, or not C++ */
	uint8_t rank;      /* which of several names at one address wins */
	bool tried;        /* demangling was attempted */
};

/* A PT_LOAD segment: turns a file offset into a virtual address. */
struct sym_load {
	uint64_t off, vaddr, filesz;
};

struct sym_file {
	uint64_t dev, ino;
	struct sym_sym *syms; /* sorted by addr, one per address */
	size_t n_syms;
	struct sym_load *loads;
	size_t n_loads;
	char **blobs;          /* name storage, one blob per ELF file read */
	size_t n_blobs;
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

/* ---- ELF symbols ---------------------------------------------------- */

static void file_free(struct sym_file *f);

static int sym_cmp(const void *a, const void *b)
{
	const struct sym_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)y->rank - (int)x->rank; /* best first */
}

/*
 * Rank of a name among those at one address: a global symbol with a size
 * is what nvcc emits for a kernel's host stub; local and weak aliases lose.
 */
static uint8_t sym_rank(const GElf_Sym *s)
{
	uint8_t r = 0;

	if (GELF_ST_BIND(s->st_info) == STB_GLOBAL)
		r += 4;
	else if (GELF_ST_BIND(s->st_info) == STB_WEAK)
		r += 2;
	if (s->st_size)
		r += 1;
	return r;
}

static bool sym_wanted(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF &&
	       s->st_value != 0;
}

/* Append the function symbols of one symbol table to f->syms. */
static int read_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct sym_file *f,
		       char **blob, size_t *blob_len, size_t *blob_cap)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n, cap;
	struct sym_sym *syms;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	if (!n)
		return 0;
	cap = f->n_syms + n;
	syms = realloc(f->syms, cap * sizeof(*syms));
	if (!syms && cap)
		return -ENOMEM;
	f->syms = syms;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;
		size_t len;

		if (!gelf_getsym(data, (int)i, &s) || !sym_wanted(&s))
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		len = strlen(name) + 1;
		if (*blob_len + len > *blob_cap) {
			size_t ncap = (*blob_cap ? *blob_cap * 2 : 4096) + len;
			char *nb = realloc(*blob, ncap);

			if (!nb)
				return -ENOMEM;
			*blob = nb;
			*blob_cap = ncap;
		}
		memcpy(*blob + *blob_len, name, len);
		/* Offsets for now: the blob may still move. */
		f->syms[f->n_syms++] = (struct sym_sym){
			.addr = s.st_value,
			.size = s.st_size,
			.name = (const char *)(uintptr_t)*blob_len,
			.rank = sym_rank(&s),
		};
		*blob_len += len;
	}
	return 0;
}

/* The GNU build-id as lowercase hex, for finding a separate debug file. */
static bool read_build_id(Elf *elf, char *hex, size_t hexsz)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			const unsigned char *id = (const unsigned char *)data->d_buf + doff;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)data->d_buf + noff, "GNU", 4) ||
			    nh.n_descsz < 2 || nh.n_descsz * 2 + 1 > hexsz)
				continue;
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", id[i]);
			return true;
		}
	}
	return false;
}

/*
 * Read the function symbols of one ELF file into f. With `loads`, also
 * record its PT_LOAD segments. Sets *has_symtab when a full .symtab was
 * found (then .dynsym adds nothing) and fills build_id.
 */
static int read_elf(const char *path, struct sym_file *f, bool loads, bool *has_symtab,
		    char *build_id, size_t build_id_sz)
{
	int fd, err = 0;
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	char *blob = NULL;
	size_t blob_len = 0, blob_cap = 0, first = f->n_syms, n_ph;
	char **blobs;

	*has_symtab = false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto cleanup;
	}
	if (loads && elf_getphdrnum(elf, &n_ph) == 0) {
		f->loads = calloc(n_ph ? n_ph : 1, sizeof(*f->loads));
		if (!f->loads) {
			err = -ENOMEM;
			goto cleanup;
		}
		for (size_t i = 0; i < n_ph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
				f->loads[f->n_loads++] = (struct sym_load){
					ph.p_offset, ph.p_vaddr, ph.p_filesz };
		}
	}
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			*has_symtab = true;
			err = read_symtab(elf, scn, &sh, f, &blob, &blob_len, &blob_cap);
			if (err)
				goto cleanup;
		}
	/* .dynsym is a subset of .symtab; read it only when that is missing. */
	while (!*has_symtab && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM) {
			err = read_symtab(elf, scn, &sh, f, &blob, &blob_len, &blob_cap);
			if (err)
				goto cleanup;
		}
	if (build_id && !read_build_id(elf, build_id, build_id_sz))
		build_id[0] = 0;
	if (!blob)
		goto cleanup;
	blobs = realloc(f->blobs, (f->n_blobs + 1) * sizeof(*blobs));
	if (!blobs) {
		err = -ENOMEM;
		goto cleanup;
	}
	f->blobs = blobs;
	f->blobs[f->n_blobs++] = blob;
	for (size_t i = first; i < f->n_syms; i++)
		f->syms[i].name = blob + (uintptr_t)f->syms[i].name;
	blob = NULL;
cleanup:
	if (err)
		f->n_syms = first; /* names were offsets into a blob now gone */
	free(blob);
	elf_end(elf);
	close(fd);
	return err;
}

/* Sort, and keep the best name at each address. */
static void index_syms(struct sym_file *f)
{
	size_t out = 0;

	if (!f->n_syms)
		return;
	qsort(f->syms, f->n_syms, sizeof(*f->syms), sym_cmp);
	for (size_t i = 0; i < f->n_syms; i++)
		if (!out || f->syms[out - 1].addr != f->syms[i].addr)
			f->syms[out++] = f->syms[i];
	f->n_syms = out;
}

/*
 * Parse the file behind a mapping. `path` is how the tracer reaches it;
 * `root` prefixes the debug-file lookup. Returns 0 when the file was read
 * (even if it has no symbols), or a negative errno when it could not be.
 */
static int load_file(struct sym_file *f, const char *path, const char *root)
{
	char build_id[2 * 64 + 1] = "", dbg[4096];
	bool has_symtab;
	int err;

	err = read_elf(path, f, true, &has_symtab, build_id, sizeof(build_id));
	if (err) {
		ct_dbg("symbolizer: cannot read symbols of %s: %s", path, strerror(-err));
		return err;
	}
	if (!has_symtab && build_id[0]) {
		/* Stripped: distributions keep the symbols in a debug file by build-id. */
		snprintf(dbg, sizeof(dbg), "%s/usr/lib/debug/.build-id/%.2s/%s.debug", root,
			 build_id, build_id + 2);
		if (access(dbg, R_OK) == 0 && read_elf(dbg, f, false, &has_symtab, NULL, 0) == 0)
			ct_dbg("symbolizer: symbols of %s from %s", path, dbg);
	}
	index_syms(f);
	return 0;
}

/*
 * A path by which the tracer can open the file behind a mapping: the
 * mapping itself (/proc/PID/map_files: needs root, right even for a file
 * deleted or replaced since), the file in the process's root (containers),
 * or, once the process is gone, the same path here if it still names the
 * same file (device and inode).
 */
/*
 * Candidate `cand` (0, 1, 2) for opening a mapped file from here: the
 * process's own view (map_files, then its root), then the path itself if it
 * is still the same file. -ENOENT when that candidate cannot be used.
 */
static int mapped_file_path(const struct sym_map *m, uint32_t pid, int cand, char *path, size_t n)
{
	struct stat st;

	switch (cand) {
	case 0:
		snprintf(path, n, "/proc/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64, pid, m->start, m->end);
		return access(path, R_OK) ? -ENOENT : 0;
	case 1:
		snprintf(path, n, "/proc/%" PRIu32 "/root%s", pid, m->path);
		return access(path, R_OK) ? -ENOENT : 0;
	case 2:
		snprintf(path, n, "%s", m->path);
		if (stat(path, &st) == 0 && major(st.st_dev) == (m->dev >> 32) &&
		    minor(st.st_dev) == (uint32_t)m->dev && st.st_ino == m->ino)
			return 0;
	}
	return -ENOENT;
}

static struct sym_file *file_get(const struct sym_map *m, uint32_t pid)
{
	char path[4096], root[64];
	struct sym_file *f;

	for (f = files; f; f = f->next)
		if (f->dev == m->dev && f->ino == m->ino)
			return f;
	snprintf(root, sizeof(root), "/proc/%" PRIu32 "/root", pid);
	/* The process can exit between a candidate's check and its read: then
	 * the next candidate (the path itself) is tried. */
	for (int cand = 0; cand < 3; cand++) {
		if (mapped_file_path(m, pid, cand, path, sizeof(path)))
			continue;
		f = calloc(1, sizeof(*f));
		if (!f)
			return NULL;
		f->dev = m->dev;
		f->ino = m->ino;
		if (load_file(f, path, root)) {
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
	for (size_t i = 0; i < f->n_syms; i++)
		free(f->syms[i].demangled);
	for (size_t i = 0; i < f->n_blobs; i++)
		free(f->blobs[i]);
	free(f->blobs);
	free(f->syms);
	free(f->loads);
	free(f);
}

static const char *file_lookup(struct sym_file *f, uint64_t file_off)
{
	uint64_t vaddr = 0;
	size_t lo = 0, hi = f->n_syms;
	struct sym_sym *s;
	bool in_load = false;

	for (size_t i = 0; i < f->n_loads; i++) {
		const struct sym_load *l = &f->loads[i];

		if (file_off >= l->off && file_off < l->off + l->filesz) {
			vaddr = file_off - l->off + l->vaddr;
			in_load = true;
			break;
		}
	}
	if (!in_load)
		return NULL;
	/* The last symbol at or below vaddr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &f->syms[lo - 1];
	if (s->size ? vaddr >= s->addr + s->size : vaddr != s->addr)
		return NULL;
	if (!s->tried) {
		s->demangled = ct_demangle(s->name);
		s->tried = true;
	}
	return s->demangled ? s->demangled : s->name;
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
	static bool elf_ready;
	struct sym_proc *p;
	struct sym_map *m;
	const char *name = NULL;

	if (!addr)
		return NULL;
	if (!elf_ready) {
		if (elf_version(EV_CURRENT) == EV_NONE)
			return NULL;
		elf_ready = true;
	}
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
