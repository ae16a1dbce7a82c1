// SPDX-License-Identifier: MIT
/*
 * Symbol name -> file offset, with libelf. uprobes want file offsets; we
 * resolve them ourselves rather than hand libbpf names, so that the same
 * path serves shared libraries and runtimes linked into executables.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/elf.h"

struct name_ix {
	const char *name;
	size_t i;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct name_ix *)a)->name, ((const struct name_ix *)b)->name);
}

/* Virtual address -> file offset through the PT_LOAD segment that holds it. */
static uint64_t vaddr_to_off(Elf *e, uint64_t va)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (va >= ph.p_vaddr && va < ph.p_vaddr + ph.p_memsz)
			return va - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}

static int scan_symtab(Elf *e, Elf_Scn *scn, GElf_Shdr *sh, struct name_ix *ix, size_t n,
		       uint64_t *offsets)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t count, found = 0;

	if (!d || !sh->sh_entsize)
		return 0;
	count = sh->sh_size / sh->sh_entsize;
	for (size_t s = 0; s < count; s++) {
		GElf_Sym sym;
		struct name_ix key, *hit;
		const char *name;

		if (!gelf_getsym(d, s, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		key.name = name;
		hit = bsearch(&key, ix, n, sizeof(*ix), cmp_name);
		if (!hit || offsets[hit->i])
			continue;
		offsets[hit->i] = vaddr_to_off(e, sym.st_value);
		found += offsets[hit->i] != 0;
	}
	return found;
}

/* Open an ELF file: 0 with *fd and *e set, or -errno (-ENOEXEC: not ELF). */
static int elf_open(const char *path, int *fd, Elf **e)
{
	*e = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	*e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*e || elf_kind(*e) != ELF_K_ELF) {
		if (*e)
			elf_end(*e);
		close(*fd);
		return -ENOEXEC;
	}
	return 0;
}

int ct_elf_resolve(const char *path, const char *const *names, size_t n, uint64_t *offsets)
{
	struct name_ix *ix = NULL;
	Elf_Scn *scn = NULL;
	Elf *e = NULL;
	int fd, err = 0, found = 0;

	memset(offsets, 0, n * sizeof(*offsets));
	err = elf_open(path, &fd, &e);
	if (err)
		return err;
	ix = calloc(n ? n : 1, sizeof(*ix));
	if (!ix) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++)
		ix[i] = (struct name_ix){ names[i], i };
	qsort(ix, n, sizeof(*ix), cmp_name);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		found += scan_symtab(e, scn, &sh, ix, n, offsets);
	}
	err = found;
cleanup:
	free(ix);
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

int ct_elf_info(const char *path, bool *has_symtab)
{
	Elf_Scn *scn = NULL;
	Elf *e;
	int fd, err = 0;

	*has_symtab = false;
	err = elf_open(path, &fd, &e);
	if (err)
		return err;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			*has_symtab = true;
	}
	elf_end(e);
	close(fd);
	return 0;
}
