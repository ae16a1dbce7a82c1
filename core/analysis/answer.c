// SPDX-License-Identifier: MIT
/*
 * The analysis told: per process, its steps, GPU busy and idle time, the
 * idle time by cause with the sites that caused it, pageable copies, the
 * top kernels and a verdict ranking the causes by the GPU time they cost.
 * Text for people (names escaped for a terminal), JSON for programs.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analysis.h"
#include "util/strbuf.h"

#define TOP_SITES 5
#define TOP_KERNELS 10
#define TOP_NODES 10

struct ranked {
	uint64_t key;
	struct ct_cost c;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->c.ns != y->c.ns)
		return x->c.ns > y->c.ns ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

/* Entries of m whose key's top byte is `cause` (all with cause < 0), by cost. */
static struct ranked *rank(const struct ct_u64map *m, int cause, size_t *n)
{
	struct ranked *v = calloc(m->n ? m->n : 1, sizeof(*v));
	struct ct_cost *c;
	uint64_t k;

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; ct_u64map_next(m, &i, &k, (void **)&c);)
		if (cause < 0 || (int)(k >> 56) == cause)
			v[(*n)++] = (struct ranked){ k, *c };
	qsort(v, *n, sizeof(*v), cmp_ranked);
	return v;
}

static uint32_t key_api(uint64_t k)
{
	return (uint32_t)(k >> 28) & 0xfffffff;
}

static uint32_t key_site(uint64_t k)
{
	return (uint32_t)k & 0xfffffff;
}

/* Causes by cost, the ones that cost nothing left out; returns how many. */
static int verdict(const struct ct_an_proc *p, int order[CT_CAUSE_N])
{
	int n = 0;

	for (int c = 0; c < CT_CAUSE_N; c++)
		if (p->cause[c].ns)
			order[n++] = c;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && p->cause[order[j]].ns > p->cause[order[j - 1]].ns; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	return n;
}

static struct ct_an_proc **procs_sorted(const struct ct_an *a, size_t *n)
{
	struct ct_an_proc **v = calloc(a->procs.n ? a->procs.n : 1, sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; ct_u64map_next(&a->procs, &i, NULL, (void **)&v[*n]);)
		(*n)++;
	for (size_t i = 1; i < *n; i++)
		for (size_t j = i; j > 0 && v[j]->pid < v[j - 1]->pid; j--) {
			struct ct_an_proc *t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v;
}

/* What the trace lacks, for the analysis: said in both forms. */
static const char *const lack_text[] = {
	"no GPU activity lines (recorded without --gpu-activity, or by a version before it): busy and idle time "
	"are not measured, only steps and calls",
	"no NVTX range lines (recorded without NVTX ranges, or by a version before them): steps by --step-range "
	"cannot be found",
	"no Python frames (recorded without --stacks, or by a version before py_stack): causes are named by API, not "
	"by line",
	"no meta line (recorded by a version before it, version 0)",
};
static const char *const lack_key[] = { "gpu_activity", "nvtx", "py_stack", "meta" };

static bool lacks(const struct ct_an *a, int i)
{
	switch (i) {
	case 0: return !a->seen.gpu;
	case 1: return a->by == CT_STEPS_NVTX && !a->seen.ranges;
	case 2: return !a->seen.py_calls && !a->seen.stack_calls;
	default: return !a->seen.meta;
	}
}

static const char *steps_how(const struct ct_an *a, const struct ct_an_proc *p)
{
	switch (a->by) {
	case CT_STEPS_NVTX: return "nvtx";
	case CT_STEPS_FUNCTION: return "function";
	default: return p->period.len ? "period" : "windows";
	}
}

static void text_str(FILE *f, const char *s)
{
	char buf[4 * 4200 + 1];

	ct_text_esc(buf, sizeof(buf), s);
	fputs(buf, f);
}

static void ms(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03" PRIu64 " ms", ns / 1000000, ns / 1000 % 1000);
}

static void text_proc(const struct ct_an *a, const struct ct_an_proc *p, FILE *f)
{
	size_t n;
	struct ranked *r;
	int order[CT_CAUSE_N], nv;

	fprintf(f, "pid %" PRIu32 ": %" PRIu64 " step%s", p->pid, p->n_steps_done, p->n_steps_done == 1 ? "" : "s");
	switch (a->by) {
	case CT_STEPS_NVTX: fputs(" (NVTX ranges matching \"", f); text_str(f, a->o.range_pattern); fputs("\")\n", f); break;
	case CT_STEPS_FUNCTION: fputs(" (entries into Python function ", f); text_str(f, a->o.py_function); fputs(")\n", f); break;
	default:
		if (p->period.len)
			fprintf(f, " (the launch sequence repeats every %zu launches)\n", p->period.len);
		else
			fputs(" (no repeating launch sequence: 1 s windows)\n", f);
	}
	if (!p->n_steps_done)
		return;
	if (!a->seen.gpu) {
		fputs("  wall ", f), ms(f, p->wall);
		fputs(" (GPU time not recorded)\n", f);
		return;
	}
	fputs("  wall ", f), ms(f, p->wall);
	fputs(", GPU busy ", f), ms(f, p->busy);
	fprintf(f, " (%.1f%%), idle ", p->wall ? 100.0 * (double)p->busy / (double)p->wall : 0.0), ms(f, p->idle);
	fputs("\n  a step: wall ", f), ms(f, p->wall / p->n_steps_done);
	fputs(", busy ", f), ms(f, p->busy / p->n_steps_done);
	fputs(", idle ", f), ms(f, p->idle / p->n_steps_done);
	fputs("\n", f);
	nv = verdict(p, order);
	if (nv)
		fputs("  GPU time lost, by cause:\n", f);
	for (int i = 0; i < nv; i++) {
		int c = order[i];

		fprintf(f, "    %-28s ", ct_cause_text[c]);
		ms(f, p->cause[c].ns);
		fprintf(f, " in %" PRIu64 " %s\n", p->cause[c].n, c == CT_CAUSE_PAGEABLE ? "copies" :
			c == CT_CAUSE_LAUNCH ? "gaps (kernels shorter than the time between launches)" : "gaps");
		if (!(r = rank(&p->sites, c, &n)))
			continue;
		for (size_t k = 0; k < n && k < TOP_SITES; k++) {
			fputs("      ", f);
			ms(f, r[k].c.ns);
			fprintf(f, " %6" PRIu64 "x ", r[k].c.n);
			if (key_api(r[k].key)) {
				text_str(f, ct_names_str(&a->names, key_api(r[k].key)));
				fputs(" ", f);
			}
			fputs("from ", f);
			text_str(f, key_site(r[k].key) ? ct_names_str(&a->names, key_site(r[k].key)) : "(no stack recorded)");
			fputs("\n", f);
		}
		free(r);
	}
	if (p->pageable_bytes)
		fprintf(f, "  pageable copies: %" PRIu64 " bytes in %.3f ms, %.2f GB/s against the link's %.2f GB/s\n",
			p->pageable_bytes, (double)p->pageable_ns / 1e6,
			p->pageable_ns ? (double)p->pageable_bytes / (double)p->pageable_ns : 0.0, a->o.link_gbps);
	if ((r = rank(&p->kernels, -1, &n)) && n) {
		fputs("  top kernels by GPU time:\n", f);
		for (size_t k = 0; k < n && k < TOP_KERNELS; k++) {
			fputs("    ", f);
			ms(f, r[k].c.ns);
			fprintf(f, " %6" PRIu64 "x ", r[k].c.n);
			text_str(f, r[k].key ? ct_names_str(&a->names, (uint32_t)r[k].key) : "(unnamed)");
			fputs("\n", f);
		}
	}
	free(r);
	if (nv) {
		fputs("  verdict:", f);
		for (int i = 0; i < nv; i++) {
			fprintf(f, " %d. %s (", i + 1, ct_cause_text[order[i]]);
			ms(f, p->cause[order[i]].ns);
			fputs(")", f);
		}
		fputs("\n", f);
	}
}

struct node_ranked {
	uint64_t id;
	const struct ct_an_node *n;
};

static int cmp_nodes(const void *a, const void *b)
{
	const struct node_ranked *x = a, *y = b;

	if (x->n->c.ns != y->n->c.ns)
		return x->n->c.ns > y->n->c.ns ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* A process's CUDA graph nodes by GPU time; NULL with *n 0 when none. */
static struct node_ranked *rank_nodes(const struct ct_an_proc *p, size_t *n)
{
	struct node_ranked *v = p->graph_nodes.n ? calloc(p->graph_nodes.n, sizeof(*v)) : NULL;
	void *val;
	uint64_t k;

	*n = 0;
	for (size_t i = 0; v && ct_u64map_next(&p->graph_nodes, &i, &k, &val);)
		v[(*n)++] = (struct node_ranked){ k, val };
	if (v)
		qsort(v, *n, sizeof(*v), cmp_nodes);
	return v;
}

/* "CUDA graph nodes by GPU time": each node's replays and the call that captured it. */
static void text_graph_nodes(const struct ct_an *a, const struct ct_an_proc *p, FILE *f)
{
	size_t n;
	struct node_ranked *r = rank_nodes(p, &n);

	if (!n) {
		free(r);
		return;
	}
	fprintf(f, "  CUDA graph nodes by GPU time (%zu node%s; replays: records run from the node):\n", n,
		n == 1 ? "" : "s");
	for (size_t k = 0; k < n && k < TOP_NODES; k++) {
		const struct ct_an_node *g = r[k].n;

		fputs("    ", f);
		ms(f, g->c.ns);
		fprintf(f, " %6" PRIu64 "x ", g->c.n);
		if (r[k].id)
			fprintf(f, "node %" PRIu64 " of graph %" PRIu32 " ", r[k].id, g->graph_id);
		else
			fputs("(other nodes) ", f);
		text_str(f, ct_names_str(&a->names, g->name));
		if (g->api) {
			fputs(", captured by ", f);
			text_str(f, ct_names_str(&a->names, g->api));
			fputs(" from ", f);
			text_str(f, g->site ? ct_names_str(&a->names, g->site) : "(no stack recorded)");
		} else {
			fputs(", capture call not recorded", f);
		}
		fputs("\n", f);
	}
	if (n > TOP_NODES)
		fprintf(f, "    ... %zu more (--answer json has them all)\n", n - TOP_NODES);
	free(r);
}

static void text_notes(const struct ct_an *a, FILE *f)
{
	for (size_t i = 0; i < sizeof(lack_key) / sizeof(lack_key[0]); i++)
		if (lacks(a, (int)i))
			fprintf(f, "note: %s\n", lack_text[i]);
	if (a->seen.late)
		fprintf(f, "note: %" PRIu64 " GPU lines came more than %" PRIu64 " ms after their time and were left out\n",
			a->seen.late, a->o.lag_ns / 1000000);
	if (a->seen.dropped)
		fprintf(f, "note: %" PRIu64 " records past the %u kept a process were dropped (a step that long?)\n",
			a->seen.dropped, CT_AN_KEEP_MAX);
	if (a->names.over)
		fprintf(f, "note: %" PRIu64 " names past the %u kept are counted as (other)\n", a->names.over, CT_NAMES_MAX);
	if (a->seen.bad_lines)
		fprintf(f, "note: %" PRIu64 " lines were not trace lines and were skipped\n", a->seen.bad_lines);
}

void ct_an_write_text(const struct ct_an *a, FILE *f)
{
	size_t n;
	struct ct_an_proc **v = procs_sorted(a, &n);

	fputs("\nWhy the GPU was idle (docs/analysis.md)\n", f);
	text_notes(a, f);
	for (size_t i = 0; v && i < n; i++) {
		if (v[i]->n_steps_done || v[i]->period.len)
			text_proc(a, v[i], f);
		else if (v[i]->graph_nodes.n)
			fprintf(f, "pid %" PRIu32 ": no steps found\n", v[i]->pid);
		text_graph_nodes(a, v[i], f);
	}
	free(v);
}

static void json_str(FILE *f, const char *s)
{
	struct ct_sb b = { 0 };

	if (!ct_sb_room(&b, 6 * strlen(s) + 3))
		return (void)fputs("null", f);
	ct_sb_json_str(&b, s);
	fwrite(b.p, 1, b.len, f);
	ct_sb_free(&b);
}

static void json_costs(const struct ct_an *a, const struct ct_an_proc *p, FILE *f)
{
	int order[CT_CAUSE_N], nv = verdict(p, order);

	fputs(",\"causes\":{", f);
	for (int c = 0; c < CT_CAUSE_N; c++) {
		size_t n;
		struct ranked *r = rank(&p->sites, c, &n);

		fprintf(f, "%s\"%s\":{\"ns\":%" PRIu64 ",\"n\":%" PRIu64 ",\"sites\":[", c ? "," : "", ct_cause_key[c],
			p->cause[c].ns, p->cause[c].n);
		for (size_t k = 0; r && k < n; k++) {
			fprintf(f, "%s{\"api\":", k ? "," : "");
			if (key_api(r[k].key))
				json_str(f, ct_names_str(&a->names, key_api(r[k].key)));
			else
				fputs("null", f);
			fputs(",\"site\":", f);
			if (key_site(r[k].key))
				json_str(f, ct_names_str(&a->names, key_site(r[k].key)));
			else
				fputs("null", f);
			fprintf(f, ",\"ns\":%" PRIu64 ",\"n\":%" PRIu64 "}", r[k].c.ns, r[k].c.n);
		}
		free(r);
		fputs("]}", f);
	}
	fputs("},\"verdict\":[", f);
	for (int i = 0; i < nv; i++)
		fprintf(f, "%s{\"cause\":\"%s\",\"ns\":%" PRIu64 "}", i ? "," : "", ct_cause_key[order[i]],
			p->cause[order[i]].ns);
	fputs("]", f);
}

static void json_name(const struct ct_an *a, uint32_t id, FILE *f)
{
	if (id)
		json_str(f, ct_names_str(&a->names, id));
	else
		fputs("null", f);
}

/* ,"graph_nodes":[{"node":..,"graph_id":..,"name":..,"api":..,"site":..,"ns":..,"n":..}] all of them */
static void json_graph_nodes(const struct ct_an *a, const struct ct_an_proc *p, FILE *f)
{
	size_t n;
	struct node_ranked *r = rank_nodes(p, &n);

	fputs(",\"graph_nodes\":[", f);
	for (size_t k = 0; k < n; k++) {
		fprintf(f, "%s{\"node\":%" PRIu64 ",\"graph_id\":%" PRIu32 ",\"name\":", k ? "," : "", r[k].id,
			r[k].n->graph_id);
		json_name(a, r[k].n->name, f);
		fputs(",\"api\":", f);
		json_name(a, r[k].n->api, f);
		fputs(",\"site\":", f);
		json_name(a, r[k].n->site, f);
		fprintf(f, ",\"ns\":%" PRIu64 ",\"n\":%" PRIu64 "}", r[k].n->c.ns, r[k].n->c.n);
	}
	fputs("]", f);
	free(r);
}

static void json_proc(const struct ct_an *a, const struct ct_an_proc *p, FILE *f)
{
	size_t n;
	struct ranked *r;

	fprintf(f, "{\"pid\":%" PRIu32 ",\"steps_by\":\"%s\",\"period\":%zu,\"steps\":%" PRIu64 ",\"wall_ns\":%" PRIu64,
		p->pid, steps_how(a, p), p->period.len, p->n_steps_done, p->wall);
	if (!a->seen.gpu) {
		fputs(",\"busy_ns\":null,\"idle_ns\":null}", f);
		return;
	}
	fprintf(f, ",\"busy_ns\":%" PRIu64 ",\"idle_ns\":%" PRIu64, p->busy, p->idle);
	json_costs(a, p, f);
	fprintf(f, ",\"copies\":{\"bytes\":%" PRIu64 ",\"pageable_bytes\":%" PRIu64 ",\"pageable_ns\":%" PRIu64 "}",
		p->copy_bytes, p->pageable_bytes, p->pageable_ns);
	fputs(",\"kernels\":[", f);
	r = rank(&p->kernels, -1, &n);
	for (size_t k = 0; r && k < n && k < TOP_KERNELS; k++) {
		fputs(k ? ",{\"name\":" : "{\"name\":", f);
		if (r[k].key)
			json_str(f, ct_names_str(&a->names, (uint32_t)r[k].key));
		else
			fputs("null", f);
		fprintf(f, ",\"ns\":%" PRIu64 ",\"n\":%" PRIu64 "}", r[k].c.ns, r[k].c.n);
	}
	free(r);
	fputs("]", f);
	json_graph_nodes(a, p, f);
	fputs("}", f);
}

void ct_an_write_json(const struct ct_an *a, FILE *f)
{
	size_t n, k = 0;
	struct ct_an_proc **v = procs_sorted(a, &n);

	fprintf(f, "{\"version\":%" PRId64 ",\"lacks\":[", a->seen.version);
	for (size_t i = 0; i < sizeof(lack_key) / sizeof(lack_key[0]); i++)
		if (lacks(a, (int)i))
			fprintf(f, "%s\"%s\"", k++ ? "," : "", lack_key[i]);
	fprintf(f, "],\"late\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"bad_lines\":%" PRIu64 ",\"link_gbps\":%.3f,\"processes\":[",
		a->seen.late, a->seen.dropped, a->seen.bad_lines, a->o.link_gbps);
	k = 0;
	for (size_t i = 0; v && i < n; i++)
		if (v[i]->n_steps_done || v[i]->period.len || v[i]->graph_nodes.n) {
			if (k++)
				fputs(",", f);
			json_proc(a, v[i], f);
		}
	fputs("]}\n", f);
	free(v);
}
