// SPDX-License-Identifier: MIT
/*
 * Python frames, the core's side (python.h). Where the interpreter is: the
 * executable (Debian's and Ubuntu's python3.X link libpython in) or
 * libpython3.X.so (venvs of a shared build, embedders), whichever of the
 * files the process maps by those names defines _PyRuntime. Its version:
 * Py_Version (3.11+), else the file's name (3.10). Its layout: the table
 * (pyoffsets.c) or, 3.13+, the interpreter's own _Py_DebugOffsets; checked
 * against the interpreter: PyCode_Type's tp_basicsize is where a code
 * object's instructions start (co_code), and once its interpreter runs,
 * the main interpreter's first thread state must point back at it.
 *
 * Reading the target: files through the ELF reader's safe opens (regular,
 * bounded, in the process's root); memory with process_vm_readv, bounded,
 * never ptrace: a process that is gone or unmapped a page fails a read.
 *
 * Lines are the core's: the engine sends (code object, instruction offset);
 * the code object's line table is read here, once per code object, while
 * the process is alive (a code object freed before that has its name, from
 * the engine, and says why it has no line).
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "util/procfs.h"
#include "capture/target.h"
#include "symbols/elf.h"
#include "symbols/pyoffsets.h"
#include "symbols/python.h"
#include "util/log.h"
#include "util/pidmap.h"
#include "util/u64map.h"

#define LINETABLE_MAX (256u << 10) /* bytes of one code object's line table read at most */
#define MAPS_MAX (8u << 20)        /* bytes of /proc/PID/maps read at most */

enum py_state { PY_NONE, PY_WALKED, PY_REFUSED };

struct py_proc {
	enum py_state state;
	bool checked;            /* the walk of its threads agreed with the layout */
	int major, minor;
	uint64_t bytes_type;     /* &PyBytes_Type: a line table must be one */
	struct ct_py_proc bp;    /* what the engine has */
};

/* A code object's line table as first read (key: its address). */
struct py_lines {
	uint64_t name_ptr;       /* the co_name it had: another code object at the address has another */
	int firstlineno;
	size_t n;
	const char *why;         /* NULL: table read */
	uint8_t table[];
};

static int fd_procs = -1, fd_stacks = -1, fd_codes = -1;
static struct ct_u64map procs;   /* pid -> struct py_proc * */
static struct ct_pidmap stacks;  /* (pid, pystack) -> struct ct_py_frames * */
static struct ct_pidmap lines;   /* (pid, code address) -> struct py_lines * */
static struct ct_u64map said;    /* messages given once: key -> (void *)1 */

void ct_py_init(int procs, int stacks_fd, int codes)
{
	fd_procs = procs;
	fd_stacks = stacks_fd;
	fd_codes = codes;
}

/* Once per key (a version, a reason): whether to say it now. */
static bool first_time(uint64_t key)
{
	if (ct_u64map_get(&said, key))
		return false;
	ct_u64map_put(&said, key, (void *)1);
	return true;
}

static int read_mem(uint32_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec l = { buf, n }, r = { (void *)(uintptr_t)addr, n };
	ssize_t got;

	if (!addr)
		return -EFAULT;
	got = process_vm_readv((pid_t)pid, &l, 1, &r, 1, 0);
	if (got < 0)
		return -errno;
	return (size_t)got == n ? 0 : -EFAULT;
}

static uint64_t read_word(uint32_t pid, uint64_t addr)
{
	uint64_t v = 0;

	return read_mem(pid, addr, &v, sizeof(v)) ? 0 : v;
}

/* Does the basename name an interpreter: python3.X[...] or libpython3.X[...].so[...]? Its minor, or -1. */
static int name_minor(const char *path)
{
	const char *b = strrchr(path, '/');
	int minor = -1;
	char c;

	b = b ? b + 1 : path;
	if (!strncmp(b, "lib", 3))
		b += 3;
	if (sscanf(b, "python3.%d%c", &minor, &c) >= 1 && minor >= 0 && minor < 100)
		return minor;
	return -1;
}

/* /proc/PID/maps, NUL-terminated (at most MAPS_MAX bytes), or NULL. */
static char *read_maps(uint32_t pid)
{
	return ct_proc_read(pid, "maps", MAPS_MAX, NULL);
}

/*
 * Walk the maps: the start of the mapping of `display` at file offset 0
 * (display NULL: whether any mapped file is named as an interpreter).
 */
static int scan_maps(uint32_t pid, const char *display, uint64_t *start)
{
	char *buf = read_maps(pid), *line, *save = NULL;
	int found = -ENOENT;

	if (!buf)
		return -ESRCH;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long lo, hi, off;
		int name_at = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi, &off, &name_at) < 3 || !name_at ||
		    line[name_at] != '/')
			continue;
		if (!display ? name_minor(line + name_at) >= 0 : off == 0 && !strcmp(line + name_at, display)) {
			if (start)
				*start = lo;
			found = 0;
			break;
		}
	}
	free(buf);
	return found;
}

struct found {
	uint32_t pid;
	struct py_proc *pp;
	int minor_by_name;
	uint64_t vaddr[5];  /* _PyRuntime, PyCode_Type, PyBytes_Type, Py_Version, _PyRuntime's size */
	uint64_t bias;
	char display[512];
	/* Read from the file, not the process: at its exec, or as ld.so maps a
	 * libpython, its data may not be in place yet, and these are constants. */
	uint32_t hexversion;     /* Py_Version; 0: none (3.10) */
	uint64_t code_basicsize; /* PyCode_Type.tp_basicsize */
	unsigned char dbg[CT_PY_DEBUG_SIZE]; /* the start of _PyRuntime (3.13+: _Py_DebugOffsets) */
	int result;         /* 1 found; 0 none; <0 a file that named itself Python but could not be used */
};

static const char *const syms[] = { "_PyRuntime", "PyCode_Type", "PyBytes_Type", "Py_Version" };

static bool needs_libpython(struct ct_elf *e)
{
	struct ct_elf_dyn d;
	bool yes = false;

	if (ct_elf_dynamic(e, &d))
		return false;
	for (size_t i = 0; i < d.n_needed; i++)
		yes |= !strncmp(d.needed[i], "libpython", 9);
	ct_elf_dyn_free(&d);
	return yes;
}

static int look_at_file(const char *open_path, const char *display, void *ctx)
{
	struct found *f = ctx;
	struct ct_elf *e;
	uint64_t load_vaddr, load_off, start = 0;
	int minor = name_minor(display), err;

	if (minor < 0)
		return 0;
	err = ct_elf_open_path(open_path, &e);
	if (err)
		return 0;
	ct_elf_find_data(e, syms, 4, f->vaddr);
	err = ct_elf_first_load(e, &load_vaddr, &load_off);
	f->hexversion = 0;
	if (f->vaddr[3])
		ct_elf_read_vaddr(e, f->vaddr[3], &f->hexversion, sizeof(f->hexversion));
	f->code_basicsize = 0;
	if (f->vaddr[1])
		ct_elf_read_vaddr(e, f->vaddr[1] + 32, &f->code_basicsize, sizeof(f->code_basicsize));
	memset(f->dbg, 0, sizeof(f->dbg));
	if (f->vaddr[0])
		ct_elf_read_vaddr(e, f->vaddr[0], f->dbg, sizeof(f->dbg));
	if ((!f->vaddr[0] || !f->vaddr[1]) && needs_libpython(e)) {
		/* A shared build's python3.X: the interpreter is its libpython,
		 * which ld.so maps after the exec (a later map event). */
		ct_elf_close(e);
		return 0;
	}
	ct_elf_close(e);
	if (!f->vaddr[0] || !f->vaddr[1]) {
		/* A python that keeps no _PyRuntime symbol: say so (once per file). */
		f->result = f->result ? f->result : -ENOENT;
		snprintf(f->display, sizeof(f->display), "%s", display);
		return 0;
	}
	if (err || scan_maps(f->pid, display, &start))
		return 0;
	f->bias = start - (load_vaddr - load_off);
	f->bias &= ~4095ull;
	f->minor_by_name = minor;
	snprintf(f->display, sizeof(f->display), "%s", display);
	f->result = 1;
	return 1; /* the first interpreter found is the process's */
}

/* 3.13: the fields of _Py_DebugOffsets as its headers' row has them
 * (interpreters.head there, main in the row: not compared). */
static bool debug_agrees(const struct ct_py_layout *d, const struct ct_py_layout *row)
{
	struct ct_py_layout a = *d, b = *row;

	a.rt_interp_main = b.rt_interp_main = 0;
	a.is_runtime = b.is_runtime = 0;
	return !memcmp(&a, &b, sizeof(a));
}

/* The layout of the interpreter found, checked as far as it can be before it runs. */
static int layout_of(struct found *f, struct py_proc *pp)
{
	uint32_t hex;
	uint64_t runtime = f->vaddr[0] + f->bias, code_type = f->vaddr[1] + f->bias;
	const struct ct_py_layout *l;
	int err;

	hex = f->hexversion;
	if (hex) {
		pp->major = (int)(hex >> 24);
		pp->minor = (int)(hex >> 16 & 0xff);
	} else {
		pp->major = 3; /* 3.10 keeps no Py_Version: its file's name says */
		pp->minor = f->minor_by_name;
	}
	l = ct_py_layout_of(pp->major, pp->minor);
	err = ct_py_layout_debug(f->dbg, sizeof(f->dbg), &pp->bp.l, &hex);
	if (err == -ENOENT && (pp->major != 3 || pp->minor < 13)) {
		if (!l)
			return -ENOTSUP;
		pp->bp.l = *l;
	} else if (err) {
		return err == -ENOENT ? -ENOTSUP : err;
	} else if (l && !debug_agrees(&pp->bp.l, l)) {
		/* The interpreter's own offsets and its version's headers disagree:
		 * one of them is not what this tracer takes it for. */
		return -EINVAL;
	}
	/* PyCode_Type's tp_basicsize is offsetof(PyCodeObject, co_code_adaptive) (3.11+). */
	if (!ct_py_layout_fits(&pp->bp.l) ||
	    (pp->bp.l.co_code != CT_PY_NONE && f->code_basicsize != pp->bp.l.co_code))
		return -EINVAL;
	pp->bp.runtime = runtime;
	pp->bp.code_type = code_type;
	pp->bytes_type = f->vaddr[2] ? f->vaddr[2] + f->bias : 0;
	return 0;
}

/*
 * Once its interpreter runs: the main interpreter's first thread state
 * points back at it (and 3.11 at the runtime). False when it disagrees;
 * true while there is nothing to look at yet.
 */
static bool threads_agree(uint32_t pid, struct py_proc *pp, bool *looked)
{
	const struct ct_py_layout *l = &pp->bp.l;
	uint64_t interp = read_word(pid, pp->bp.runtime + l->rt_interp_main), ts;

	*looked = false;
	if (!interp)
		return true;
	ts = read_word(pid, interp + l->is_threads_head);
	if (!ts)
		return true;
	*looked = true;
	if (l->is_runtime != CT_PY_NONE && read_word(pid, interp + l->is_runtime) != pp->bp.runtime)
		return false;
	return read_word(pid, ts + l->ts_interp) == interp;
}

static void refuse(uint32_t pid, struct py_proc *pp, const char *what, uint64_t key, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void refuse(uint32_t pid, struct py_proc *pp, const char *what, uint64_t key, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	pp->state = PY_REFUSED;
	if (fd_procs >= 0)
		bpf_map_delete_elem(fd_procs, &pid);
	if (!first_time(key))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ct_warn("pid %u: %s: %s; its calls carry no Python frames (native stacks go on)", pid, what, msg);
}

int ct_py_scan(uint32_t pid)
{
	struct py_proc *pp = ct_u64map_get(&procs, pid);
	struct found f = { .pid = pid };
	int err;

	if (fd_procs < 0)
		return 0;
	if (pp && pp->state != PY_NONE)
		return pp->state == PY_WALKED;
	if (!pp) {
		if (!(pp = calloc(1, sizeof(*pp))))
			return -ENOMEM;
		if (ct_u64map_put(&procs, pid, pp)) {
			free(pp);
			return -ENOMEM;
		}
	}
	f.pp = pp;
	/* Most processes map no file named as an interpreter: a read of their maps says so. */
	if (scan_maps(pid, NULL, NULL))
		return 0;
	err = ct_target_pid_files((pid_t)pid, look_at_file, &f);
	if (err == -ESRCH)
		return err;
	if (f.result == -ENOENT) {
		refuse(pid, pp, f.display, 1ull << 63 | 1, "its symbols lack _PyRuntime or PyCode_Type "
		       "(an interpreter built or stripped without them)");
		return 0;
	}
	if (f.result <= 0)
		return 0; /* no interpreter (yet): looked for again when it maps a file */
	err = layout_of(&f, pp);
	if (err == -ENOTSUP || err == -EINVAL) {
		uint64_t key = 1ull << 62 | (uint64_t)pp->major << 8 | (uint64_t)pp->minor;

		if (err == -ENOTSUP)
			refuse(pid, pp, f.display, key, "Python %d.%d, a version this tracer has no layout for "
			       "(it knows 3.10 to 3.13)", pp->major, pp->minor);
		else
			refuse(pid, pp, f.display, key | 1ull << 61, "Python %d.%d's structures are not laid out "
			       "as this tracer's table has them (PyCode_Type's size, or its _Py_DebugOffsets, "
			       "disagree)", pp->major, pp->minor);
		return 0;
	}
	if (err)
		return 0; /* unreadable now (it is exiting): looked for again */
	{
		bool looked;

		if (!threads_agree(pid, pp, &looked)) {
			refuse(pid, pp, f.display, 1ull << 60 | (uint64_t)pp->minor, "its thread states are not "
			       "where Python %d.%d's layout puts them", pp->major, pp->minor);
			return 0;
		}
		pp->checked = looked;
	}
	if (bpf_map_update_elem(fd_procs, &pid, &pp->bp, BPF_ANY)) {
		err = -errno;
		ct_warn("pid %u: cannot tell the engine of its Python interpreter: %s", pid, strerror(-err));
		return err;
	}
	pp->state = PY_WALKED;
	ct_info("pid %u: Python %d.%d in %s: its calls carry Python frames", pid, pp->major, pp->minor, f.display);
	return 1;
}

/* ---- line tables ------------------------------------------------------ */

static int varint(const uint8_t *t, size_t n, size_t *i)
{
	unsigned v, shift = 0;
	uint8_t b;

	if (*i >= n)
		return 0;
	b = t[(*i)++];
	v = b & 63;
	while (b & 64 && *i < n && shift < 24) {
		b = t[(*i)++];
		shift += 6;
		v |= (unsigned)(b & 63) << shift;
	}
	return (int)v;
}

static int svarint(const uint8_t *t, size_t n, size_t *i)
{
	unsigned v = (unsigned)varint(t, n, i);

	return v & 1 ? -(int)(v >> 1) : (int)(v >> 1);
}

int ct_py_addr2line(int minor, const uint8_t *t, size_t n, int line, int lasti)
{
	int addr = 0;

	if (lasti < 0)
		return -1;
	if (minor <= 10) {
		/* 3.10 (PEP 626): (bytes, line delta) pairs; a delta of -128: no line. */
		for (size_t i = 0; i + 1 < n; i += 2) {
			int end = addr + t[i], d = (int8_t)t[i + 1];

			if (d != -128)
				line += d;
			if (lasti >= addr && lasti < end)
				return d == -128 ? -1 : line;
			addr = end;
		}
		return -1;
	}
	/* 3.11+: the location table, an entry per run of code units. */
	for (size_t i = 0; i < n;) {
		uint8_t first = t[i++];
		int code = first >> 3 & 15, end = addr + ((first & 7) + 1) * 2, here = line;
		bool none = false;

		if (!(first & 128))
			return -1; /* not at an entry's first byte: a table this reader does not know */
		switch (code) {
		case 15:
			none = true;
			break;
		case 14:
			line += svarint(t, n, &i);
			here = line;
			varint(t, n, &i);
			varint(t, n, &i);
			varint(t, n, &i);
			break;
		case 13:
			line += svarint(t, n, &i);
			here = line;
			break;
		case 10: case 11: case 12:
			line += code - 10;
			here = line;
			i += 2;
			break;
		default:
			i += 1;
			break;
		}
		if (lasti >= addr && lasti < end)
			return none ? -1 : here;
		addr = end;
	}
	return -1;
}

/* The code object's line table, read once per (process, code object). */
static const struct py_lines *lines_of(uint32_t pid, const struct py_proc *pp, uint64_t code, uint64_t name_ptr)
{
	const struct ct_py_layout *l = &pp->bp.l;
	struct py_lines *pl = ct_pidmap_get(&lines, pid, code), *fresh;
	uint64_t tab, size = 0, type = 0;
	int32_t first = 0;
	const char *why = NULL;

	if (pl && pl->name_ptr == name_ptr)
		return pl;
	tab = read_word(pid, code + l->co_linetable);
	if (read_mem(pid, code + l->co_firstlineno, &first, sizeof(first)) || !tab)
		why = "its code object was freed before its line could be read";
	else if (read_mem(pid, tab + 8, &type, sizeof(type)) || (pp->bytes_type && type != pp->bytes_type) ||
		 read_mem(pid, tab + l->bytes_size, &size, sizeof(size)) || size > LINETABLE_MAX)
		why = "its line table is not a readable bytes object";
	fresh = calloc(1, sizeof(*fresh) + (why ? 0 : size));
	if (!fresh)
		return NULL;
	fresh->name_ptr = name_ptr;
	fresh->firstlineno = first;
	if (!why && read_mem(pid, tab + l->bytes_data, fresh->table, size))
		why = "its line table could not be read";
	fresh->n = why ? 0 : size;
	fresh->why = why;
	/* (the one it replaces, of a freed code object, is freed) */
	if (ct_pidmap_put(&lines, pid, code, fresh)) {
		free(fresh);
		return NULL;
	}
	return fresh;
}

/* ---- stacks ----------------------------------------------------------- */

/* One frame as found, before the stack is laid out in one allocation. */
struct frame_found {
	char function[CT_PY_NAME], file[CT_PY_FILE];
	int32_t line;
	const char *why;
};

static void frame_of(uint32_t pid, struct py_proc *pp, uint32_t tgid, const struct ct_py_frame *in,
		     struct frame_found *o)
{
	struct ct_py_code_key k = { .tgid = tgid, .code = in->code };
	const struct py_lines *pl;
	struct ct_py_code c;

	memset(o, 0, sizeof(*o));
	if (fd_codes < 0 || bpf_map_lookup_elem(fd_codes, &k, &c)) {
		strcpy(o->function, "?");
		strcpy(o->file, "?");
		o->why = "its code object was not named (the engine's table of code objects was full)";
		return;
	}
	snprintf(o->function, sizeof(o->function), "%.*s", (int)sizeof(c.name), c.name[0] ? c.name : "?");
	snprintf(o->file, sizeof(o->file), "%.*s", (int)sizeof(c.file), c.file[0] ? c.file : "?");
	if (!c.name[0] || !c.file[0])
		o->why = "its name is not a string the engine could copy";
	/* The engine's copy of the line table, or a longer one's prefix; the
	 * rest is read from the process while it lives. */
	o->line = ct_py_addr2line(pp->minor, c.lines, c.lines_len < CT_PY_LINES ? c.lines_len : CT_PY_LINES,
				  (int32_t)c.firstlineno, (int32_t)in->lasti);
	pl = NULL;
	if (o->line <= 0 && c.lines_len > CT_PY_LINES) {
		pl = lines_of(pid, pp, in->code, c.name_ptr);
		if (pl && !pl->why)
			o->line = ct_py_addr2line(pp->minor, pl->table, pl->n, pl->firstlineno, (int32_t)in->lasti);
	}
	if (o->line < 0)
		o->line = 0;
	if (!o->line && !o->why)
		o->why = pl && pl->why ? pl->why : !c.lines_ptr || !c.lines_len ? "its line table could not be read" :
			 "its line table has no line for the instruction";
}

/* The stack in one allocation (the frames, then their strings): freed by free(). */
static struct ct_py_frames *decode(uint32_t pid, struct py_proc *pp, const struct ct_py_stack *st)
{
	struct frame_found *found = calloc(CT_PY_MAX_FRAMES, sizeof(*found));
	struct ct_py_frames *fr = NULL;
	size_t strings = 0, n = 0;
	char *at;

	if (!found)
		return NULL;
	for (uint32_t i = 0; i < st->n && i < CT_PY_MAX_FRAMES; i++) {
		/* A frame pushed but not yet started (3.11+: before its first
		 * instruction) is no call yet; CPython's tracebacks leave it out. */
		if ((int32_t)st->f[i].lasti < 0)
			continue;
		frame_of(pid, pp, st->tgid, &st->f[i], &found[n]);
		strings += strlen(found[n].function) + strlen(found[n].file) + 2;
		n++;
	}
	fr = calloc(1, sizeof(*fr) + n * sizeof(fr->f[0]) + strings);
	if (fr) {
		fr->n = (uint32_t)n;
		fr->truncated = st->flags & CT_PYS_TRUNCATED;
		at = (char *)&fr->f[n];
		for (size_t i = 0; i < n; i++) {
			size_t a = strlen(found[i].function) + 1, b = strlen(found[i].file) + 1;

			fr->f[i] = (struct ct_py_frame_info){ at, at + a, found[i].line, found[i].why };
			memcpy(at, found[i].function, a);
			memcpy(at + a, found[i].file, b);
			at += a + b;
		}
	}
	free(found);
	return fr;
}

const struct ct_py_frames *ct_py_stack_get(uint32_t pid, uint32_t pystack)
{
	struct py_proc *pp = ct_u64map_get(&procs, pid);
	struct ct_py_frames *fr;
	struct ct_py_stack st;
	uint32_t id = pystack - 1;

	if (!pystack || !pp || pp->state != PY_WALKED || fd_stacks < 0)
		return NULL;
	fr = ct_pidmap_get(&stacks, pid, pystack);
	if (fr)
		return fr;
	/* The walk of its threads, if the interpreter was not running at attach. */
	if (!pp->checked) {
		bool looked;

		if (!threads_agree(pid, pp, &looked)) {
			refuse(pid, pp, "its interpreter", 1ull << 60 | (uint64_t)pp->minor, "its thread states "
			       "are not where Python %d.%d's layout puts them", pp->major, pp->minor);
			return NULL;
		}
		pp->checked = looked;
	}
	if (bpf_map_lookup_elem(fd_stacks, &id, &st) || st.tgid != pid || !st.n || st.n > CT_PY_MAX_FRAMES)
		return NULL;
	fr = decode(pid, pp, &st);
	if (fr && ct_pidmap_put(&stacks, pid, pystack, fr)) {
		free(fr);
		return NULL;
	}
	return fr;
}

static void free_proc_caches(uint32_t pid)
{
	ct_pidmap_forget(&stacks, pid);
	ct_pidmap_forget(&lines, pid);
}

void ct_py_forget(uint32_t pid)
{
	struct py_proc *pp = ct_u64map_del(&procs, pid);

	if (pp && pp->state == PY_WALKED && fd_procs >= 0)
		bpf_map_delete_elem(fd_procs, &pid);
	free(pp);
	free_proc_caches(pid);
}

void ct_py_reset(void)
{
	uint64_t pid;
	void *v;

	for (size_t i = 0; ct_u64map_next(&procs, &i, &pid, &v);)
		free(v);
	ct_u64map_free(&procs);
	ct_u64map_free(&said);
	ct_pidmap_reset(&stacks);
	ct_pidmap_reset(&lines);
	fd_procs = fd_stacks = fd_codes = -1;
}
