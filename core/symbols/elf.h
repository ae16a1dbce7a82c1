/* SPDX-License-Identifier: MIT */
/*
 * The tracer's one ELF reader: the functions of an executable or shared
 * library, read for the uprobe attacher (name -> file offset) and for the
 * symbolizer (file offset -> name). Both walk ct_elf_next_fn(), so both
 * count the same symbols:
 *
 *  - A function is an STT_FUNC or STT_GNU_IFUNC symbol that is defined, has
 *    a name, and lies in the file bytes of an executable PT_LOAD segment;
 *    that segment turns its address into the file offset that uprobes and
 *    /proc/PID/maps speak in.
 *  - Both .symtab and .dynsym are read: .symtab normally holds every
 *    dynamic symbol too, but a file whose .symtab was cut down by hand
 *    would otherwise lose its exports. A name found in both counts once.
 *  - Versions: "foo", "foo@@V2" in .symtab and a .dynsym foo whose
 *    .gnu.version entry is not hidden are the default foo, the one the
 *    linker binds new callers to; "foo@V1" and a hidden .gnu.version entry
 *    are a compat version kept for old binaries. Names are compared and
 *    reported without the suffix.
 *  - Zero size (hand-written assembly): the symbol names its address only.
 *  - Several symbols at one address, or under one name: global beats weak
 *    beats local (an export beats the static function it aliases), then a
 *    default version beats a compat one (so "foo" resolves to what new
 *    callers call), then sized beats zero-size (ct_elf_fn.rank).
 *  - IFUNC: the value of an STT_GNU_IFUNC symbol is its resolver, a
 *    function ld.so calls once at load to pick the implementation that
 *    every call then reaches. A uprobe there would fire once per process,
 *    never per call, so ct_elf_resolve() gives no offset for it (the
 *    caller can tell why with ct_elf_find(): kind CT_ELF_IFUNC), and the
 *    symbolizer leaves IFUNCs out: an address a process hands over is
 *    never the resolver (&foo is the implementation's address), and the
 *    implementation has a function symbol of its own that names it.
 *
 * Files must be regular and at most CT_ELF_MAX_SIZE, which is seen before
 * they are opened (then with O_NONBLOCK): the symbolizer opens files on a
 * traced process's behalf (/proc/PID/root, map_files), and a FIFO or device
 * placed there must not hang the tracer, nor be opened at all. libelf reads them with read(), not mmap: a file truncated while
 * it is read then fails a read instead of raising SIGBUS in the tracer.
 */
#ifndef CT_ELFSYM_H
#define CT_ELFSYM_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Larger than any real library (a fat libtorch_cuda.so is about 1.5 GiB). */
#define CT_ELF_MAX_SIZE (4ULL << 30)

enum ct_elf_kind {
	CT_ELF_NONE,  /* no such function (ct_elf_find) */
	CT_ELF_FUNC,
	CT_ELF_IFUNC, /* vaddr and off are those of the resolver */
};

/* One function symbol. `name` points into the file's data: valid until ct_elf_close(). */
struct ct_elf_fn {
	const char *name;   /* as the file spells it, "@VER" or "@@VER" included */
	size_t name_len;    /* without the version suffix */
	uint64_t vaddr;     /* st_value */
	uint64_t size;      /* 0: names its address only */
	uint64_t off;       /* file offset of vaddr, never 0 */
	enum ct_elf_kind kind;
	bool compat;        /* a non-default version (foo@V1) */
	uint8_t rank;       /* which symbol wins at one address or under one name: higher */
};

struct ct_elf;

/* An executable PT_LOAD segment's file bytes: they turn a file offset of
 * code into its address, and back. */
struct ct_elf_seg {
	uint64_t vaddr, off, filesz;
};

/* The executable PT_LOAD segments of a file libelf has open, into *out
 * (free it). Returns 0 (none: *n 0) or -ENOMEM. */
int ct_elf_exec_segs(Elf *elf, struct ct_elf_seg **out, size_t *n);

/*
 * Open `path` for reading its symbols: what it names must be a regular file
 * of at most CT_ELF_MAX_SIZE, seen (O_PATH) before anything is opened, then
 * opened O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_NOCTTY through that descriptor.
 * Returns the descriptor, or -errno: -ENOEXEC not a regular file, -EFBIG too large.
 */
int ct_elf_open_fd(const char *path);
/* The same for `path` in the folder `root` taken as / (a process's
 * /proc/PID/root): its links resolved as the process sees them (openat2
 * RESOLVE_IN_ROOT), never out of it. */
int ct_elf_open_fd_in_root(const char *root, const char *path);

/*
 * Parse the ELF file open at `fd`, which the result then owns (it is closed
 * by ct_elf_close, or here on failure; a negative fd is returned as the
 * error). `segments_of`: for a separate debug file, whose own PT_LOAD
 * headers keep no file bytes, the file it belongs to; its segments place
 * the symbols. NULL otherwise.
 * Returns 0, or -errno: -ENOEXEC for a file that is not ELF.
 */
int ct_elf_open(int fd, const struct ct_elf *segments_of, struct ct_elf **out);

/* ct_elf_open_fd() then ct_elf_open(). */
int ct_elf_open_path(const char *path, struct ct_elf **out);

void ct_elf_close(struct ct_elf *e);

/* libelf's handle of it (section and program headers). */
Elf *ct_elf_handle(const struct ct_elf *e);

/* The descriptor being read (to fstat it). */
int ct_elf_fd(const struct ct_elf *e);

/* Its executable PT_LOAD segments (owned by e). */
const struct ct_elf_seg *ct_elf_segs(const struct ct_elf *e, size_t *n);

/* Whether the file keeps a .symtab (is not stripped). */
bool ct_elf_has_symtab(const struct ct_elf *e);

/*
 * What ld.so reads to load a file's dependencies: its DT_NEEDED names in
 * order, DT_RPATH and DT_RUNPATH as written ($ORIGIN unexpanded; NULL when
 * absent), DF_1_NODEFLIB, and what it runs on (e_machine, ELFCLASS32/64).
 * interp: the file has a PT_INTERP (an executable linked dynamically).
 */
struct ct_elf_dyn {
	char **needed;
	size_t n_needed;
	char *rpath, *runpath;
	bool nodeflib, interp;
	uint16_t machine;
	uint8_t elf_class;
};

/* Returns 0 (a static file has no DT_NEEDED: n_needed 0) or -ENOMEM. */
int ct_elf_dynamic(struct ct_elf *e, struct ct_elf_dyn *out);
void ct_elf_dyn_free(struct ct_elf_dyn *d);

/* The GNU build-id in lowercase hex, or "" when the file has none. */
const char *ct_elf_build_id(struct ct_elf *e);

/* The next function symbol: *pos starts at 0. False at the end. */
bool ct_elf_next_fn(struct ct_elf *e, size_t *pos, struct ct_elf_fn *fn);

/*
 * For each names[i], the best function of that name (kind CT_ELF_NONE when
 * the file has none). Returns how many names were found, IFUNCs included.
 */
int ct_elf_find(struct ct_elf *e, const char *const *names, size_t n, struct ct_elf_fn *out);

/*
 * For each names[i], the file offset of the function it names in the ELF
 * file at `path`, or 0 if the file does not define it or defines it as an
 * IFUNC. Returns how many offsets were set, or a negative errno: -ENOEXEC
 * for a file that is not ELF.
 */
int ct_elf_resolve(const char *path, const char *const *names, size_t n, uint64_t *offsets);

/* Whether `path` is ELF and keeps a .symtab (not stripped). Returns 0 or -errno (-ENOEXEC: not ELF). */
int ct_elf_info(const char *path, bool *has_symtab);

/*
 * Data: for each names[i], the st_value of the defined STT_OBJECT symbol of
 * that name (.symtab or .dynsym), 0 when the file has none. Returns how
 * many were found. The first PT_LOAD's p_vaddr and p_offset: what a
 * mapping of the file's offset p_offset at address A makes the load bias
 * (A - p_vaddr, page-aligned). Returns 0 or -ENOEXEC.
 */
int ct_elf_find_data(struct ct_elf *e, const char *const *names, size_t n, uint64_t *vaddrs);
int ct_elf_first_load(struct ct_elf *e, uint64_t *vaddr, uint64_t *off);
/* n bytes of the file's initialized data at vaddr (a PT_LOAD's file bytes).
 * Returns 0, -ERANGE (not in a segment's file bytes: .bss), -EIO. */
int ct_elf_read_vaddr(struct ct_elf *e, uint64_t vaddr, void *buf, size_t n);

/*
 * The functions of a file (and of its debug file) by file offset, for
 * naming addresses. IFUNCs are left out (see above). Zero-fill it, add
 * files, sort, then look up.
 */
struct ct_elf_addr {
	uint64_t off, size;
	size_t name;  /* offset in names */
	uint8_t rank;
};

struct ct_elf_funcs {
	struct ct_elf_addr *fns; /* sorted by off after ct_elf_funcs_sort, one per offset */
	size_t n, cap;
	char *names;             /* the names, without version suffixes */
	size_t names_len, names_cap;
};

int ct_elf_funcs_add(struct ct_elf_funcs *t, struct ct_elf *e);
/* One function of its own (rank: below every symbol's, 0, to lose to any). 0 or -ENOMEM. */
int ct_elf_funcs_put(struct ct_elf_funcs *t, uint64_t off, uint64_t size, const char *name, size_t name_len,
		     uint8_t rank);
/* Sort by offset and keep the best name at each. */
void ct_elf_funcs_sort(struct ct_elf_funcs *t);
/* The index of the function covering file offset `off`, or -1. */
long ct_elf_funcs_at(const struct ct_elf_funcs *t, uint64_t off);
void ct_elf_funcs_free(struct ct_elf_funcs *t);

static inline const char *ct_elf_funcs_name(const struct ct_elf_funcs *t, long i)
{
	return t->names + t->fns[i].name;
}

#endif
