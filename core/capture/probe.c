// SPDX-License-Identifier: MIT
/*
 * One plugin's capture: open its BPF object, size the maps, share the pid
 * map with the watcher, load, fill the per-API specs from the plugin's
 * table, and attach the generic entry/exit pair to every file that defines
 * the plugin's symbols: one uprobe_multi link per file and direction, with
 * the API index as cookie, or one link per symbol where the kernel lacks
 * uprobe_multi.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "capture/bpfutil.h"
#include "decode/decode.h"
#include "symbols/elf.h"
#include "util/log.h"
#include "capture/probe.h"

/* The capture engine (bpf/capture.bpf.c), embedded by ct_bpf_object(capture). */
extern const char ct_bpf_capture_start[], ct_bpf_capture_end[];

static uint64_t round_pow2(uint64_t v)
{
	uint64_t p = 4096;

	while (p < v && p < (1ull << 31))
		p <<= 1;
	return p;
}

static int fill_specs(struct ct_probe *pr, const struct ct_probe_opts *o)
{
	const struct ct_plugin *p = pr->lp->p;
	int fd = bpf_map__fd(bpf_object__find_map_by_name(pr->obj, "specs"));

	for (uint32_t i = 0; i < p->n_apis; i++) {
		const struct ct_api *a = &p->apis[i];
		struct ct_spec s = { 0 };
		bool entry_only = pr->entry_only[i];

		s.flags = (entry_only ? CT_SPEC_ENTRY_ONLY : 0) | (a->result == CT_RES_ERROR ? CT_SPEC_RET_IS_ERROR : 0);
		s.bytes_slot = s.height_slot = 0xff;
		for (size_t k = 0; k < a->n_args; k++) {
			const struct ct_arg *g = &a->args[k];

			if (g->area != CT_AREA_ARGS || g->off % 8)
				continue;
			if (g->role == CT_ROLE_BYTES)
				s.bytes_slot = g->off / 8;
			else if (g->role == CT_ROLE_HEIGHT)
				s.height_slot = g->off / 8;
		}
		s.enabled = o->enabled[i];
		s.str_slot = a->str_slot;
		for (size_t r = 0; r < a->n_reads && r < CT_SPEC_READS; r++) {
			s.reads[r].slot = a->reads[r].slot;
			s.reads[r].phase = a->reads[r].phase;
			s.reads[r].words = a->reads[r].words;
			s.reads[r].dst = a->reads[r].dst;
			if (a->reads[r].phase == CT_AT_ENTRY && a->reads[r].words)
				s.flags |= CT_SPEC_READS_ENTRY;
			else if (a->reads[r].phase == CT_AT_EXIT && a->reads[r].words)
				s.flags |= CT_SPEC_READS_EXIT;
		}
		s.rec_words = ct_record_words(a, &s.stack_words);
		if (bpf_map_update_elem(fd, &i, &s, BPF_ANY))
			return -errno;
	}
	return 0;
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

static int load(struct ct_probe *pr, const struct ct_probe_opts *o, bool multi)
{
	uint64_t wakeup;
	const struct ct_plugin *p = pr->lp->p;
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = p->name);
	struct bpf_map *m;
	int err;

	pr->obj = bpf_object__open_mem(ct_bpf_capture_start, ct_bpf_capture_end - ct_bpf_capture_start, &oo);
	if (!pr->obj) {
		err = -errno;
		ct_err("plugin %s: cannot open the capture engine's BPF object: %s", p->name, strerror(-err));
		return err;
	}
	m = bpf_object__find_map_by_name(pr->obj, "events");
	if (!m || bpf_map__set_max_entries(m, round_pow2(o->ringbuf_size)))
		goto bad_object;
	m = bpf_object__find_map_by_name(pr->obj, "specs");
	if (!m || bpf_map__set_max_entries(m, p->n_apis))
		goto bad_object;
	m = bpf_object__find_map_by_name(pr->obj, "agg");
	if (!m || bpf_map__set_max_entries(m, p->n_apis))
		goto bad_object;
	m = bpf_object__find_map_by_name(pr->obj, "callstack");
	if (!m || (o->callstack_fd >= 0 && bpf_map__reuse_fd(m, o->callstack_fd)))
		goto bad_object;
	m = bpf_object__find_map_by_name(pr->obj, "pids");
	if (!m || (o->pids_fd >= 0 && bpf_map__reuse_fd(m, o->pids_fd)))
		goto bad_object;
	wakeup = per_cpu_wakeup(o->wakeup_bytes, round_pow2(o->ringbuf_size));
	if (ct_bpf_set_const(pr->obj, "ct_filter_pids", &o->filter_pids, sizeof(bool)) ||
	    ct_bpf_set_const(pr->obj, "ct_wakeup_bytes", &wakeup, sizeof(uint64_t)) ||
	    ct_bpf_set_const(pr->obj, "ct_aggregate", &o->aggregate, sizeof(bool)) ||
	    ct_bpf_set_const(pr->obj, "ct_plugin_id", &o->plugin_id, sizeof(uint32_t)))
		goto bad_object;
	bpf_program__set_autoload(bpf_object__find_program_by_name(pr->obj, "ct_entry_multi"), multi);
	bpf_program__set_autoload(bpf_object__find_program_by_name(pr->obj, "ct_exit_multi"), multi);
	bpf_program__set_autoload(bpf_object__find_program_by_name(pr->obj, "ct_entry_single"), !multi);
	bpf_program__set_autoload(bpf_object__find_program_by_name(pr->obj, "ct_exit_single"), !multi);
	err = bpf_object__load(pr->obj);
	if (err)
		return err;
	pr->multi = multi;
	return fill_specs(pr, o);

bad_object:
	ct_err("plugin %s: the capture engine's BPF object lacks its maps and constants", p->name);
	return -EINVAL;
}

int ct_probe_open(struct ct_probe *pr, struct ct_loaded_plugin *lp, const struct ct_probe_opts *o)
{
	const struct ct_plugin *p = lp->p;
	int err;

	memset(pr, 0, sizeof(*pr));
	pr->lp = lp;
	pr->enabled = o->enabled;
	pr->warned_missing = calloc(p->n_apis, sizeof(bool));
	pr->names = calloc(p->n_apis, sizeof(char *));
	pr->entry_only = calloc(p->n_apis, sizeof(bool));
	if (!pr->warned_missing || !pr->names || !pr->entry_only)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_apis; i++) {
		pr->names[i] = p->apis[i].symbol;
		pr->entry_only[i] = o->entry_only ? o->entry_only[i] : (p->apis[i].flags & CT_API_ENTRY_ONLY);
	}

	err = load(pr, o, o->mode != CT_ATTACH_SINGLE);
	if (err && o->mode == CT_ATTACH_AUTO) {
		bpf_object__close(pr->obj);
		pr->obj = NULL;
		ct_warn("plugin %s: this kernel cannot load uprobe_multi programs (%s); "
			"falling back to one link per symbol (slower to attach)", p->name, strerror(-err));
		err = load(pr, o, false);
	}
	if (err) {
		ct_err("plugin %s: loading its BPF programs failed: %s%s", p->name, strerror(-err),
		       err == -EPERM ? " (needs root, or CAP_BPF and CAP_PERFMON)" : " (run with -v to see the verifier's log)");
		return err;
	}
	return 0;
}

static int push_link(struct ct_probe *pr, struct bpf_link *l)
{
	struct bpf_link **v = realloc(pr->links, (pr->n_links + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	pr->links = v;
	pr->links[pr->n_links++] = l;
	return 0;
}

static int attach_multi(struct ct_probe *pr, const char *path, const uint64_t *offs,
			const uint64_t *cookies, size_t n, bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_multi_opts, mo, .offsets = (const unsigned long *)offs, .cookies = (const __u64 *)cookies, .cnt = n,
		    .retprobe = ret);
	struct bpf_program *prog = bpf_object__find_program_by_name(pr->obj, ret ? "ct_exit_multi" : "ct_entry_multi");
	struct bpf_link *l;

	if (!n)
		return 0;
	l = bpf_program__attach_uprobe_multi(prog, -1, path, NULL, &mo);
	if (!l)
		return -errno;
	return push_link(pr, l);
}

static int attach_single(struct ct_probe *pr, const char *path, uint64_t off, uint64_t cookie, bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = cookie, .retprobe = ret);
	struct bpf_program *prog = bpf_object__find_program_by_name(pr->obj, ret ? "ct_exit_single" : "ct_entry_single");
	struct bpf_link *l = bpf_program__attach_uprobe_opts(prog, -1, path, off, &uo);

	if (!l)
		return -errno;
	return push_link(pr, l);
}

static bool offset_taken(const uint64_t *offs, size_t n, uint64_t off)
{
	for (size_t k = 0; k < n; k++)
		if (offs[k] == off)
			return true;
	return false;
}

/* Missing symbols are said once per API, in one line per file. */
static void missing_note(struct ct_probe *pr, size_t i, char **buf, size_t *len, int *n)
{
	const char *sym = pr->lp->p->apis[i].symbol;
	size_t add = strlen(sym) + 2;
	char *nb;

	if (pr->warned_missing[i])
		return;
	pr->warned_missing[i] = true;
	nb = realloc(*buf, *len + add + 1);
	if (!nb)
		return;
	*buf = nb;
	*len += snprintf(*buf + *len, add + 1, "%s%s", *n ? ", " : "", sym);
	(*n)++;
}

bool ct_probe_file_has_symbols(struct ct_probe *pr, const char *path)
{
	size_t n = pr->lp->p->n_apis;
	uint64_t *offs = calloc(n, sizeof(*offs));
	int found;

	if (!offs)
		return false;
	found = ct_elf_resolve(path, pr->names, n, offs);
	free(offs);
	return found > 0;
}

int ct_probe_attach_file(struct ct_probe *pr, const char *path, const char *display)
{
	const struct ct_plugin *p = pr->lp->p;
	size_t n = p->n_apis, ne = 0, nx = 0;
	uint64_t *offs = NULL, *eo = NULL, *ec = NULL, *xo = NULL, *xc = NULL;
	struct ct_attached_file *f;
	char *mbuf = NULL;
	size_t mlen = 0;
	int found, err = 0, nmissing = 0;
	struct stat st;

	if (stat(path, &st)) {
		err = -errno;
		ct_err("cannot probe %s: %s", display, strerror(errno));
		return err;
	}
	for (int i = 0; i < pr->n_files; i++)
		if (pr->files[i].dev == st.st_dev && pr->files[i].ino == st.st_ino)
			return 0;

	offs = calloc(n, sizeof(*offs));
	eo = calloc(n, sizeof(*eo));
	ec = calloc(n, sizeof(*ec));
	xo = calloc(n, sizeof(*xo));
	xc = calloc(n, sizeof(*xc));
	if (!offs || !eo || !ec || !xo || !xc) {
		err = -ENOMEM;
		goto cleanup;
	}
	found = ct_elf_resolve(path, pr->names, n, offs);
	if (found < 0) {
		err = found;
		ct_err("cannot read symbols of %s: %s", display,
		       err == -ENOEXEC ? "not an ELF file" : strerror(-err));
		goto cleanup;
	}
	if (found == 0) {
		ct_info("%s defines none of plugin %s's symbols", display, p->name);
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++) {
		if (!pr->enabled[i])
			continue;
		if (!offs[i]) {
			missing_note(pr, i, &mbuf, &mlen, &nmissing);
			continue;
		}
		/* Two names of one function (libnccl's ncclX and its alias pncclX):
		 * one probe, under the row that comes first, or each call would be
		 * recorded twice. */
		if (offset_taken(eo, ne, offs[i]))
			continue;
		eo[ne] = offs[i];
		ec[ne++] = i;
		if (!pr->entry_only[i]) {
			xo[nx] = offs[i];
			xc[nx++] = i;
		}
	}
	if (nmissing)
		ct_warn("%s: %d API%s not in %s (this runtime version lacks them); tracing the rest: %s",
			p->name, nmissing, nmissing > 1 ? "s are" : " is", display, mbuf);
	free(mbuf);
	/* The uprobe_multi attach can fail for reasons the load did not reveal
	 * (an old kernel with the program type but not the link); fall back. */
	if (pr->multi) {
		err = attach_multi(pr, path, eo, ec, ne, false);
		if (!err)
			err = attach_multi(pr, path, xo, xc, nx, true);
		if (err)
			ct_err("attaching %zu uprobes to %s with uprobe_multi failed: %s%s", ne, display,
			       strerror(-err), err == -EPERM ? " (needs root, or CAP_BPF and CAP_PERFMON)" : "");
	} else {
		for (size_t i = 0; i < ne && !err; i++)
			err = attach_single(pr, path, eo[i], ec[i], false);
		for (size_t i = 0; i < nx && !err; i++)
			err = attach_single(pr, path, xo[i], xc[i], true);
		if (err)
			ct_err("attaching uprobes to %s failed: %s", display, strerror(-err));
	}
	if (err)
		goto cleanup;
	f = realloc(pr->files, (pr->n_files + 1) * sizeof(*f));
	if (!f) {
		err = -ENOMEM;
		goto cleanup;
	}
	pr->files = f;
	pr->files[pr->n_files++] = (struct ct_attached_file){ st.st_dev, st.st_ino, strdup(display), (int)ne };
	ct_info("plugin %s: %zu probes on %s (%s)", p->name, ne, display, pr->multi ? "uprobe_multi" : "one link per symbol");
	err = (int)ne;
cleanup:
	free(offs);
	free(eo);
	free(ec);
	free(xo);
	free(xc);
	return err;
}

int ct_probe_ringbuf_fd(struct ct_probe *pr)
{
	return bpf_map__fd(bpf_object__find_map_by_name(pr->obj, "events"));
}

int ct_probe_aggregates(struct ct_probe *pr, struct ct_agg *out)
{
	int fd = bpf_map__fd(bpf_object__find_map_by_name(pr->obj, "agg"));
	int ncpu = libbpf_num_possible_cpus();
	struct ct_agg *vals;

	if (ncpu <= 0)
		return -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t i = 0; i < pr->lp->p->n_apis; i++) {
		struct ct_agg *o = &out[i];

		memset(o, 0, sizeof(*o));
		if (bpf_map_lookup_elem(fd, &i, vals))
			continue;
		for (int c = 0; c < ncpu; c++) {
			o->calls += vals[c].calls;
			o->errors += vals[c].errors;
			o->total_ns += vals[c].total_ns;
			o->bytes += vals[c].bytes;
			if (vals[c].max_ns > o->max_ns)
				o->max_ns = vals[c].max_ns;
			for (int b = 0; b < CT_AGG_BUCKETS; b++)
				o->hist[b] += vals[c].hist[b];
		}
	}
	free(vals);
	return 0;
}

int ct_probe_stats(struct ct_probe *pr, uint64_t *out, int n)
{
	int fd = bpf_map__fd(bpf_object__find_map_by_name(pr->obj, "stats"));
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;

	if (ncpu <= 0)
		return -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (int k = 0; k < n; k++) {
		uint32_t key = k;

		out[k] = 0;
		if (bpf_map_lookup_elem(fd, &key, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[k] += vals[c];
	}
	free(vals);
	return 0;
}

void ct_probe_close(struct ct_probe *pr)
{
	for (int i = pr->n_links - 1; i >= 0; i--)
		bpf_link__destroy(pr->links[i]);
	free(pr->links);
	for (int i = 0; i < pr->n_files; i++)
		free(pr->files[i].path);
	free(pr->files);
	bpf_object__close(pr->obj);
	free(pr->warned_missing);
	free(pr->names);
	free(pr->entry_only);
	memset(pr, 0, sizeof(*pr));
}
