// SPDX-License-Identifier: MIT
/*
 * The ELF reader (elf.h says which symbols count and why): libelf opens the
 * file once, the executable PT_LOAD segments place each function in the
 * file, and two users sit on top: lookup by name (uprobe offsets) and the
 * by-offset table of the symbolizer.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "symbols/elf.h"

/* A symbol table section, with .gnu.version for .dynsym. */
struct tab {
	Elf_Data *syms, *versym;
	size_t strndx, count;
};

struct ct_elf {
	int fd;
	Elf *elf;
	struct ct_elf_seg *segs;
	size_t n_segs;
	struct tab tabs[2]; /* .symtab, then .dynsym */
	size_t n_tabs;
	bool has_symtab;
	bool build_id_read;
	char build_id[2 * 64 + 1];
};

/*
 * What the O_PATH descriptor `pfd` names, opened to read if it is a regular
 * file of a size we read: it is looked at before it is opened, since an
 * open of a FIFO or a device can do something (let a writer go on, rewind a
 * tape), and the path is not looked up again (its own file, through /proc).
 */
static int reopen_regular(int pfd)
{
	char name[64];
	struct stat st;
	int fd;

	if (fstat(pfd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC; /* a FIFO or device: reading it could block or never end */
	if ((uint64_t)st.st_size > CT_ELF_MAX_SIZE)
		return -EFBIG;
	snprintf(name, sizeof(name), "/proc/self/fd/%d", pfd);
	fd = open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	return fd < 0 ? -errno : fd;
}

int ct_elf_open_fd(const char *path)
{
	int pfd = open(path, O_PATH | O_CLOEXEC), fd;

	if (pfd < 0)
		return -errno;
	fd = reopen_regular(pfd);
	close(pfd);
	return fd;
}

int ct_elf_open_fd_in_root(const char *root, const char *path)
{
	/* Links in a container are written for its root: resolved from our own
	 * root, an absolute one (or a ".." past the top) leaves the container. */
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), pfd, fd;

	if (rfd < 0)
		return -errno;
	pfd = (int)syscall(SYS_openat2, rfd, path, &how, sizeof(how));
	fd = pfd < 0 ? -errno : reopen_regular(pfd);
	if (pfd >= 0)
		close(pfd);
	close(rfd);
	return fd;
}

static uint64_t vaddr_to_off(const struct ct_elf *e, uint64_t va)
{
	for (size_t i = 0; i < e->n_segs; i++) {
		const struct ct_elf_seg *s = &e->segs[i];

		if (va >= s->vaddr && va - s->vaddr < s->filesz)
			return va - s->vaddr + s->off;
	}
	return 0;
}

int ct_elf_exec_segs(Elf *elf, struct ct_elf_seg **out, size_t *n_out)
{
	size_t n;

	*out = NULL;
	*n_out = 0;
	if (elf_getphdrnum(elf, &n) || !n)
		return 0; /* no program headers: no function has a file offset */
	*out = calloc(n, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			(*out)[(*n_out)++] = (struct ct_elf_seg){ ph.p_vaddr, ph.p_offset, ph.p_filesz };
	}
	return 0;
}

static int read_segments(struct ct_elf *e)
{
	return ct_elf_exec_segs(e->elf, &e->segs, &e->n_segs);
}

static void read_tables(struct ct_elf *e)
{
	Elf_Scn *scn = NULL, *dynsym = NULL;
	struct tab sym = { 0 }, dyn = { 0 };
	size_t symsz = gelf_fsize(e->elf, ELF_T_SYM, 1, EV_CURRENT);
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e->elf, scn))) {
		struct tab *t;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !sym.syms)
			t = &sym;
		else if (sh.sh_type == SHT_DYNSYM && !dyn.syms)
			t = &dyn, dynsym = scn;
		else
			continue;
		t->syms = elf_getdata(scn, NULL);
		t->strndx = sh.sh_link;
		t->count = t->syms && symsz ? t->syms->d_size / symsz : 0;
	}
	/* The version of .dynsym entry i is entry i of the section linked to it. */
	while (dynsym && (scn = elf_nextscn(e->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym &&
		    sh.sh_link == elf_ndxscn(dynsym)) {
			dyn.versym = elf_getdata(scn, NULL);
			break;
		}
	e->has_symtab = sym.syms != NULL;
	if (sym.count)
		e->tabs[e->n_tabs++] = sym;
	if (dyn.count)
		e->tabs[e->n_tabs++] = dyn;
}

int ct_elf_open(int fd, const struct ct_elf *segments_of, struct ct_elf **out)
{
	struct ct_elf *e = NULL;
	int err;

	*out = NULL;
	if (fd < 0)
		return fd; /* ct_elf_open(ct_elf_open_fd(path), ...) passes on its error */
	if (elf_version(EV_CURRENT) == EV_NONE) {
		err = -EINVAL;
		goto fail;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		err = -ENOMEM;
		goto fail;
	}
	e->fd = fd;
	/* read(), not mmap: see elf.h. */
	e->elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto fail;
	}
	if (segments_of) {
		e->segs = malloc((segments_of->n_segs ? segments_of->n_segs : 1) * sizeof(*e->segs));
		if (!e->segs) {
			err = -ENOMEM;
			goto fail;
		}
		memcpy(e->segs, segments_of->segs, segments_of->n_segs * sizeof(*e->segs));
		e->n_segs = segments_of->n_segs;
	} else {
		err = read_segments(e);
		if (err)
			goto fail;
	}
	read_tables(e);
	*out = e;
	return 0;
fail:
	if (e)
		ct_elf_close(e);
	else
		close(fd);
	return err;
}

int ct_elf_open_path(const char *path, struct ct_elf **out)
{
	int fd = ct_elf_open_fd(path);

	*out = NULL;
	return fd < 0 ? fd : ct_elf_open(fd, NULL, out);
}

void ct_elf_close(struct ct_elf *e)
{
	if (!e)
		return;
	if (e->elf)
		elf_end(e->elf);
	close(e->fd);
	free(e->segs);
	free(e);
}

const struct ct_elf_seg *ct_elf_segs(const struct ct_elf *e, size_t *n)
{
	*n = e->n_segs;
	return e->segs;
}

Elf *ct_elf_handle(const struct ct_elf *e)
{
	return e->elf;
}

int ct_elf_fd(const struct ct_elf *e)
{
	return e->fd;
}

bool ct_elf_has_symtab(const struct ct_elf *e)
{
	return e->has_symtab;
}

static int dyn_str(char **dst, const char *s)
{
	free(*dst);
	*dst = strdup(s ? s : "");
	return *dst ? 0 : -ENOMEM;
}

int ct_elf_dynamic(struct ct_elf *e, struct ct_elf_dyn *out)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t n;
	GElf_Shdr sh;

	memset(out, 0, sizeof(*out));
	if (gelf_getehdr(e->elf, &eh)) {
		out->machine = eh.e_machine;
		out->elf_class = eh.e_ident[EI_CLASS];
	}
	for (size_t i = 0; !elf_getphdrnum(e->elf, &n) && i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e->elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			out->interp = true;
	}
	while ((scn = elf_nextscn(e->elf, scn))) {
		Elf_Data *data;
		GElf_Dyn d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !(data = elf_getdata(scn, NULL)))
			continue;
		for (int i = 0; gelf_getdyn(data, i, &d) && d.d_tag != DT_NULL; i++) {
			const char *str = d.d_tag == DT_NEEDED || d.d_tag == DT_RPATH || d.d_tag == DT_RUNPATH ?
					  elf_strptr(e->elf, sh.sh_link, d.d_un.d_val) : NULL;
			int err = 0;

			if (d.d_tag == DT_NEEDED && str) {
				char **v = realloc(out->needed, (out->n_needed + 1) * sizeof(*v));

				if (!v || !(v[out->n_needed] = strdup(str))) {
					if (v)
						out->needed = v;
					err = -ENOMEM;
				} else {
					out->needed = v;
					out->n_needed++;
				}
			} else if (d.d_tag == DT_RPATH && str) {
				err = dyn_str(&out->rpath, str);
			} else if (d.d_tag == DT_RUNPATH && str) {
				err = dyn_str(&out->runpath, str);
			} else if (d.d_tag == DT_FLAGS_1) {
				out->nodeflib = d.d_un.d_val & DF_1_NODEFLIB;
			}
			if (err) {
				ct_elf_dyn_free(out);
				return err;
			}
		}
		break;
	}
	return 0;
}

void ct_elf_dyn_free(struct ct_elf_dyn *d)
{
	for (size_t i = 0; i < d->n_needed; i++)
		free(d->needed[i]);
	free(d->needed);
	free(d->rpath);
	free(d->runpath);
	memset(d, 0, sizeof(*d));
}

const char *ct_elf_build_id(struct ct_elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (e->build_id_read)
		return e->build_id;
	e->build_id_read = true;
	while ((scn = elf_nextscn(e->elf, scn))) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(data = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			const unsigned char *id = (const unsigned char *)data->d_buf + doff;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)data->d_buf + noff, "GNU", 4) ||
			    nh.n_descsz < 2 || nh.n_descsz * 2 + 1 > sizeof(e->build_id))
				continue;
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(e->build_id + 2 * i, 3, "%02x", id[i]);
			return e->build_id;
		}
	}
	return e->build_id;
}

bool ct_elf_next_fn(struct ct_elf *e, size_t *pos, struct ct_elf_fn *fn)
{
	for (size_t t = 0, base = 0; t < e->n_tabs; base += e->tabs[t++].count) {
		const struct tab *tab = &e->tabs[t];

		for (; *pos - base < tab->count; (*pos)++) {
			size_t i = *pos - base;
			int type, bind;
			const char *name, *at;
			GElf_Versym vs;
			GElf_Sym s;

			if (!gelf_getsym(tab->syms, (int)i, &s))
				continue;
			type = GELF_ST_TYPE(s.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF || !s.st_value)
				continue;
			name = elf_strptr(e->elf, tab->strndx, s.st_name);
			if (!name || !*name || *name == '@')
				continue;
			*fn = (struct ct_elf_fn){
				.name = name,
				.vaddr = s.st_value,
				.size = s.st_size,
				.off = vaddr_to_off(e, s.st_value),
				.kind = type == STT_FUNC ? CT_ELF_FUNC : CT_ELF_IFUNC,
			};
			if (!fn->off)
				continue;
			at = strchr(name, '@');
			fn->name_len = at ? (size_t)(at - name) : strlen(name);
			if (at)
				fn->compat = at[1] != '@';
			else if (tab->versym && gelf_getversym(tab->versym, (int)i, &vs))
				fn->compat = vs & 0x8000; /* VERSYM_HIDDEN */
			bind = GELF_ST_BIND(s.st_info);
			fn->rank = (bind == STB_GLOBAL ? 8 : bind == STB_WEAK ? 4 : 0) + (fn->compat ? 0 : 2) +
				   (s.st_size != 0);
			(*pos)++;
			return true;
		}
	}
	return false;
}

/* ---- by name ---------------------------------------------------------- */

struct name_ix {
	const char *name;
	size_t i;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct name_ix *)a)->name, ((const struct name_ix *)b)->name);
}

/* A symbol's base name (not NUL-terminated) against a wanted name, in strcmp's order. */
static int cmp_fn_name(const void *key, const void *b)
{
	const struct ct_elf_fn *fn = key;
	const char *want = ((const struct name_ix *)b)->name;
	int c = strncmp(fn->name, want, fn->name_len);

	return c ? c : want[fn->name_len] ? -1 : 0;
}

int ct_elf_find(struct ct_elf *e, const char *const *names, size_t n, struct ct_elf_fn *out)
{
	struct name_ix *ix = calloc(n ? n : 1, sizeof(*ix));
	struct ct_elf_fn fn;
	size_t pos = 0;
	int found = 0;

	if (!ix)
		return -ENOMEM;
	memset(out, 0, n * sizeof(*out));
	for (size_t i = 0; i < n; i++)
		ix[i] = (struct name_ix){ names[i], i };
	qsort(ix, n, sizeof(*ix), cmp_name);
	while (ct_elf_next_fn(e, &pos, &fn)) {
		struct name_ix *hit = bsearch(&fn, ix, n, sizeof(*ix), cmp_fn_name);

		if (!hit)
			continue;
		/* A name asked for twice: every copy gets the answer. */
		while (hit > ix && !cmp_fn_name(&fn, hit - 1))
			hit--;
		for (; hit < ix + n && !cmp_fn_name(&fn, hit); hit++) {
			struct ct_elf_fn *o = &out[hit->i];

			if (o->kind == CT_ELF_NONE)
				found++;
			if (o->kind == CT_ELF_NONE || fn.rank > o->rank)
				*o = fn;
		}
	}
	free(ix);
	return found;
}

int ct_elf_resolve(const char *path, const char *const *names, size_t n, uint64_t *offsets)
{
	struct ct_elf_fn *fns = NULL;
	struct ct_elf *e;
	int err, set = 0;

	memset(offsets, 0, n * sizeof(*offsets));
	err = ct_elf_open_path(path, &e);
	if (err)
		return err;
	fns = calloc(n ? n : 1, sizeof(*fns));
	err = fns ? ct_elf_find(e, names, n, fns) : -ENOMEM;
	for (size_t i = 0; err >= 0 && i < n; i++)
		if (fns[i].kind == CT_ELF_FUNC) {
			offsets[i] = fns[i].off;
			set++;
		}
	free(fns);
	ct_elf_close(e);
	return err < 0 ? err : set;
}

int ct_elf_info(const char *path, bool *has_symtab)
{
	struct ct_elf *e;
	int err;

	*has_symtab = false;
	err = ct_elf_open_path(path, &e);
	if (err)
		return err;
	*has_symtab = ct_elf_has_symtab(e);
	ct_elf_close(e);
	return 0;
}

/* ---- by offset -------------------------------------------------------- */

int ct_elf_funcs_put(struct ct_elf_funcs *t, uint64_t off, uint64_t size, const char *name, size_t name_len,
		     uint8_t rank)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct ct_elf_addr *nf = realloc(t->fns, cap * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		t->fns = nf;
		t->cap = cap;
	}
	if (t->names_len + name_len + 1 > t->names_cap) {
		size_t cap = (t->names_cap ? t->names_cap * 2 : 4096) + name_len + 1;
		char *nn = realloc(t->names, cap);

		if (!nn)
			return -ENOMEM;
		t->names = nn;
		t->names_cap = cap;
	}
	memcpy(t->names + t->names_len, name, name_len);
	t->names[t->names_len + name_len] = 0;
	t->fns[t->n++] = (struct ct_elf_addr){ off, size, t->names_len, rank };
	t->names_len += name_len + 1;
	return 0;
}

int ct_elf_funcs_add(struct ct_elf_funcs *t, struct ct_elf *e)
{
	struct ct_elf_fn fn;
	size_t pos = 0;
	int err;

	while (ct_elf_next_fn(e, &pos, &fn))
		if (fn.kind == CT_ELF_FUNC && (err = ct_elf_funcs_put(t, fn.off, fn.size, fn.name, fn.name_len, fn.rank)))
			return err;
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct ct_elf_addr *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (int)y->rank - (int)x->rank; /* best first */
}

void ct_elf_funcs_sort(struct ct_elf_funcs *t)
{
	size_t out = 0, len = 0;
	char *names;

	if (!t->n)
		return;
	qsort(t->fns, t->n, sizeof(*t->fns), cmp_addr);
	for (size_t i = 0; i < t->n; i++)
		if (!out || t->fns[out - 1].off != t->fns[i].off)
			t->fns[out++] = t->fns[i];
	t->n = out;
	/* .symtab and .dynsym name most functions twice: keep the names kept. */
	for (size_t i = 0; i < t->n; i++)
		len += strlen(t->names + t->fns[i].name) + 1;
	names = malloc(len);
	if (!names)
		return; /* the old blob still serves */
	len = 0;
	for (size_t i = 0; i < t->n; i++) {
		size_t sz = strlen(t->names + t->fns[i].name) + 1;

		memcpy(names + len, t->names + t->fns[i].name, sz);
		t->fns[i].name = len;
		len += sz;
	}
	free(t->names);
	t->names = names;
	t->names_len = t->names_cap = len;
}

long ct_elf_funcs_at(const struct ct_elf_funcs *t, uint64_t off)
{
	size_t lo = 0, hi = t->n;
	const struct ct_elf_addr *f;

	/* The last function at or below off. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->fns[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	f = &t->fns[lo - 1];
	if (f->size ? off - f->off >= f->size : off != f->off)
		return -1;
	return (long)(lo - 1);
}

void ct_elf_funcs_free(struct ct_elf_funcs *t)
{
	free(t->fns);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

/* ---- data symbols ----------------------------------------------------- */

int ct_elf_find_data(struct ct_elf *e, const char *const *names, size_t n, uint64_t *vaddrs)
{
	int found = 0;

	memset(vaddrs, 0, n * sizeof(*vaddrs));
	for (size_t t = 0; t < e->n_tabs; t++) {
		const struct tab *tab = &e->tabs[t];

		for (size_t i = 0; i < tab->count; i++) {
			const char *name;
			GElf_Sym s;

			if (!gelf_getsym(tab->syms, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_OBJECT ||
			    s.st_shndx == SHN_UNDEF || !s.st_value)
				continue;
			name = elf_strptr(e->elf, tab->strndx, s.st_name);
			for (size_t k = 0; name && k < n; k++)
				if (!vaddrs[k] && !strcmp(name, names[k])) {
					vaddrs[k] = s.st_value;
					found++;
				}
		}
	}
	return found;
}

int ct_elf_first_load(struct ct_elf *e, uint64_t *vaddr, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(e->elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e->elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			*vaddr = ph.p_vaddr;
			*off = ph.p_offset;
			return 0;
		}
	}
	return -ENOEXEC;
}

int ct_elf_read_vaddr(struct ct_elf *e, uint64_t vaddr, void *buf, size_t n)
{
	size_t nph;

	if (elf_getphdrnum(e->elf, &nph))
		return -ENOEXEC;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz || n > ph.p_filesz - (vaddr - ph.p_vaddr))
			continue;
		if (pread(e->fd, buf, n, (off_t)(ph.p_offset + (vaddr - ph.p_vaddr))) != (ssize_t)n)
			return -EIO;
		return 0;
	}
	return -ERANGE;
}
