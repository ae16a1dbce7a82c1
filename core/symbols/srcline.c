// SPDX-License-Identifier: MIT
/* Source lines of native frames from DWARF, bounded: see srcline.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include "symbols/elf.h"
#include "symbols/srcline.h"
#include "util/log.h"
#include "util/u64map.h"

/* Units looked through, one by one, for an address when the file has no
 * .debug_aranges (clang's default): per address, once (answers are kept). */
#define MAX_UNITS_SCANNED 4096
/* Section names are read from .shstrtab: no real file has one this large. */
#define MAX_SHSTRTAB (1U << 20)

struct srcline {
	const char *file; /* libdw's; NULL: no line covers the offset */
	uint32_t line;
};

struct ct_srclines {
	Elf *elf;
	Dwarf *dw;
	struct ct_elf_seg *segs; /* executable PT_LOADs: file offsets to addresses */
	size_t n_segs;
	uint64_t bytes;   /* of DWARF, counted in `held` */
	bool aranges;     /* the file has .debug_aranges */
	struct ct_u64map at; /* off -> struct srcline * */
};

static uint64_t held; /* bytes of DWARF of every open ct_srclines */

/*
 * The bytes libdw would read of the file's DWARF (a compressed section at
 * its inflated size), or UINT64_MAX when it cannot be told, or the file has
 * a section compressed the old GNU way (.zdebug_*, size not in a header).
 */
static uint64_t dwarf_bytes(Elf *elf, bool *has_line, bool *has_info, bool *aranges)
{
	Elf_Scn *scn = NULL;
	uint64_t n = 0;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) ||
	    !gelf_getshdr(elf_getscn(elf, shstrndx), &sh) || sh.sh_size > MAX_SHSTRTAB)
		return UINT64_MAX;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Chdr ch;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			return UINT64_MAX;
		if (!strncmp(name, ".zdebug", 7))
			return UINT64_MAX;
		if (strncmp(name, ".debug_", 7) || sh.sh_type == SHT_NOBITS)
			continue;
		*has_line |= !strcmp(name, ".debug_line");
		*has_info |= !strcmp(name, ".debug_info");
		*aranges |= !strcmp(name, ".debug_aranges");
		if (sh.sh_flags & SHF_COMPRESSED) {
			if (!gelf_getchdr(scn, &ch))
				return UINT64_MAX;
			n += ch.ch_size;
		} else {
			n += sh.sh_size;
		}
	}
	return n;
}

struct ct_srclines *ct_srclines_open(int fd)
{
	struct ct_srclines *s;
	bool has_line = false, has_info = false;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	/* read(), not mmap: see srcline.h. */
	s->elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!s->elf || elf_kind(s->elf) != ELF_K_ELF || ct_elf_exec_segs(s->elf, &s->segs, &s->n_segs) || !s->n_segs)
		goto fail;
	s->bytes = dwarf_bytes(s->elf, &has_line, &has_info, &s->aranges);
	if (!has_line || !has_info || s->bytes > CT_SRCLINE_MAX_FILE || held + s->bytes > CT_SRCLINE_MAX_TOTAL) {
		if (has_line && has_info)
			ct_dbg("srcline: %llu bytes of DWARF, past the bound: no source lines",
			       (unsigned long long)s->bytes);
		goto fail;
	}
	/* libdw reads every section it knows here; then the descriptor is not
	 * needed (nor used again: FDDONE) and the caller closes it. */
	s->dw = dwarf_begin_elf(s->elf, DWARF_C_READ, NULL);
	if (!s->dw)
		goto fail;
	elf_cntl(s->elf, ELF_C_FDDONE);
	held += s->bytes;
	return s;
fail:
	s->bytes = 0;
	ct_srclines_close(s);
	return NULL;
}

/* The unit whose code covers vaddr: by .debug_aranges, else by looking
 * through at most MAX_UNITS_SCANNED units. */
static bool unit_of(struct ct_srclines *s, uint64_t vaddr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (s->aranges)
		return dwarf_addrdie(s->dw, vaddr, cu) != NULL;
	for (int i = 0; i < MAX_UNITS_SCANNED && !dwarf_nextcu(s->dw, off, &next, &hsize, NULL, NULL, NULL);
	     i++, off = next)
		if (dwarf_offdie(s->dw, off + hsize, cu) && dwarf_haspc(cu, vaddr) == 1)
			return true;
	return false;
}

static struct srcline lookup(struct ct_srclines *s, uint64_t off)
{
	struct srcline r = { NULL, 0 };
	Dwarf_Line *l;
	Dwarf_Die cu;
	int line;

	for (size_t i = 0; i < s->n_segs; i++) {
		const struct ct_elf_seg *g = &s->segs[i];
		uint64_t vaddr = off - g->off + g->vaddr;

		if (off < g->off || off - g->off >= g->filesz)
			continue;
		/* Line 0: code the compiler made that no line wrote. */
		if (unit_of(s, vaddr, &cu) && (l = dwarf_getsrc_die(&cu, vaddr)) && !dwarf_lineno(l, &line) &&
		    line > 0 && (r.file = dwarf_linesrc(l, NULL, NULL)))
			r.line = (uint32_t)line;
		break;
	}
	return r;
}

int ct_srclines_at(struct ct_srclines *s, uint64_t off, const char **file, uint32_t *line)
{
	struct srcline *r = ct_u64map_get(&s->at, off), v;

	if (r) {
		v = *r;
	} else {
		v = lookup(s, off);
		r = malloc(sizeof(*r));
		if (r && (*r = v, ct_u64map_put(&s->at, off, r)))
			free(r); /* not kept: looked up again next time */
	}
	if (!v.file)
		return -ENOENT;
	*file = v.file;
	*line = v.line;
	return 0;
}

void ct_srclines_close(struct ct_srclines *s)
{
	if (!s)
		return;
	held -= s->bytes;
	ct_u64map_free_all(&s->at, free);
	if (s->dw)
		dwarf_end(s->dw);
	if (s->elf)
		elf_end(s->elf);
	free(s->segs);
	free(s);
}
