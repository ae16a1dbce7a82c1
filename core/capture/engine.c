// SPDX-License-Identifier: MIT
/*
 * The session's one capture engine: link a plugin's BPF hook into it where
 * one has one (libbpf's BPF linker: the hook's strong ct_hook() replaces
 * the engine's weak one), open it through its skeleton, fill the spec array
 * from every plugin's table, keep the program pair of the mode, share the
 * watcher's pid map, size the ring, load; then the cgroup filter's slot.
 *
 * Why the linker and not freplace: a linked hook is verified and JITed as
 * part of the engine's programs (a call, no trampoline), it needs no
 * BPF_PROG_TYPE_EXT (which some kernels' LSM policies refuse, as they
 * refuse fentry), and nothing is attached per program.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cudatracer/hook.bpf.h>
#include "capture/bpfutil.h"
#include "capture/ring.h"
#include "capture/stacks.h"
#include "decode/decode.h"
#include "util/log.h"
#include "capture.skel.h"
#include "capture/engine.h"

/*
 * Each CPU wakes the reader once it has sent `wakeup` bytes since its last
 * wake-up (a CPU-local count: see ct_emit). So that all CPUs together never
 * fill the ring before one of them wakes the reader, each gets at most a
 * quarter of the ring shared among them.
 */
static uint64_t per_cpu_wakeup(uint64_t wakeup, uint64_t ring)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t cap = ring / 4 / (ncpu > 0 ? (uint64_t)ncpu : 1);

	if (!wakeup)
		return 0;
	if (cap < 1)
		cap = 1;
	return wakeup < cap ? wakeup : cap;
}

/*
 * Aggregate mode's pool (record.h), preallocated at load: an entry is a
 * struct ct_agg_cpu on every possible CPU and one struct ct_agg_hist (4.8
 * KB), bounded by memory, CT_AGG_POOL_MEMORY, not by a count alone, and at
 * most CT_AGG_MAX_ENTRIES pairs (2 CPUs: 3460 pairs; 16 CPUs: 3039; 128
 * CPUs: 1539). Calls of pairs beyond it are counted (CT_STAT_AGG_FULL) and
 * reported.
 */
#define CT_AGG_POOL_MEMORY (16ull << 20)
#define CT_AGG_MIN_POOL 16

static uint32_t agg_pairs(void)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t pair = sizeof(struct ct_agg_cpu) * (uint64_t)(ncpu > 0 ? ncpu : 1) + sizeof(struct ct_agg_hist);
	uint64_t n = CT_AGG_POOL_MEMORY / pair;

	if (n > CT_AGG_MAX_ENTRIES)
		n = CT_AGG_MAX_ENTRIES;
	return n < CT_AGG_MIN_POOL ? CT_AGG_MIN_POOL : (uint32_t)n;
}

/* The argument slot of the first argument with this role, or CT_NO_SLOT. */
static uint8_t role_slot(const struct ct_api *a, enum ct_role role)
{
	for (size_t k = 0; k < a->n_args; k++) {
		const struct ct_arg *g = &a->args[k];

		if (g->role == role && g->area == CT_AREA_ARGS && g->off % 8 == 0)
			return g->off / 8;
	}
	return CT_NO_SLOT;
}

static void spec_of(const struct ct_api *a, bool entry_only, bool hook, bool layers, bool stack,
		    struct ct_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->flags = (entry_only ? CT_SPEC_ENTRY_ONLY : 0) | (hook ? CT_SPEC_HOOK : 0) |
		   (a->result == CT_RES_ERROR ? CT_SPEC_RET_IS_ERROR : 0) | (stack ? CT_SPEC_STACK : 0);
	/* Launches of several layers (the runtime's, the driver's it makes): one return for both. */
	if (layers && (a->flags & CT_API_LAUNCH) && !entry_only)
		s->flags |= CT_SPEC_LAUNCH;
	/* Bytes as the summary counts them: of copies, sets and allocations. */
	s->bytes_slot = s->height_slot = CT_NO_SLOT;
	if (a->flags & (CT_API_COPY | CT_API_SET | CT_API_ALLOC)) {
		s->bytes_slot = role_slot(a, CT_ROLE_BYTES);
		s->height_slot = role_slot(a, CT_ROLE_HEIGHT);
		/* Two factors at most: a row with a depth counts its bytes in events alone. */
		for (size_t k = 0; k < a->n_args; k++)
			if (a->args[k].role == CT_ROLE_DEPTH)
				s->bytes_slot = CT_NO_SLOT;
	}
	s->str_slot = a->str_slot;
	for (size_t r = 0; r < a->n_reads && r < CT_SPEC_READS; r++) {
		const struct ct_read *rd = &a->reads[r];

		s->reads[r] = (struct ct_spec_read){ rd->slot, rd->phase, rd->words, rd->dst };
		if (rd->phase == CT_AT_ENTRY && rd->words)
			s->flags |= CT_SPEC_READS_ENTRY;
		else if (rd->phase == CT_AT_EXIT && rd->words)
			s->flags |= CT_SPEC_READS_EXIT;
	}
	s->rec_words = ct_record_words(a, &s->stack_words);
	/* Only a launch whose record is whole at entry can wait for its parent's return. */
	if ((s->flags & CT_SPEC_LAUNCH) && !hook && !(s->flags & CT_SPEC_READS_EXIT) && s->str_slot == CT_NO_SLOT)
		s->flags |= CT_SPEC_INNER_LAUNCH;
}

static int fill_specs(struct ct_engine *e, struct capture_bpf *skel, const struct ct_engine_plugin *pl, int n,
		      bool layers, const struct ct_stacks_conf *stacks, bool hang)
{
	uint32_t calls = 0;

	for (int i = 0; i < n; i++)
		calls += pl[i].p->n_apis;
	free(e->agg_call_ids);
	e->agg_call_ids = calloc(calls ? calls : 1, sizeof(*e->agg_call_ids));
	if (!e->agg_call_ids)
		return -ENOMEM;
	e->agg_calls = 0;
	for (int i = 0; i < n; i++) {
		const struct ct_plugin *p = pl[i].p;

		if (p->n_apis > CT_MAX_PLUGIN_APIS) {
			ct_err("plugin %s: %zu APIs, more than the %u one plugin may have", p->name,
			       p->n_apis, CT_MAX_PLUGIN_APIS);
			return -E2BIG;
		}
		for (size_t k = 0; k < p->n_apis; k++) {
			struct ct_spec *s = &skel->bss->ct_specs[CT_CALL_ID(i, k)];

			spec_of(&p->apis[k], pl[i].entry_only[k], pl[i].hook != NULL, layers,
				stacks && ct_stacks_api_wanted(stacks, &p->apis[k]), s);
			/* The calls that wait on others, watched while in flight (hangs.h). */
			if (hang && !(s->flags & CT_SPEC_ENTRY_ONLY) &&
			    (p->apis[k].flags & (CT_API_COLLECTIVE | CT_API_SYNC)))
				s->flags |= CT_SPEC_HANG;
			/* Aggregate mode's place of the call in a process's slot (at most 8 x 1024). */
			s->agg_call = (uint16_t)e->agg_calls;
			e->agg_call_ids[e->agg_calls++] = CT_CALL_ID(i, k);
		}
	}
	return 0;
}

/*
 * Without --stacks, the calls watched for hangs (tracer.hang_timeout) still
 * take their stack at entry, walked by frame pointers (the cheap method: a
 * distinct stack is sent once), and no other call takes one; NULL: no hangs
 * watched.
 */
static const struct ct_stacks_conf *hang_stacks(const struct ct_engine_opts *o, struct ct_stacks_conf *c)
{
	if (!o->hang || o->aggregate || !o->stacks)
		return NULL;
	*c = *o->stacks;
	c->method = CT_STACK_FP;
	c->apis = (struct ct_list){ 0 }; /* not "errors": failing calls take none */
	return c;
}

/* --stacks: the method, what is kept, the table of stacks sent (ustack.bpf.h). */
static int set_stacks(struct capture_bpf *skel, const struct ct_stacks_conf *c)
{
	if (!c)
		return 0;
	skel->rodata->ct_stack_method = c->method == CT_STACK_DWARF ? CT_USTACK_DWARF : CT_USTACK_FP;
	skel->rodata->ct_stack_errors = ct_stacks_errors_wanted(c);
	skel->rodata->ct_stack_depth = (uint32_t)c->depth;
	skel->rodata->ct_slice_bytes = (uint32_t)c->dwarf_bytes;
	return bpf_map__set_max_entries(skel->maps.ustack_sent, (uint32_t)c->map_entries);
}

/* A file of these bytes, for the linker, which reads and writes files. */
static int memfd_of(const char *name, const void *data, size_t sz)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	const char *p = data;

	if (fd < 0)
		return -errno;
	while (sz) {
		ssize_t n = write(fd, p, sz);

		if (n <= 0) {
			close(fd);
			return n < 0 ? -errno : -EIO;
		}
		p += n;
		sz -= (size_t)n;
	}
	return fd;
}

/* The hook's own object, before it is linked: one hook of our version. */
static int check_hook(const struct ct_plugin *p, const void *hook, size_t sz)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "ct_hook");
	struct bpf_object *obj = bpf_object__open_mem(hook, sz, &oo);
	const uint32_t *version;
	struct bpf_program *prog = NULL;
	int err = 0;

	if (!obj) {
		err = -errno;
		ct_err("plugin %s: its BPF hook is not a BPF object libbpf can open: %s", p->name, strerror(-err));
		return err;
	}
	version = ct_bpf_const(obj, "ct_hook_version", sizeof(*version));
	if (!version || *version != CT_HOOK_VERSION) {
		ct_err("plugin %s: its BPF hook was built for %s of <cudatracer/hook.bpf.h>, this tracer "
		       "takes version %d (rebuild it against this tracer's header)", p->name,
		       version ? "another version" : "no version", CT_HOOK_VERSION);
		err = -EINVAL;
	} else {
		/* ct_hook() itself is code in .text (libbpf may list it as a program). */
		while ((prog = bpf_object__next_program(obj, prog)) && !strcmp(bpf_program__section_name(prog), ".text"))
			;
	}
	if (prog) {
		ct_err("plugin %s: its BPF hook has programs of its own; a hook is the one CT_HOOK() "
		       "function, run by the engine's programs", p->name);
		err = -EINVAL;
	}
	bpf_object__close(obj);
	return err;
}

/* The engine with the hook linked in, into e->linked. */
static int link_hook(struct ct_engine *e, const struct ct_plugin *p, const void *hook, size_t hook_sz)
{
	size_t engine_sz;
	const void *engine = capture_bpf__elf_bytes(&engine_sz);
	int fds[3] = { -1, -1, -1 }, err;
	char path[3][32];
	struct bpf_linker *l = NULL;
	struct stat st;

	err = check_hook(p, hook, hook_sz);
	if (err)
		return err;
	fds[0] = memfd_of("ct_engine", engine, engine_sz);
	fds[1] = memfd_of("ct_hook", hook, hook_sz);
	fds[2] = memfd_of("ct_linked", "", 0);
	for (int i = 0; i < 3; i++) {
		if (fds[i] < 0) {
			err = fds[i];
			goto cleanup;
		}
		snprintf(path[i], sizeof(path[i]), "/proc/self/fd/%d", fds[i]);
	}
	l = bpf_linker__new(path[2], NULL);
	if (!l || (err = bpf_linker__add_file(l, path[0], NULL)) || (err = bpf_linker__add_file(l, path[1], NULL)) ||
	    (err = bpf_linker__finalize(l))) {
		err = l ? err : -errno;
		ct_err("plugin %s: linking its BPF hook into the capture engine failed: %s (run with -v "
		       "to see libbpf's reason)", p->name, strerror(-err));
		goto cleanup;
	}
	if (fstat(fds[2], &st) || !(e->linked = malloc(st.st_size))) {
		err = -ENOMEM;
		goto cleanup;
	}
	e->linked_sz = st.st_size;
	if (pread(fds[2], e->linked, e->linked_sz, 0) != (ssize_t)e->linked_sz)
		err = -EIO;
cleanup:
	bpf_linker__free(l);
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return err;
}

/* The skeleton over the engine's own object, or the one with the hook linked in. */
static struct capture_bpf *open_skeleton(const struct ct_engine *e)
{
	struct capture_bpf *skel = calloc(1, sizeof(*skel));
	int err;

	if (!skel)
		return NULL;
	err = capture_bpf__create_skeleton(skel);
	if (!err && e->linked) {
		skel->skeleton->data = e->linked;
		skel->skeleton->data_sz = e->linked_sz;
	}
	if (!err)
		err = bpf_object__open_skeleton(skel->skeleton, NULL);
	if (err) {
		capture_bpf__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

/* Loads a signal interrupted, loaded again (each is held back during the
 * load itself: only a signal the mask cannot hold gets here). */
#define CT_LOAD_RETRIES 5

/* The kernel's attach type of uprobe session programs (its uapi, 6.10+); libbpf 1.4 has no name for it. */
#define CT_TRACE_UPROBE_SESSION 57

static const char *const link_names[] = {
	[CT_LINK_SESSION] = "uprobe session", [CT_LINK_MULTI] = "uprobe_multi",
	[CT_LINK_SINGLE] = "one link per symbol",
};

const char *ct_engine_links_name(const struct ct_engine *e)
{
	return link_names[e->links];
}

/* The programs of each set for each link kind: [set][kind][0 entry or session, 1 return]. */
enum { SET_EVENTS, SET_AGGREGATE, SET_EMPTY, SETS };
#define KINDS 3

static void programs_of(struct capture_bpf *skel, struct bpf_program *p[SETS][KINDS][2])
{
	memset(p, 0, sizeof(struct bpf_program *) * SETS * KINDS * 2);
	p[SET_EVENTS][CT_LINK_SESSION][0] = skel->progs.ct_session_multi;
	p[SET_EVENTS][CT_LINK_MULTI][0] = skel->progs.ct_entry_multi;
	p[SET_EVENTS][CT_LINK_MULTI][1] = skel->progs.ct_exit_multi;
	p[SET_EVENTS][CT_LINK_SINGLE][0] = skel->progs.ct_entry_single;
	p[SET_EVENTS][CT_LINK_SINGLE][1] = skel->progs.ct_exit_single;
	p[SET_AGGREGATE][CT_LINK_SESSION][0] = skel->progs.ct_agg_session_multi;
	p[SET_AGGREGATE][CT_LINK_MULTI][0] = skel->progs.ct_agg_entry_multi;
	p[SET_AGGREGATE][CT_LINK_MULTI][1] = skel->progs.ct_agg_exit_multi;
	p[SET_AGGREGATE][CT_LINK_SINGLE][0] = skel->progs.ct_agg_entry_single;
	p[SET_AGGREGATE][CT_LINK_SINGLE][1] = skel->progs.ct_agg_exit_single;
	p[SET_EMPTY][CT_LINK_SESSION][0] = skel->progs.ct_empty_session_multi;
	p[SET_EMPTY][CT_LINK_MULTI][0] = skel->progs.ct_empty_entry_multi;
	p[SET_EMPTY][CT_LINK_MULTI][1] = skel->progs.ct_empty_exit_multi;
	p[SET_EMPTY][CT_LINK_SINGLE][0] = skel->progs.ct_empty_entry_single;
	p[SET_EMPTY][CT_LINK_SINGLE][1] = skel->progs.ct_empty_exit_single;
}

/*
 * The benchmark floor (bench/): CUDATRACER_BENCH_PROGRAMS=empty loads
 * do-nothing programs in place of the engine's, attached to the same
 * probes in the same way, so that each mode is measured against its own
 * floor (its profile's probes, its entry-only APIs, the same watcher).
 */
static bool bench_empty(void)
{
	const char *v = getenv("CUDATRACER_BENCH_PROGRAMS");

	return v && !strcmp(v, "empty");
}

static int load(struct ct_engine *e, const struct ct_engine_plugin *pl, int n,
		const struct ct_engine_opts *o, enum ct_link_kind kind)
{
	struct capture_bpf *skel = open_skeleton(e);
	struct bpf_program *progs[SETS][KINDS][2];
	uint64_t ring = ct_ring_size(o->ringbuf_size);
	unsigned set = bench_empty() ? SET_EMPTY : o->aggregate ? SET_AGGREGATE : SET_EVENTS;
	const struct ct_stacks_conf *stacks = o->stacks && o->stacks->enabled && !o->aggregate ? o->stacks : NULL;
	struct ct_stacks_conf hang_only;
	int err;

	if (!skel)
		return -errno;
	e->skel = skel;
	skel->rodata->ct_filter_pids = o->filter_pids;
	skel->rodata->ct_filter_cgroup = o->filter_cgroup;
	skel->rodata->ct_track_parents = (o->runtimes ? o->runtimes : n) > 1;
	skel->rodata->ct_wakeup_bytes = per_cpu_wakeup(o->wakeup_bytes, ring);
	skel->rodata->ct_session = kind == CT_LINK_SESSION;
	err = fill_specs(e, skel, pl, n, skel->rodata->ct_track_parents, stacks, o->hang && !o->aggregate);
	if (err)
		return err;
	if ((err = set_stacks(skel, stacks ? stacks : hang_stacks(o, &hang_only))))
		return err;
	/* The events mode's ring is its only channel; aggregate mode sends nothing. */
	if ((err = bpf_map__set_max_entries(skel->maps.events, set != SET_EVENTS ? 4096 : ring)))
		return err;
	/* Aggregate mode's tables; one entry each in events mode (a map has at least one). */
	e->agg_slots = o->aggregate && e->agg_calls ? CT_AGG_SLOTS : 0;
	e->agg_pool = o->aggregate ? agg_pairs() : 1;
	skel->rodata->ct_agg_calls = e->agg_calls;
	skel->rodata->ct_agg_slots = e->agg_slots;
	skel->rodata->ct_agg_pool = e->agg_pool;
	if ((err = bpf_map__set_max_entries(skel->maps.agg_pairs, e->agg_pool)) ||
	    (err = bpf_map__set_max_entries(skel->maps.agg_index, e->agg_slots ? e->agg_slots * e->agg_calls : 1)) ||
	    (err = bpf_map__set_max_entries(skel->maps.agg_pool, e->agg_pool)) ||
	    (err = bpf_map__set_max_entries(skel->maps.agg_hist, e->agg_pool)))
		return err;
	if (o->pids_fd >= 0 && (err = bpf_map__reuse_fd(skel->maps.pids, o->pids_fd)))
		return err;
	programs_of(skel, progs);
	for (unsigned a = 0; a < SETS; a++)
		for (unsigned k = 0; k < KINDS; k++)
			for (int x = 0; x < 2; x++)
				if (progs[a][k][x])
					bpf_program__set_autoload(progs[a][k][x], a == set && k == kind);
	if (kind == CT_LINK_SESSION &&
	    (err = bpf_program__set_expected_attach_type(progs[set][kind][0],
							 (enum bpf_attach_type)CT_TRACE_UPROBE_SESSION)))
		return err;
	err = ct_bpf_load_quiet(skel->skeleton);
	if (err)
		return err;
	if (o->filter_cgroup) {
		uint32_t zero = 0;

		/* The map holds the cgroup itself: the descriptor may be closed after. */
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.cgroup_filter), &zero, &o->cgroup_fd, BPF_ANY))
			return -errno;
	}
	e->links = kind;
	e->multi = kind != CT_LINK_SINGLE;
	e->aggregate = o->aggregate;
	e->empty = set == SET_EMPTY;
	e->entry = progs[set][kind][0];
	e->exit = progs[set][kind][1];
	return 0;
}

int ct_engine_open(struct ct_engine *e, const struct ct_engine_plugin *pl, int n,
		   const struct ct_engine_opts *o)
{
	static const enum ct_link_kind first[] = {
		/* auto: sessions where the kernel has them (6.13+): no return
		 * trap where none is needed (docs/performance.md). */
		[CT_ATTACH_AUTO] = CT_LINK_SESSION, [CT_ATTACH_SESSION] = CT_LINK_SESSION,
		[CT_ATTACH_MULTI] = CT_LINK_MULTI, [CT_ATTACH_SINGLE] = CT_LINK_SINGLE,
	};
	enum ct_link_kind kind = first[o->mode];
	int err, hook_of = -1;

	memset(e, 0, sizeof(*e));
	if (n > CT_MAX_PLUGINS) {
		ct_err("at most %d plugins at once", CT_MAX_PLUGINS);
		return -E2BIG;
	}
	/* Hooks capture for records; aggregate mode makes none. */
	for (int i = 0; i < n && !o->aggregate; i++) {
		if (!pl[i].hook)
			continue;
		if (e->linked) {
			ct_err("plugins %s and %s both bring a BPF hook: one plugin of a session may",
			       pl[hook_of].p->name, pl[i].p->name);
			return -EINVAL;
		}
		if ((err = link_hook(e, pl[i].p, pl[i].hook, pl[i].hook_sz)))
			return err;
		hook_of = i;
	}
	/* auto: a kind the kernel refuses falls back to the next: uprobe_multi
	 * needs 6.6 (a warning: attaching one link per symbol is slower). A
	 * load a signal interrupted says nothing of the kernel: the same kind
	 * is loaded again. */
	for (int interrupted = 0;;) {
		err = load(e, pl, n, o, kind);
		if (ct_bpf_interrupted(err) && ++interrupted <= CT_LOAD_RETRIES) {
			ct_info("loading the capture engine's %s programs was interrupted (%s): loading them again",
				link_names[kind], strerror(-err));
			capture_bpf__destroy(e->skel);
			e->skel = NULL;
			continue;
		}
		if (!err || err == -E2BIG || ct_bpf_interrupted(err) || o->mode != CT_ATTACH_AUTO ||
		    kind == CT_LINK_SINGLE)
			break;
		capture_bpf__destroy(e->skel);
		e->skel = NULL;
		if (kind == CT_LINK_SESSION)
			ct_info("this kernel cannot load uprobe session programs (%s); using entry and return "
				"programs", strerror(-err));
		else
			ct_warn("this kernel cannot load uprobe_multi programs (%s); "
				"falling back to one link per symbol (slower to attach)", strerror(-err));
		kind = kind == CT_LINK_SESSION ? CT_LINK_MULTI : CT_LINK_SINGLE;
	}
	if (err) {
		ct_err("loading the capture engine's BPF programs failed: %s%s", strerror(-err),
		       err == -EPERM ? " (needs root, or CAP_BPF and CAP_PERFMON)" : " (run with -v to see the verifier's log)");
		return err;
	}
	if (e->linked)
		ct_info("plugin %s: its BPF hook runs in the capture engine", pl[hook_of].p->name);
	if (e->empty)
		ct_warn("CUDATRACER_BENCH_PROGRAMS=empty: the probes run do-nothing programs (a benchmark's "
			"floor); nothing is recorded");
	return 0;
}

/*
 * A pause is the stop's flag set and cleared (capture.bpf.c's ct_stopped,
 * checked at every entry): the probes stay, so that a resume is one store.
 * A stop is final: no resume comes after it.
 */
static void set_stopped(struct ct_engine *e)
{
	if (e->skel)
		__atomic_store_n(&e->skel->bss->ct_stopped, e->stopped || e->paused, __ATOMIC_RELEASE);
}

void ct_engine_stop(struct ct_engine *e)
{
	e->stopped = true;
	set_stopped(e);
}

void ct_engine_pause(struct ct_engine *e, bool paused)
{
	e->paused = paused;
	set_stopped(e);
}

int ct_engine_ring_fd(const struct ct_engine *e)
{
	return bpf_map__fd(e->skel->maps.events);
}

int ct_engine_wake(const struct ct_engine *e, uint64_t *bytes)
{
	*bytes = e->skel->rodata->ct_wakeup_bytes;
	return bpf_map__fd(e->skel->maps.wake);
}

void ct_engine_py_fds(const struct ct_engine *e, int *procs, int *stacks, int *codes)
{
	*procs = bpf_map__fd(e->skel->maps.py_procs);
	*stacks = bpf_map__fd(e->skel->maps.py_stacks);
	*codes = bpf_map__fd(e->skel->maps.py_codes);
}

int ct_engine_stats(const struct ct_engine *e, uint64_t *out)
{
	return ct_bpf_percpu_sum(bpf_map__fd(e->skel->maps.stats), CT_STAT_MAX, out);
}

/* One CPU's counts into the sum; a CPU that never ran the pair's calls has zeros. */
static void agg_merge(struct ct_agg_cpu *sum, const struct ct_agg_cpu *v)
{
	if (!v->calls)
		return;
	if (!sum->calls || v->min_ns < sum->min_ns)
		sum->min_ns = v->min_ns;
	if (v->max_ns > sum->max_ns)
		sum->max_ns = v->max_ns;
	sum->calls += v->calls;
	sum->errors += v->errors;
	sum->total_ns += v->total_ns;
	sum->bytes += v->bytes;
}

struct agg_reader {
	const struct ct_engine *e;
	int pool, hist, ncpu;
	struct ct_agg_cpu *vals; /* ncpu of them */
	struct ct_agg sum;
	ct_engine_totals_fn fn;
	void *ctx;
};

/* A pool entry + 1's totals, its per-CPU counts summed, to fn as the pair k's. */
static int agg_emit(struct agg_reader *r, uint64_t entry, const struct ct_agg_key *k)
{
	uint32_t key = (uint32_t)entry - 1;

	if (!entry || entry > r->e->agg_pool || bpf_map_lookup_elem(r->pool, &key, r->vals) ||
	    bpf_map_lookup_elem(r->hist, &key, &r->sum.h))
		return 0;
	memset(&r->sum.t, 0, sizeof(r->sum.t));
	for (int c = 0; c < r->ncpu; c++)
		agg_merge(&r->sum.t, &r->vals[c]);
	return r->sum.t.calls ? r->fn(r->ctx, k, &r->sum) : 0;
}

/* The pairs of processes with a slot: each slot's process (agg_pids), its calls' entries (agg_index). */
static int agg_slot_totals(struct agg_reader *r)
{
	const struct ct_engine *e = r->e;
	int pids = bpf_map__fd(e->skel->maps.agg_pids), err = 0;
	size_t len = (size_t)e->agg_slots * e->agg_calls * sizeof(uint64_t);
	uint32_t tgid, *prev = NULL, slot;
	const uint64_t *ix;

	if (!e->agg_slots)
		return 0;
	ix = mmap(NULL, len, PROT_READ, MAP_SHARED, bpf_map__fd(e->skel->maps.agg_index), 0);
	if (ix == MAP_FAILED)
		return -errno;
	while (!err && !bpf_map_get_next_key(pids, prev, &tgid)) {
		prev = &tgid;
		if (bpf_map_lookup_elem(pids, &tgid, &slot) || slot == 0 || slot > e->agg_slots)
			continue;
		for (uint32_t c = 0; c < e->agg_calls && !err; c++) {
			struct ct_agg_key k = { .tgid = tgid, .call = e->agg_call_ids[c] };

			err = agg_emit(r, ix[(size_t)(slot - 1) * e->agg_calls + c], &k);
		}
	}
	munmap((void *)ix, len);
	return err;
}

int ct_engine_totals(const struct ct_engine *e, ct_engine_totals_fn fn, void *ctx)
{
	int pairs = bpf_map__fd(e->skel->maps.agg_pairs), err;
	struct agg_reader r = { .e = e, .pool = bpf_map__fd(e->skel->maps.agg_pool),
				.hist = bpf_map__fd(e->skel->maps.agg_hist), .ncpu = libbpf_num_possible_cpus(),
				.fn = fn, .ctx = ctx };
	struct ct_agg_key k, *prev = NULL;
	uint32_t entry;

	if (r.ncpu <= 0)
		return -EINVAL;
	r.vals = calloc(r.ncpu, sizeof(*r.vals));
	if (!r.vals)
		return -ENOMEM;
	/* A pair has one entry, found by its slot's index or else by the hash (capture.bpf.c). */
	err = agg_slot_totals(&r);
	while (!err && !bpf_map_get_next_key(pairs, prev, &k)) {
		prev = &k;
		if (!bpf_map_lookup_elem(pairs, &k, &entry))
			err = agg_emit(&r, entry, &k);
	}
	free(r.vals);
	return err;
}

void ct_engine_close(struct ct_engine *e)
{
	capture_bpf__destroy(e->skel);
	free(e->linked);
	free(e->agg_call_ids);
	memset(e, 0, sizeof(*e));
}

void ct_engine_spec(const struct ct_api *a, bool entry_only, bool hook, struct ct_spec *s)
{
	spec_of(a, entry_only, hook, false, false, s); /* the launch-pair flags serve session programs only */
}
