// SPDX-License-Identifier: MIT
/* The kernels a CUDA file registers, read from its code: cudareg.h. */
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/cudareg.h"
#include "symbols/elf.h"

#define REG_SYM "__cudaRegisterFunction"
#define CHUNK (1u << 20)
#define BACK 64                 /* bytes before a call where its arguments are loaded */
#define NAME_LEN_MAX 4096
#define SECTION_MAX (256u << 20) /* a relocation or PLT section larger than this is not read */
#define MAX_ADDRS 16

struct addrs {
	uint64_t a[MAX_ADDRS];
	size_t n;
};

static void addrs_add(struct addrs *s, uint64_t a)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->a[i] == a)
			return;
	if (s->n < MAX_ADDRS)
		s->a[s->n++] = a;
}

static bool addrs_has(const struct addrs *s, uint64_t a)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->a[i] == a)
			return true;
	return false;
}

struct scan {
	Elf *elf;
	int fd;
	GElf_Phdr *loads;
	size_t n_loads;
	struct addrs targets; /* what a direct call to it goes to: its PLT entries */
	struct addrs slots;   /* its GOT slots: what an indirect call (-fno-plt) reads */
	ct_cudareg_fn fn;
	void *ctx;
	int found;
};

/* The file offset of vaddr `va` in a PT_LOAD segment's file bytes (executable only: `exec`). */
static bool file_off(const struct scan *sc, uint64_t va, bool exec, uint64_t *off)
{
	for (size_t i = 0; i < sc->n_loads; i++) {
		const GElf_Phdr *p = &sc->loads[i];

		if ((!exec || (p->p_flags & PF_X)) && va >= p->p_vaddr && va - p->p_vaddr < p->p_filesz) {
			*off = p->p_offset + (va - p->p_vaddr);
			return true;
		}
	}
	return false;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The GOT slots the dynamic relocations bind to __cudaRegisterFunction. */
static void find_slots(struct scan *sc)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(sc->elf, scn))) {
		GElf_Shdr sh, symsh;
		Elf_Scn *symscn;
		Elf_Data *rel, *syms;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_size > SECTION_MAX || !sh.sh_entsize)
			continue;
		symscn = elf_getscn(sc->elf, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &symsh) || symsh.sh_size > SECTION_MAX ||
		    !(rel = elf_getdata(scn, NULL)) || !(syms = elf_getdata(symscn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name;
			uint64_t type;

			if (!gelf_getrela(rel, (int)i, &r))
				break;
			type = GELF_R_TYPE(r.r_info);
			if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym))
				continue;
			name = elf_strptr(sc->elf, symsh.sh_link, sym.st_name);
			if (name && !strcmp(name, REG_SYM))
				addrs_add(&sc->slots, r.r_offset);
		}
	}
}

/* The PLT entries (16 bytes each, in .plt, .plt.sec or .plt.got) that jump through one of those slots. */
static void find_plt(struct scan *sc)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(sc->elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(sc->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;
		const unsigned char *b;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || sh.sh_size > SECTION_MAX ||
		    !(name = elf_strptr(sc->elf, shstrndx, sh.sh_name)) || strncmp(name, ".plt", 4) ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		b = d->d_buf;
		for (size_t p = 0; p + 6 <= d->d_size; p++) {
			uint64_t slot;

			if (b[p] != 0xff || b[p + 1] != 0x25)
				continue;
			slot = sh.sh_addr + p + 6 + (uint64_t)(int64_t)(int32_t)le32(b + p + 2);
			if (addrs_has(&sc->slots, slot))
				addrs_add(&sc->targets, sh.sh_addr + (p & ~(size_t)15));
		}
	}
}

static bool name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
	       c == '.';
}

/* A call at buf[i] (vaddr va): the stub and name loaded in the bytes before it. */
static int one_call(struct scan *sc, const unsigned char *buf, size_t i, uint64_t va)
{
	uint64_t stub = 0, name = 0, stub_off, name_off;
	char text[NAME_LEN_MAX];
	ssize_t got;
	size_t len;

	for (size_t j = i; j-- > (i > BACK ? i - BACK : 0) && (!stub || !name);) {
		uint64_t at = va - (i - j);

		if (j + 7 <= i && buf[j] == 0x48 && buf[j + 1] == 0x8d && (buf[j + 2] == 0x35 || buf[j + 2] == 0x15)) {
			uint64_t v = at + 7 + (uint64_t)(int64_t)(int32_t)le32(buf + j + 3);

			if (buf[j + 2] == 0x35 && !stub)
				stub = v;
			else if (buf[j + 2] == 0x15 && !name)
				name = v;
		} else if (j + 5 <= i && (buf[j] == 0xbe || buf[j] == 0xba)) {
			/* mov $imm32, %esi / %edx: a position-dependent executable */
			if (buf[j] == 0xbe && !stub)
				stub = le32(buf + j + 1);
			else if (buf[j] == 0xba && !name)
				name = le32(buf + j + 1);
		}
	}
	if (!stub || !name || !file_off(sc, stub, true, &stub_off) || !file_off(sc, name, false, &name_off))
		return 0;
	got = pread(sc->fd, text, sizeof(text), (off_t)name_off);
	if (got <= 0)
		return 0;
	for (len = 0; len < (size_t)got && text[len]; len++)
		if (!name_char((unsigned char)text[len]))
			return 0;
	if (!len || len == (size_t)got)
		return 0;
	sc->found++;
	return sc->fn(sc->ctx, stub_off, text, len);
}

/* Every call to it in one executable segment's bytes, read a chunk at a time. */
static int scan_segment(struct scan *sc, const GElf_Phdr *p, unsigned char *buf)
{
	for (uint64_t pos = 0; pos < p->p_filesz; pos += CHUNK) {
		uint64_t from = pos > BACK ? pos - BACK : 0, to = pos + CHUNK + 8;
		ssize_t got;
		int err;

		if (to > p->p_filesz)
			to = p->p_filesz;
		got = pread(sc->fd, buf, to - from, (off_t)(p->p_offset + from));
		if (got < 0)
			return -errno;
		for (size_t i = pos - from; i < (size_t)got && i < pos - from + CHUNK; i++) {
			uint64_t va = p->p_vaddr + from + i;

			if (buf[i] == 0xe8 && i + 5 <= (size_t)got) {
				if (!addrs_has(&sc->targets, va + 5 + (uint64_t)(int64_t)(int32_t)le32(buf + i + 1)))
					continue;
			} else if (buf[i] == 0xff && i + 6 <= (size_t)got && buf[i + 1] == 0x15) {
				if (!addrs_has(&sc->slots, va + 6 + (uint64_t)(int64_t)(int32_t)le32(buf + i + 2)))
					continue;
			} else {
				continue;
			}
			if ((err = one_call(sc, buf, i, va)))
				return err;
		}
	}
	return 0;
}

int ct_cudareg_scan(struct ct_elf *e, ct_cudareg_fn fn, void *ctx)
{
	struct scan sc = { .elf = ct_elf_handle(e), .fd = ct_elf_fd(e), .fn = fn, .ctx = ctx };
	unsigned char *buf = NULL;
	size_t n = 0;
	int err = 0;

	if (!sc.elf || elf_getphdrnum(sc.elf, &n))
		return -ENOEXEC;
	find_slots(&sc);
	find_plt(&sc);
	if (!sc.targets.n && !sc.slots.n)
		return 0;
	sc.loads = calloc(n ? n : 1, sizeof(*sc.loads));
	buf = malloc(CHUNK + BACK + 8);
	if (!sc.loads || !buf) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(sc.elf, (int)i, &sc.loads[sc.n_loads]) && sc.loads[sc.n_loads].p_type == PT_LOAD)
			sc.n_loads++;
	for (size_t i = 0; i < sc.n_loads && !err; i++)
		if (sc.loads[i].p_flags & PF_X)
			err = scan_segment(&sc, &sc.loads[i], buf);
out:
	free(buf);
	free(sc.loads);
	return err < 0 ? err : sc.found;
}
