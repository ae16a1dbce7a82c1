// SPDX-License-Identifier: MIT
/*
 * Unwinding a copied stack with libdw (see unwind.h). libdw's frame
 * unwinder works on a Dwfl "process" whose threads, registers and memory
 * come from our callbacks: the memory is the slice, the registers those
 * the engine saved. Modules are the files the symbolizer found in
 * /proc/PID/maps; their ELF files come from find_elf below, our opener:
 * libdw opens nothing itself.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/symbolizer.h"
#include "symbols/unwind.h"
#include "util/log.h"
#include "util/u64map.h"

/* One unwind in progress: what the callbacks read. */
struct uw_walk {
	const struct ct_ustack_slice *s;
	uint64_t *pcs;
	uint32_t n, max;
	bool skip_first;   /* taken at entry: frame 0 is the traced function */
	bool past_copy;    /* a read went past the copied bytes */
	bool full;
};

struct uw_proc {
	Dwfl *dwfl;
	uint32_t pid;
	struct uw_walk *walk;
};

static struct ct_u64map procs; /* pid -> struct uw_proc * */
/* The process whose files libdw may ask for now (find_elf has no argument
 * of ours); single-threaded, as the symbolizer. */
static uint32_t cur_pid;

static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	Dwarf_Addr low = 0;
	int fd;

	(void)userdata;
	(void)base;
	(void)file_name;
	*elfp = NULL;
	if (!cur_pid || !name || name[0] != '/')
		return -1; /* the vDSO, anonymous memory: no file of ours */
	dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
	fd = ct_sym_open_mapped(cur_pid, low);
	return fd < 0 ? -1 : fd; /* libdw owns it */
}

/* No separate debug file: .eh_frame of the mapped file is what we unwind with. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = find_elf,
	.find_debuginfo = no_debuginfo,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct uw_proc *p = arg;

	(void)dwfl;
	if (*thread_argp || !p->walk)
		return 0;
	*thread_argp = p;
	return (pid_t)p->walk->s->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

/* The slice is all the memory there is. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uw_proc *p = arg;
	const struct ct_ustack_slice *s = p->walk->s;

	(void)dwfl;
	if (addr < s->sp || addr - s->sp > s->len || s->len - (addr - s->sp) < sizeof(*result)) {
		if (addr >= s->sp)
			p->walk->past_copy = true;
		return false;
	}
	memcpy(result, s->data + (addr - s->sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uw_proc *p = arg;
	const struct ct_ustack_slice *s = p->walk->s;
	Dwarf_Word regs[CT_USTACK_REGS];

	for (int i = 0; i < CT_USTACK_REGS; i++)
		regs[i] = s->regs[i];
	if (!dwfl_thread_state_registers(thread, 0, CT_USTACK_REGS, regs))
		return false;
	dwfl_thread_state_register_pc(thread, s->regs[CT_USTACK_REGS - 1]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static void proc_free(void *v)
{
	struct uw_proc *p = v;

	if (p->dwfl)
		dwfl_end(p->dwfl);
	free(p);
}

static int report_file(void *ctx, const char *path, uint64_t start, uint64_t end)
{
	/* A file that is not ELF is not a module: libdw says so, and goes on. */
	dwfl_report_module(ctx, path, start, end);
	return 0;
}

/* The process's session: its modules reported, the thread callbacks attached. */
static struct uw_proc *proc_get(uint32_t pid)
{
	struct uw_proc *p = ct_u64map_get(&procs, pid);
	int err;

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->dwfl = dwfl_begin(&dwfl_cbs);
	if (!p->dwfl)
		goto fail;
	dwfl_report_begin(p->dwfl);
	/* The symbolizer's copy of its maps: read when it started, still
	 * there once it has exited (its records are often read after). */
	err = ct_sym_each_file(pid, report_file, p->dwfl);
	if (dwfl_report_end(p->dwfl, NULL, NULL) || err) {
		ct_dbg("unwind: pid %u: its modules could not be read: %s", pid,
		       err ? strerror(-err) : dwfl_errmsg(-1));
		goto fail;
	}
	if (!dwfl_attach_state(p->dwfl, NULL, (pid_t)pid, &thread_cbs, p)) {
		ct_dbg("unwind: pid %u: %s", pid, dwfl_errmsg(-1));
		goto fail;
	}
	if (ct_u64map_put(&procs, pid, p))
		goto fail;
	return p;
fail:
	proc_free(p);
	return NULL;
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct uw_walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (w->skip_first) {
		w->skip_first = false;
		return DWARF_CB_OK;
	}
	if (w->n >= w->max) {
		w->full = true;
		return DWARF_CB_ABORT;
	}
	w->pcs[w->n++] = pc;
	return DWARF_CB_OK;
}

int ct_unwind_slice(const struct ct_ustack_slice *s, uint64_t *pcs, uint32_t max, enum ct_frame_kind *end)
{
	struct uw_walk w = { .s = s, .pcs = pcs, .max = max, .skip_first = s->flags & CT_USTACK_AT_ENTRY };
	struct uw_proc *p;
	int r;

	*end = CT_FRAME_UNWOUND;
	cur_pid = s->pid;
	p = proc_get(s->pid);
	if (!p)
		goto out;
	/* A library loaded since the process was read: read its maps again. */
	if (!dwfl_addrmodule(p->dwfl, s->regs[CT_USTACK_REGS - 1])) {
		ct_unwind_forget(s->pid);
		if (!(p = proc_get(s->pid)))
			goto out;
	}
	p->walk = &w;
	r = dwfl_getthread_frames(p->dwfl, (pid_t)s->tid, on_frame, &w);
	p->walk = NULL;
	if (r)
		ct_dbg("unwind: pid %u tid %u: stopped after %u frames: %s", s->pid, s->tid, w.n, dwfl_errmsg(-1));
	/* libdw ends a stack whose next return address it cannot read as it
	 * ends a complete one: past the copy, it is cut short. */
	if (w.full || w.past_copy)
		*end = CT_FRAME_TRUNCATED;
	else if (r == 0)
		*end = CT_FRAME_NATIVE;
out:
	cur_pid = 0;
	return (int)w.n;
}

void ct_unwind_forget(uint32_t pid)
{
	struct uw_proc *p = ct_u64map_del(&procs, pid);

	if (p)
		proc_free(p);
}

void ct_unwind_reset(void)
{
	ct_u64map_free_all(&procs, proc_free);
}
