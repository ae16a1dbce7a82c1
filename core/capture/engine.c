// SPDX-License-Identifier: MIT
/*
 * The session's one capture engine: link a plugin's BPF hook into it where
 * one has one (libbpf's BPF linker: the hook's strong ct_hook() replaces
 * the engine's weak one), open it through its skeleton, fill the spec array
 * from every plugin's table, keep the program pair of the mode, share the
 * watcher's pid map, size the ring, load.
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
 * Aggregate mode's table: a per-CPU hash whose pairs are allocated as they
 * are first used (BPF_F_NO_PREALLOC), each one a struct ct_agg (4.8 KB, the
 * histogram's) on every possible CPU. Its size is bounded by memory, not by
 * a count alone: at most CT_AGG_MEMORY in all, at most CT_AGG_MAX_ENTRIES
 * pairs (2 CPUs: 4096 pairs, 39 MB at worst; 128 CPUs: 436 pairs, 256 MB).
 * Calls of pairs beyond it are counted (CT_STAT_AGG_FULL) and reported.
 */
#define CT_AGG_MEMORY (256ull << 20)
#define CT_AGG_MIN_ENTRIES 64

static uint32_t agg_entries(void)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t n = CT_AGG_MEMORY / (sizeof(struct ct_agg) * (uint64_t)(ncpu > 0 ? ncpu : 1));

	if (n > CT_AGG_MAX_ENTRIES)
		n = CT_AGG_MAX_ENTRIES;
	return n < CT_AGG_MIN_ENTRIES ? CT_AGG_MIN_ENTRIES : (uint32_t)n;
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

static void spec_of(const struct ct_api *a, bool entry_only, bool hook, struct ct_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->flags = (entry_only ? CT_SPEC_ENTRY_ONLY : 0) | (hook ? CT_SPEC_HOOK : 0) |
		   (a->result == CT_RES_ERROR ? CT_SPEC_RET_IS_ERROR : 0);
	/* Bytes as the summary counts them: of copies, sets and allocations. */
	s->bytes_slot = s->height_slot = CT_NO_SLOT;
	if (a->flags & (CT_API_COPY | CT_API_SET | CT_API_ALLOC)) {
		s->bytes_slot = role_slot(a, CT_ROLE_BYTES);
		s->height_slot = role_slot(a, CT_ROLE_HEIGHT);
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
}

static int fill_specs(struct capture_bpf *skel, const struct ct_engine_plugin *pl, int n, bool stacks)
{
	for (int i = 0; i < n; i++) {
		const struct ct_plugin *p = pl[i].p;

		if (p->n_apis > CT_MAX_PLUGIN_APIS) {
			ct_err("plugin %s: %zu APIs, more than the %u one plugin may have", p->name,
			       p->n_apis, CT_MAX_PLUGIN_APIS);
			return -E2BIG;
		}
		for (size_t k = 0; k < p->n_apis; k++) {
			struct ct_spec *s = &skel->bss->ct_specs[CT_CALL_ID(i, k)];

			spec_of(&p->apis[k], pl[i].entry_only[k], pl[i].hook != NULL, s);
			if (stacks)
				s->flags |= CT_SPEC_STACK;
		}
	}
	return 0;
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

static int load(struct ct_engine *e, const struct ct_engine_plugin *pl, int n,
		const struct ct_engine_opts *o, bool multi)
{
	struct capture_bpf *skel = open_skeleton(e);
	struct bpf_program *progs[2][2][2] = { 0 }; /* [aggregate][multi][exit] */
	uint64_t ring = ct_ring_size(o->ringbuf_size);
	int err;

	if (!skel)
		return -errno;
	e->skel = skel;
	skel->rodata->ct_filter_pids = o->filter_pids;
	skel->rodata->ct_track_parents = n > 1;
	skel->rodata->ct_wakeup_bytes = per_cpu_wakeup(o->wakeup_bytes, ring);
	err = fill_specs(skel, pl, n, o->stacks && !o->aggregate);
	if (err)
		return err;
	/* The events mode's ring is its only channel; aggregate mode sends nothing. */
	if ((err = bpf_map__set_max_entries(skel->maps.events, o->aggregate ? 4096 : ring)))
		return err;
	e->agg_entries = o->aggregate ? agg_entries() : 1;
	if ((err = bpf_map__set_max_entries(skel->maps.agg, e->agg_entries)))
		return err;
	if (o->pids_fd >= 0 && (err = bpf_map__reuse_fd(skel->maps.pids, o->pids_fd)))
		return err;
	progs[0][1][0] = skel->progs.ct_entry_multi;
	progs[0][1][1] = skel->progs.ct_exit_multi;
	progs[0][0][0] = skel->progs.ct_entry_single;
	progs[0][0][1] = skel->progs.ct_exit_single;
	progs[1][1][0] = skel->progs.ct_agg_entry_multi;
	progs[1][1][1] = skel->progs.ct_agg_exit_multi;
	progs[1][0][0] = skel->progs.ct_agg_entry_single;
	progs[1][0][1] = skel->progs.ct_agg_exit_single;
	for (unsigned a = 0; a < 2; a++)
		for (unsigned m = 0; m < 2; m++)
			for (int x = 0; x < 2; x++)
				bpf_program__set_autoload(progs[a][m][x], a == o->aggregate && m == multi);
	err = capture_bpf__load(skel);
	if (err)
		return err;
	e->multi = multi;
	e->aggregate = o->aggregate;
	e->entry = progs[o->aggregate][multi][0];
	e->exit = progs[o->aggregate][multi][1];
	return 0;
}

int ct_engine_open(struct ct_engine *e, const struct ct_engine_plugin *pl, int n,
		   const struct ct_engine_opts *o)
{
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
	err = load(e, pl, n, o, o->mode != CT_ATTACH_SINGLE);
	if (err && err != -E2BIG && o->mode == CT_ATTACH_AUTO) {
		capture_bpf__destroy(e->skel);
		e->skel = NULL;
		ct_warn("this kernel cannot load uprobe_multi programs (%s); "
			"falling back to one link per symbol (slower to attach)", strerror(-err));
		err = load(e, pl, n, o, false);
	}
	if (err) {
		ct_err("loading the capture engine's BPF programs failed: %s%s", strerror(-err),
		       err == -EPERM ? " (needs root, or CAP_BPF and CAP_PERFMON)" : " (run with -v to see the verifier's log)");
		return err;
	}
	if (e->linked)
		ct_info("plugin %s: its BPF hook runs in the capture engine", pl[hook_of].p->name);
	return 0;
}

int ct_engine_ring_fd(const struct ct_engine *e)
{
	return bpf_map__fd(e->skel->maps.events);
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
static void agg_merge(struct ct_agg *sum, const struct ct_agg *v)
{
	if (!v->calls)
		return;
	if (!sum->calls || v->min_ns < sum->min_ns)
		sum->min_ns = v->min_ns;
	if (v->max_ns > sum->max_ns)
		sum->max_ns = v->max_ns;
	if (!sum->comm[0])
		memcpy(sum->comm, v->comm, sizeof(sum->comm));
	sum->calls += v->calls;
	sum->errors += v->errors;
	sum->total_ns += v->total_ns;
	sum->bytes += v->bytes;
	for (unsigned b = 0; b < CT_AGG_BUCKETS; b++)
		sum->hist[b] += v->hist[b];
}

int ct_engine_totals(const struct ct_engine *e, ct_engine_totals_fn fn, void *ctx)
{
	int fd = bpf_map__fd(e->skel->maps.agg), ncpu = libbpf_num_possible_cpus(), err = 0;
	struct ct_agg_key k, *prev = NULL;
	struct ct_agg *vals, sum;

	if (ncpu <= 0)
		return -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	while (!err && !bpf_map_get_next_key(fd, prev, &k)) {
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, vals))
			continue;
		memset(&sum, 0, sizeof(sum));
		for (int c = 0; c < ncpu; c++)
			agg_merge(&sum, &vals[c]);
		if (sum.calls)
			err = fn(ctx, &k, &sum);
	}
	free(vals);
	return err;
}

void ct_engine_close(struct ct_engine *e)
{
	capture_bpf__destroy(e->skel);
	free(e->linked);
	memset(e, 0, sizeof(*e));
}
