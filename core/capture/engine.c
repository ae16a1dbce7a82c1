// SPDX-License-Identifier: MIT
/*
 * The session's one capture engine: open the skeleton, fill the spec array
 * from every plugin's table, keep the program pair of the mode, share the
 * watcher's pid map, size the ring, load; then load each plugin's hook as
 * a replacement of its slot's hook function (freplace) in the programs in
 * use.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cudatracer/hook.bpf.h>
#include "capture/bpfutil.h"
#include "decode/decode.h"
#include "util/log.h"
#include "capture.skel.h"
#include "capture/engine.h"

static uint64_t round_pow2(uint64_t v)
{
	uint64_t p = 4096;

	while (p < v && p < (1ull << 31))
		p <<= 1;
	return p;
}

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

static int fill_specs(struct capture_bpf *skel, const struct ct_engine_plugin *pl, int n)
{
	for (int i = 0; i < n; i++) {
		const struct ct_plugin *p = pl[i].p;

		if (p->n_apis > CT_MAX_PLUGIN_APIS) {
			ct_err("plugin %s: %zu APIs, more than the %u one plugin may have", p->name,
			       p->n_apis, CT_MAX_PLUGIN_APIS);
			return -E2BIG;
		}
		for (size_t k = 0; k < p->n_apis; k++)
			spec_of(&p->apis[k], pl[i].entry_only[k], pl[i].hook != NULL,
				&skel->bss->ct_specs[CT_CALL_ID(i, k)]);
	}
	return 0;
}

static int load(struct ct_engine *e, const struct ct_engine_plugin *pl, int n,
		const struct ct_engine_opts *o, bool multi)
{
	struct capture_bpf *skel = capture_bpf__open();
	struct bpf_program *progs[2][2][2] = { 0 }; /* [aggregate][multi][exit] */
	uint64_t ring = round_pow2(o->ringbuf_size);
	int err;

	if (!skel)
		return -errno;
	e->skel = skel;
	skel->rodata->ct_filter_pids = o->filter_pids;
	skel->rodata->ct_track_parents = n > 1;
	skel->rodata->ct_wakeup_bytes = per_cpu_wakeup(o->wakeup_bytes, ring);
	err = fill_specs(skel, pl, n);
	if (err)
		return err;
	/* The events mode's ring is its only channel; aggregate mode sends nothing. */
	if ((err = bpf_map__set_max_entries(skel->maps.events, o->aggregate ? 4096 : ring)))
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

/*
 * A plugin's hook: its one freplace program, loaded against the slot's
 * function of the entry program, then linked into the exit program too.
 */
static int load_hook(struct ct_engine *e, int slot, const struct ct_plugin *p, const void *obj, size_t sz)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "ct_hook");
	struct bpf_program *prog, *targets[2] = { e->entry, e->exit };
	const uint32_t *version;
	char fn[16];
	int err;

	snprintf(fn, sizeof(fn), "ct_hook_%d", slot);
	e->hooks[slot] = bpf_object__open_mem(obj, sz, &oo);
	if (!e->hooks[slot]) {
		err = -errno;
		ct_err("plugin %s: cannot open its BPF hook: %s", p->name, strerror(-err));
		return err;
	}
	version = ct_bpf_const(e->hooks[slot], "ct_hook_version", sizeof(*version));
	prog = bpf_object__next_program(e->hooks[slot], NULL);
	if (!version || *version != CT_HOOK_VERSION || !prog || bpf_object__next_program(e->hooks[slot], prog)) {
		ct_err("plugin %s: its BPF hook is not one CT_HOOK() function of <cudatracer/hook.bpf.h> "
		       "version %d (it has %s)", p->name, CT_HOOK_VERSION,
		       !version ? "no version stamp" : *version != CT_HOOK_VERSION ? "another version" :
		       !prog ? "no program" : "several programs");
		return -EINVAL;
	}
	err = bpf_program__set_attach_target(prog, bpf_program__fd(e->entry), fn);
	if (!err)
		err = bpf_object__load(e->hooks[slot]);
	if (err) {
		ct_err("plugin %s: loading its BPF hook failed: %s (run with -v to see the verifier's log)",
		       p->name, strerror(-err));
		return err;
	}
	for (int i = 0; i < 2; i++) {
		struct bpf_link *l = bpf_program__attach_freplace(prog, bpf_program__fd(targets[i]), fn);

		if (!l) {
			err = -errno;
			ct_err("plugin %s: attaching its BPF hook failed: %s", p->name, strerror(-err));
			return err;
		}
		e->hook_links[e->n_hook_links++] = l;
	}
	ct_info("plugin %s: its BPF hook runs in the engine's %s", p->name, fn);
	return 0;
}

int ct_engine_open(struct ct_engine *e, const struct ct_engine_plugin *pl, int n,
		   const struct ct_engine_opts *o)
{
	int err;

	memset(e, 0, sizeof(*e));
	if (n > CT_MAX_PLUGINS) {
		ct_err("at most %d plugins at once", CT_MAX_PLUGINS);
		return -E2BIG;
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
	/* Hooks capture for records; aggregate mode makes none. */
	for (int i = 0; i < n && !o->aggregate; i++)
		if (pl[i].hook && (err = load_hook(e, i, pl[i].p, pl[i].hook, pl[i].hook_sz)))
			return err;
	return 0;
}

int ct_engine_ring_fd(const struct ct_engine *e)
{
	return bpf_map__fd(e->skel->maps.events);
}

int ct_engine_stats(const struct ct_engine *e, uint64_t *out)
{
	int fd = bpf_map__fd(e->skel->maps.stats), ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;

	if (ncpu <= 0)
		return -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t k = 0; k < CT_STAT_MAX; k++) {
		out[k] = 0;
		if (bpf_map_lookup_elem(fd, &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[k] += vals[c];
	}
	free(vals);
	return 0;
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
	for (int i = e->n_hook_links - 1; i >= 0; i--)
		bpf_link__destroy(e->hook_links[i]);
	for (int i = CT_MAX_PLUGINS - 1; i >= 0; i--)
		bpf_object__close(e->hooks[i]);
	capture_bpf__destroy(e->skel);
	memset(e, 0, sizeof(*e));
}
