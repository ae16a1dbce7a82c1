// SPDX-License-Identifier: MIT
/*
 * summary sink: per process and per API, calls, errors, total time, share of
 * the traced time, avg/min/max, p50/p99 from a log-linear histogram, and
 * bytes for copy/set/alloc APIs split by copy kind. Like Nsight Systems'
 * cuda_api_sum, but for every runtime. A call made inside another traced
 * call (a driver call inside a runtime call) is counted in its row and
 * marked Nested; the share of time counts outermost calls only. Then the
 * kernels by launches (kernstats.h), like cuda_gpu_kern_sum from the host. Written at exit, and every `interval`
 * if set; a file the sink opened is rewritten each time so it always holds
 * one complete, current summary. Standard output, a file the shell opened
 * included, is never rewritten: each summary is written after what is
 * there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/apistats.h"
#include "sinks/collstats.h"
#include "sinks/exited.h"
#include "analysis/analysis.h"
#include "sinks/kernstats.h"
#include "sinks/gpustats.h"
#include "sinks/nvtxstats.h"
#include "sinks/sink.h"
#include "sinks/sinkio.h"
#include "sinks/texttable.h"
#include "util/plural.h"
#include "util/strbuf.h"

enum summary_format { FMT_TABLE, FMT_JSON, FMT_CSV };

static const char *const format_words[] = { [FMT_TABLE] = "table", [FMT_JSON] = "json", [FMT_CSV] = "csv", NULL };

struct summary_ctx {
	struct ct_sink_common c;
	enum summary_format fmt;
	uint64_t interval_ns;
	bool rewrite;
	uint64_t next_tick;
	struct ct_apistats st;
	struct ct_collstats coll;
	struct ct_kernstats kern;
	uint64_t kernel_width;
	struct ct_gpustats gpu;
	struct ct_nvtxstats nvtx;
	uint64_t keep_exited;
	struct ct_exited exited;
	struct ct_an_sink an; /* why the GPU was idle, after the table (docs/analysis.md) */
};

static const struct ct_key summary_keys[] = {
	{ "format", CT_KEY_CHOICE, "table", offsetof(struct summary_ctx, fmt),
	  "Aligned table, json or csv", format_words },
	{ "interval", CT_KEY_DUR, "0", offsetof(struct summary_ctx, interval_ns),
	  "Also write the summary this often (e.g. 10s); 0: only at exit" },
	{ "kernel_width", CT_KEY_U64, "60", offsetof(struct summary_ctx, kernel_width),
	  "Kernel names in the table cut to this many bytes, whole in a footnote; 0: never cut" },
	CT_KEEP_EXITED_KEY(struct summary_ctx, keep_exited),
	{ 0 },
};

/* ---- one process ---- */

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void u64s(char *buf, uint64_t v)
{
	sprintf(buf, "%" PRIu64, v);
}

/* The sites after the shown ones: how many, and their calls (with those not kept). */
static uint64_t other_calls(const struct ct_err_stat *e, struct ct_site *const *v, size_t n)
{
	uint64_t c = e->unlisted;

	for (size_t i = CT_SITES_SHOWN; i < n; i++)
		c += v[i]->count;
	return c;
}

/* --stacks: each failing API and error by site, the most calls first. */
static int print_table_err_sites(FILE *out, struct ct_api_stat *const *v, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		for (size_t e = 0; e < v[i]->n_errs; e++) {
			const struct ct_err_stat *es = &v[i]->errs[e];
			struct ct_site **sv;
			size_t ns;
			uint64_t more;

			if (!es->stacked)
				continue;
			if (!(sv = ct_err_stat_sites(es, &ns)))
				return -ENOMEM;
			if (!any)
				fprintf(out, "\nErrors by site (of each API and error, the %d sites with most calls, "
					"%d frames of each):\n", CT_SITES_SHOWN, CT_SITE_FRAMES_SHOWN);
			any = true;
			fprintf(out, "%s %s %s: %" PRIu64 " call%s\n", v[i]->plugin, v[i]->api, es->name, es->calls,
				CT_S(es->calls));
			for (size_t k = 0; k < ns && k < CT_SITES_SHOWN; k++) {
				fprintf(out, "  %" PRIu64 " call%s at:\n", sv[k]->count, CT_S(sv[k]->count));
				ct_site_text(out, sv[k], CT_SITE_FRAMES_SHOWN, ct_site_line_indented);
			}
			more = other_calls(es, sv, ns);
			if (more)
				fprintf(out, "  %" PRIu64 " call%s at other sites\n", more, CT_S(more));
			if (es->calls > es->stacked)
				fprintf(out, "  %" PRIu64 " call%s with no stack\n", es->calls - es->stacked,
					CT_S(es->calls - es->stacked));
			free(sv);
		}
	}
	return 0;
}

static int print_table_proc(const struct summary_ctx *s, FILE *out, const struct ct_proc_stat *p)
{
	static const char *const head[] = { "Time(%)", "Total", "Calls", "Errors", "Nested",
				      "Avg", "Min", "Max", "P50", "P99",
				      "Bytes", "Runtime", "API" };
	static const char *const khead[] = { "Runtime", "API", "Kind", "Calls", "Bytes" };
	struct ct_table t = { 13, "rrrrrrrrrrrll" }, k = { 5, "lllrr" };
	bool any_nested = false;
	struct ct_api_stat **v;
	char comm[CT_COMM_TEXT], total[CT_TABLE_NS_MAX];
	size_t n;
	int err;

	err = ct_apistats_sorted(p, &v, &n);
	if (err)
		return err;
	if (p == s->st.ended)
		fprintf(out, "%" PRIu64 " ended process%s, folded together past keep_exited = %" PRIu64
			" (their kernels, collectives and GPU rows are not kept): %" PRIu64 " call%s, %" PRIu64
			" error%s, %s in traced calls\n\n", s->st.n_ended, ct_plural(s->st.n_ended, "", "es"),
			s->keep_exited, p->calls, CT_S(p->calls), p->errors, CT_S(p->errors),
			ct_table_ns(total, p->total_ns));
	else
		fprintf(out, "pid %u (%s): %" PRIu64 " call%s, %" PRIu64 " error%s, %s in traced calls\n\n", p->pid,
			ct_text_comm(comm, p->comm), p->calls, CT_S(p->calls), p->errors, CT_S(p->errors),
			ct_table_ns(total, p->total_ns));
	err = ct_table_row(&t, head);
	if (!err)
		err = ct_table_row(&k, khead);
	for (size_t i = 0; i < n && !err; i++) {
		const struct ct_api_stat *a = v[i];
		char c[13][32];
		const char *row[13];

		for (int j = 0; j < 13; j++)
			row[j] = c[j];
		if (a->timed) {
			snprintf(c[0], 32, "%.1f", ct_api_stat_pct(a, p));
			ct_table_ns(c[1], a->total_ns);
			ct_table_ns(c[5], ct_api_stat_avg(a));
			ct_table_ns(c[6], a->hist.min);
			ct_table_ns(c[7], a->hist.max);
			ct_table_ns(c[8], ct_hist_percentile(&a->hist, 50));
			ct_table_ns(c[9], ct_hist_percentile(&a->hist, 99));
		} else { /* entry-only APIs have no duration */
			for (int j = 0; j < 10; j++)
				strcpy(c[j], "-");
		}
		u64s(c[2], a->calls);
		u64s(c[3], a->errors);
		if (a->nested)
			u64s(c[4], a->nested);
		else
			strcpy(c[4], "-");
		any_nested |= a->nested != 0;
		if (ct_api_has_bytes(a->flags))
			u64s(c[10], a->bytes);
		else
			strcpy(c[10], "-");
		row[11] = a->plugin;
		row[12] = a->api;
		err = ct_table_row(&t, row);
		for (size_t j = 0; j < a->n_kinds && !err; j++) {
			char kc[2][32];
			const char *krow[5] = { a->plugin, a->api, a->kinds[j].name[0] ? a->kinds[j].name : "-",
					  kc[0], kc[1] };

			u64s(kc[0], a->kinds[j].calls);
			u64s(kc[1], a->kinds[j].bytes);
			err = ct_table_row(&k, krow);
		}
	}
	if (!err) {
		ct_table_print(out, &t, 0);
		if (any_nested)
			fputs("Nested: calls made inside another traced call (a driver call inside a runtime "
			      "call); Time(%) counts outermost calls only.\n", out);
		if (k.rows > 1) {
			fputs("\nBytes by copy kind:\n", out);
			ct_table_print(out, &k, 0);
		}
		err = print_table_err_sites(out, v, n);
	}
	ct_table_free(&t);
	ct_table_free(&k);
	free(v);
	return err;
}

/* A kernel's distinct shapes: the shape itself when there is one. */
static void shapes_text(char *buf, size_t n, const struct ct_u64map *set, const struct ct_kern_shape *first)
{
	if (set->n == 1)
		ct_kern_shape_text(buf, n, first);
	else if (set->n)
		snprintf(buf, n, "%zu shapes", set->n);
	else
		snprintf(buf, n, "-");
}

/* A name as text (control bytes escaped), whole; NULL when out of memory. */
static char *text_dup(const char *s)
{
	size_t n = ct_text_esc(NULL, 0, s) + 1;
	char *t = malloc(n);

	if (t)
		ct_text_esc(t, n, s);
	return t;
}

/* Kernels by launch time; a name cut to kernel_width is given whole below. */
static int print_table_kernels(const struct summary_ctx *s, FILE *out, uint32_t pid)
{
	static const char *const head[] = { "Launches", "Errors", "Total", "Avg", "Grids",
					    "Blocks", "Runtime", "Kernel" };
	struct ct_table t = { 8, "rrrrrrll" };
	size_t width = s->kernel_width ? s->kernel_width : SIZE_MAX;
	struct ct_kern_stat **v;
	char **names = NULL;
	size_t n, notes = 0;
	int err = ct_kernstats_sorted(&s->kern, pid, &v, &n);

	if (!err && n && !(names = calloc(n, sizeof(*names))))
		err = -ENOMEM;
	if (!err && n)
		err = ct_table_row(&t, head);
	for (size_t i = 0; i < n && !err; i++) {
		const struct ct_kern_stat *k = v[i];
		char c[6][48], *cut;
		const char *row[8] = { c[0], c[1], c[2], c[3], c[4], c[5], k->plugin, NULL };

		names[i] = text_dup(k->name);
		cut = names[i] ? malloc(strlen(names[i]) + 32) : NULL;
		if (!cut) {
			err = -ENOMEM;
			break;
		}
		u64s(c[0], k->launches);
		u64s(c[1], k->errors);
		ct_table_ns(c[2], k->total_ns);
		ct_table_ns(c[3], ct_kern_avg(k));
		shapes_text(c[4], sizeof(c[4]), &k->grids, &k->grid);
		shapes_text(c[5], sizeof(c[5]), &k->blocks, &k->block);
		if (ct_kern_name_cut(cut, strlen(names[i]) + 1, names[i], width))
			sprintf(cut + strlen(cut), " [%zu]", ++notes);
		else
			names[i][0] = 0; /* whole in the table: no footnote */
		row[7] = cut;
		err = ct_table_row(&t, row);
		free(cut);
	}
	if (!err && n) {
		fputs("\nKernels (from launch calls: each launch once, however many runtimes traced it):\n", out);
		ct_table_print(out, &t, 0);
		for (size_t i = 0, note = 0; i < n; i++)
			if (names[i][0])
				fprintf(out, "[%zu] %s\n", ++note, names[i]);
	}
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	ct_table_free(&t);
	free(v);
	return err;
}

/* By NVTX range name (nvtxstats.h): the ranges, the calls and the kernels' GPU time inside them. */
static int print_table_nvtx(const struct summary_ctx *s, FILE *out, uint32_t pid)
{
	static const char *const head[] = { "Ranges", "Range time", "Calls", "Call time", "Kernels",
					    "GPU time", "Range" };
	struct ct_table t = { 7, "rrrrrrl" };
	struct ct_nvtx_stat **v;
	size_t n;
	int err = ct_nvtxstats_sorted(&s->nvtx, pid, &v, &n);

	if (!err && n)
		err = ct_table_row(&t, head);
	for (size_t i = 0; i < n && !err; i++) {
		char c[6][CT_TABLE_NS_MAX], *name = text_dup(v[i]->name);
		const char *row[7] = { c[0], c[1], c[2], c[3], c[4], c[5], name };

		if (!name) {
			err = -ENOMEM;
			break;
		}
		u64s(c[0], v[i]->ranges);
		ct_table_ns(c[1], v[i]->range_ns);
		u64s(c[2], v[i]->calls);
		ct_table_ns(c[3], v[i]->call_ns);
		u64s(c[4], v[i]->kernels);
		ct_table_ns(c[5], v[i]->gpu_ns);
		err = ct_table_row(&t, row);
		free(name);
	}
	if (!err && n) {
		fputs("\nBy NVTX range (calls and kernels inside each range name; nested names count each):\n", out);
		ct_table_print(out, &t, 0);
	}
	ct_table_free(&t);
	free(v);
	return err;
}

/* A communication library's calls by API and datatype (collstats.h); with
 * --gpu-activity (`gpu`), their kernels' device time beside them. */
static int print_table_coll(FILE *out, const struct ct_coll_proc *cp, bool gpu)
{
	static const char *const head[] = { "Calls", "Errors", "Bytes", "Total", "Avg",
					    "AlgBW(GB/s)", "BusBW(GB/s)", "Ranks", "GPU calls",
					    "GPU time", "GPU BusBW(GB/s)", "Runtime", "API", "Datatype" };
	enum { NUM = 11, ALL = 14 };
	const char *h[ALL];
	size_t w = gpu ? ALL : ALL - 3;
	struct ct_table t = { w, gpu ? "rrrrrrrrrrrlll" : "rrrrrrrrlll" };
	int err;

	for (size_t i = 0, j = 0; i < ALL; i++)
		if (gpu || i < 8 || i >= NUM)
			h[j++] = head[i];
	err = ct_table_row(&t, h);
	for (size_t i = 0; cp && i < cp->n && !err; i++) {
		const struct ct_coll_stat *c = &cp->v[i];
		uint64_t ok = c->calls - c->errors;
		char v[NUM][32];
		const char *row[ALL];
		size_t j = 0;

		u64s(v[0], c->calls);
		u64s(v[1], c->errors);
		u64s(v[2], c->bytes);
		ct_table_ns(v[3], c->ns);
		ct_table_ns(v[4], ok ? c->ns / ok : 0);
		snprintf(v[5], 32, "%.3f", ct_coll_algbw(c) / 1e9);
		if (ct_coll_busbw(c) < 0)
			strcpy(v[6], "-");
		else
			snprintf(v[6], 32, "%.3f", ct_coll_busbw(c) / 1e9);
		if (c->nranks < 0)
			strcpy(v[7], "-");
		else
			snprintf(v[7], 32, "%d", c->nranks);
		u64s(v[8], c->gpu_kernels);
		ct_table_ns(v[9], c->gpu_ns);
		if (ct_coll_gpu_busbw(c) < 0)
			strcpy(v[10], "-");
		else
			snprintf(v[10], 32, "%.3f", ct_coll_gpu_busbw(c) / 1e9);
		for (size_t k = 0; k < (gpu ? NUM : 8); k++)
			row[j++] = v[k];
		row[j++] = c->plugin;
		row[j++] = c->api;
		row[j++] = c->dtype;
		err = ct_table_row(&t, row);
	}
	if (!err && t.rows > 1) {
		fputs(gpu ? "\nCollectives (bandwidth over the calls' own time, as the host saw it; GPU: the "
			    "kernels launched inside the calls, bandwidth over their device time):\n"
			  : "\nCollectives (bandwidth over the calls' own time, as the host saw it):\n",
		      out);
		ct_table_print(out, &t, 0);
	}
	ct_table_free(&t);
	return err;
}

/* The device side (--gpu-activity) and the calls by device. */
static int print_table_gpu(FILE *out, const struct ct_gpustats *g, uint32_t pid)
{
	static const char *const khead[] = { "Time(%)", "Total", "Count", "Avg", "Min",
					     "Max", "P50", "P99", "Kernel" };
	static const char *const chead[] = { "Kind", "Count", "Bytes", "Total", "GB/s" };
	static const char *const dhead[] = { "Device", "Calls", "Call time", "Kernels", "Kernel time",
					     "Copies", "Copy bytes", "Copy time", "GPU", "Bus" };
	struct ct_table kt = { 9, "rrrrrrrrl" }, ct = { 5, "lrrrr" }, dt = { 10, "lrrrrrrrll" };
	struct ct_kernel_stat **k = NULL;
	struct ct_copy_stat **c = NULL;
	struct ct_device_stat **d = NULL;
	size_t nk = 0, nc = 0, nd = 0;
	uint64_t total = 0;
	bool any_gpu = false;
	char v[9][32];
	int err;

	err = ct_gpustats_kernels(g, pid, &k, &nk);
	if (!err)
		err = ct_gpustats_copies(g, pid, &c, &nc);
	if (!err)
		err = ct_gpustats_devices(g, pid, &d, &nd);
	if (!err)
		err = ct_table_row(&kt, khead);
	if (!err)
		err = ct_table_row(&ct, chead);
	/* The GPU and its bus where the process holds one open (docs/gpu.md). */
	for (size_t i = 0; i < nd; i++)
		any_gpu |= d[i]->gpu_uuid[0] != 0;
	if (!any_gpu)
		dt.cols = 8;
	if (!err)
		err = ct_table_row(&dt, dhead);
	for (size_t i = 0; i < nk; i++)
		total += k[i]->hist.sum;
	for (size_t i = 0; i < nk && !err; i++) {
		const struct ct_hist *h = &k[i]->hist;
		const char *row[9] = { v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], k[i]->name };

		snprintf(v[0], 32, "%.1f", pct(h->sum, total));
		ct_table_ns(v[1], h->sum);
		u64s(v[2], h->count);
		ct_table_ns(v[3], h->count ? h->sum / h->count : 0);
		ct_table_ns(v[4], h->min);
		ct_table_ns(v[5], h->max);
		ct_table_ns(v[6], ct_hist_percentile(h, 50));
		ct_table_ns(v[7], ct_hist_percentile(h, 99));
		err = ct_table_row(&kt, row);
	}
	for (size_t i = 0; i < nc && !err; i++) {
		const char *row[5] = { c[i]->kind, v[0], v[1], v[2], v[3] };

		u64s(v[0], c[i]->count);
		u64s(v[1], c[i]->bytes);
		ct_table_ns(v[2], c[i]->ns);
		snprintf(v[3], 32, "%.3f", ct_copy_gbps(c[i]->bytes, c[i]->ns));
		err = ct_table_row(&ct, row);
	}
	for (size_t i = 0; i < nd && !err; i++) {
		const char *row[10] = { v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], d[i]->gpu_uuid, d[i]->gpu_bus };

		if (d[i]->device < 0)
			strcpy(v[0], "unknown");
		else
			snprintf(v[0], 32, "%d", d[i]->device);
		u64s(v[1], d[i]->calls);
		ct_table_ns(v[2], d[i]->call_ns);
		u64s(v[3], d[i]->kernels);
		ct_table_ns(v[4], d[i]->kernel_ns);
		u64s(v[5], d[i]->copies);
		u64s(v[6], d[i]->copy_bytes);
		ct_table_ns(v[7], d[i]->copy_ns);
		err = ct_table_row(&dt, row);
	}
	if (!err && kt.rows > 1) {
		fputs("\nGPU kernels (time on the device):\n", out);
		ct_table_print(out, &kt, 0);
	}
	if (!err && ct.rows > 1) {
		fputs("\nGPU copies and sets (throughput over their time on the device):\n", out);
		ct_table_print(out, &ct, 0);
	}
	/* Only where a device is known: a run that never said has nothing to split. */
	if (!err && nd && (nd > 1 || d[0]->device >= 0 || d[0]->gpu_uuid[0])) {
		fputs(g->by_process ? "\nBy device (calls by their process's device: aggregate mode, docs/gpu.md):\n"
				    : "\nBy device (calls by the device current on their thread):\n", out);
		ct_table_print(out, &dt, 0);
	}
	ct_table_free(&kt);
	ct_table_free(&ct);
	ct_table_free(&dt);
	free(k);
	free(c);
	free(d);
	return err;
}

static void json_u64(FILE *out, const char *key, uint64_t v, bool comma)
{
	fprintf(out, "%s\"%s\":%" PRIu64, comma ? "," : "", key, v);
}

static void print_json_coll(FILE *out, const struct ct_coll_proc *cp, bool gpu)
{
	fputs(",\"collectives\":[", out);
	for (size_t i = 0; cp && i < cp->n; i++) {
		const struct ct_coll_stat *c = &cp->v[i];

		fputs(i ? ",{\"plugin\":" : "{\"plugin\":", out);
		ct_json_str(out, c->plugin);
		fputs(",\"api\":", out);
		ct_json_str(out, c->api);
		fputs(",\"datatype\":", out);
		ct_json_str(out, c->dtype);
		json_u64(out, "calls", c->calls, true);
		json_u64(out, "errors", c->errors, true);
		json_u64(out, "bytes", c->bytes, true);
		json_u64(out, "total_ns", c->ns, true);
		fprintf(out, ",\"algbw_gbps\":%.6f", ct_coll_algbw(c) / 1e9);
		if (c->nranks >= 0)
			fprintf(out, ",\"busbw_gbps\":%.6f,\"nranks\":%d", ct_coll_busbw(c) / 1e9, c->nranks);
		if (gpu) {
			json_u64(out, "gpu_kernels", c->gpu_kernels, true);
			json_u64(out, "gpu_ns", c->gpu_ns, true);
			if (ct_coll_gpu_busbw(c) >= 0)
				fprintf(out, ",\"gpu_busbw_gbps\":%.6f", ct_coll_gpu_busbw(c) / 1e9);
		}
		fputc('}', out);
	}
	fputc(']', out);
}

static int print_json_gpu(FILE *out, const struct ct_gpustats *g, uint32_t pid)
{
	struct ct_kernel_stat **k = NULL;
	struct ct_copy_stat **c = NULL;
	struct ct_device_stat **d = NULL;
	size_t nk = 0, nc = 0, nd = 0;
	int err = ct_gpustats_kernels(g, pid, &k, &nk);

	if (!err)
		err = ct_gpustats_copies(g, pid, &c, &nc);
	if (!err)
		err = ct_gpustats_devices(g, pid, &d, &nd);
	if (err)
		goto out;
	fputs(",\"gpu_kernels\":[", out);
	for (size_t i = 0; i < nk; i++) {
		const struct ct_hist *h = &k[i]->hist;

		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		ct_json_str(out, k[i]->name);
		json_u64(out, "count", h->count, true);
		json_u64(out, "total_ns", h->sum, true);
		json_u64(out, "avg_ns", h->count ? h->sum / h->count : 0, true);
		json_u64(out, "min_ns", h->min, true);
		json_u64(out, "max_ns", h->max, true);
		json_u64(out, "p50_ns", ct_hist_percentile(h, 50), true);
		json_u64(out, "p99_ns", ct_hist_percentile(h, 99), true);
		fputc('}', out);
	}
	fputs("],\"gpu_copies\":[", out);
	for (size_t i = 0; i < nc; i++) {
		fputs(i ? ",{\"kind\":" : "{\"kind\":", out);
		ct_json_str(out, c[i]->kind);
		json_u64(out, "count", c[i]->count, true);
		json_u64(out, "bytes", c[i]->bytes, true);
		json_u64(out, "total_ns", c[i]->ns, true);
		fprintf(out, ",\"gbps\":%.6f}", ct_copy_gbps(c[i]->bytes, c[i]->ns));
	}
	fputs("],\"devices\":[", out);
	for (size_t i = 0; i < nd; i++) {
		if (d[i]->device < 0)
			fputs(i ? ",{\"device\":null" : "{\"device\":null", out);
		else
			fprintf(out, "%s{\"device\":%d", i ? "," : "", d[i]->device);
		if (d[i]->gpu_uuid[0]) {
			fputs(",\"gpu_uuid\":", out);
			ct_json_str(out, d[i]->gpu_uuid);
			if (d[i]->gpu_bus[0]) {
				fputs(",\"gpu_bus\":", out);
				ct_json_str(out, d[i]->gpu_bus);
			}
		}
		json_u64(out, "calls", d[i]->calls, true);
		json_u64(out, "calls_ns", d[i]->call_ns, true);
		json_u64(out, "kernels", d[i]->kernels, true);
		json_u64(out, "kernels_ns", d[i]->kernel_ns, true);
		json_u64(out, "copies", d[i]->copies, true);
		json_u64(out, "copy_bytes", d[i]->copy_bytes, true);
		json_u64(out, "copies_ns", d[i]->copy_ns, true);
		fputc('}', out);
	}
	fputc(']', out);
out:
	free(k);
	free(c);
	free(d);
	return err;
}

static void json_shape(FILE *out, const char *key, const struct ct_u64map *set, const struct ct_kern_shape *first)
{
	fprintf(out, ",\"%ss\":%zu", key, set->n);
	if (set->n == 1)
		fprintf(out, ",\"%s\":[%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", key, first->v[0], first->v[1], first->v[2]);
}

static int print_json_kernels(const struct summary_ctx *s, FILE *out, uint32_t pid)
{
	struct ct_kern_stat **v;
	size_t n;
	int err = ct_kernstats_sorted(&s->kern, pid, &v, &n);

	if (err)
		return err;
	fputs(",\"kernels\":[", out);
	for (size_t i = 0; i < n; i++) {
		const struct ct_kern_stat *k = v[i];

		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		ct_json_str(out, k->name);
		fputs(",\"plugin\":", out);
		ct_json_str(out, k->plugin);
		json_u64(out, "launches", k->launches, true);
		json_u64(out, "errors", k->errors, true);
		json_u64(out, "total_ns", k->total_ns, true);
		json_u64(out, "avg_ns", ct_kern_avg(k), true);
		json_shape(out, "grid", &k->grids, &k->grid);
		json_shape(out, "block", &k->blocks, &k->block);
		fputc('}', out);
	}
	fputc(']', out);
	free(v);
	return 0;
}

/* Each error's calls, and with --stacks the sites with most calls. */
static int print_json_errs(FILE *out, const struct ct_api_stat *a)
{
	fputs(",\"errors_by_name\":[", out);
	for (size_t e = 0; e < a->n_errs; e++) {
		const struct ct_err_stat *es = &a->errs[e];
		size_t ns;
		struct ct_site **sv = ct_err_stat_sites(es, &ns);

		if (!sv)
			return -ENOMEM;
		fputs(e ? ",{\"error\":" : "{\"error\":", out);
		ct_json_str(out, es->name);
		json_u64(out, "calls", es->calls, true);
		json_u64(out, "stacked", es->stacked, true);
		fputs(",\"sites\":[", out);
		for (size_t k = 0; k < ns && k < CT_SITES_SHOWN; k++) {
			fprintf(out, "%s{\"count\":%" PRIu64 ",\"frames\":%u,", k ? "," : "", sv[k]->count,
				sv[k]->n_lines);
			ct_site_json(out, sv[k], CT_SITE_FRAMES_SHOWN);
			fputc('}', out);
		}
		fputc(']', out);
		json_u64(out, "other_sites", ns > CT_SITES_SHOWN ? ns - CT_SITES_SHOWN : 0, true);
		json_u64(out, "other_calls", other_calls(es, sv, ns), true);
		fputc('}', out);
		free(sv);
	}
	fputc(']', out);
	return 0;
}

/* ,"nvtx":[{"name","ranges","range_ns","calls","call_ns","kernels","gpu_ns"}...]: the table's rows; none, no key. */
static int print_json_nvtx(const struct summary_ctx *s, FILE *out, uint32_t pid)
{
	struct ct_nvtx_stat **v;
	size_t n;
	int err = ct_nvtxstats_sorted(&s->nvtx, pid, &v, &n);

	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",{\"name\":" : ",\"nvtx\":[{\"name\":", out);
		ct_json_str(out, v[i]->name);
		json_u64(out, "ranges", v[i]->ranges, true);
		json_u64(out, "range_ns", v[i]->range_ns, true);
		json_u64(out, "calls", v[i]->calls, true);
		json_u64(out, "call_ns", v[i]->call_ns, true);
		json_u64(out, "kernels", v[i]->kernels, true);
		json_u64(out, "gpu_ns", v[i]->gpu_ns, true);
		fputc('}', out);
	}
	if (n)
		fputc(']', out);
	free(v);
	return 0;
}

static int print_json_proc(const struct summary_ctx *s, FILE *out, const struct ct_proc_stat *p)
{
	const struct ct_coll_proc *cp = ct_collstats_proc(&s->coll, p->pid);
	struct ct_api_stat **v;
	size_t n;
	int err = ct_apistats_sorted(p, &v, &n);

	if (err)
		return err;
	fputc('{', out);
	if (p == s->st.ended) {
		json_u64(out, "processes", s->st.n_ended, false);
		json_u64(out, "keep_exited", s->keep_exited, true);
	} else {
		fprintf(out, "\"pid\":%u,\"comm\":", p->pid);
		ct_json_str(out, p->comm);
	}
	json_u64(out, "calls", p->calls, true);
	json_u64(out, "errors", p->errors, true);
	json_u64(out, "total_ns", p->total_ns, true);
	fputs(",\"apis\":[", out);
	for (size_t i = 0; i < n; i++) {
		const struct ct_api_stat *a = v[i];

		fputs(i ? ",{\"plugin\":" : "{\"plugin\":", out);
		ct_json_str(out, a->plugin);
		fputs(",\"api\":", out);
		ct_json_str(out, a->api);
		json_u64(out, "calls", a->calls, true);
		json_u64(out, "errors", a->errors, true);
		json_u64(out, "timed", a->timed, true);
		json_u64(out, "total_ns", a->total_ns, true);
		json_u64(out, "nested", a->nested, true);
		fprintf(out, ",\"time_pct\":%.2f", ct_api_stat_pct(a, p));
		if (a->timed) {
			json_u64(out, "avg_ns", ct_api_stat_avg(a), true);
			json_u64(out, "min_ns", a->hist.min, true);
			json_u64(out, "max_ns", a->hist.max, true);
			json_u64(out, "p50_ns", ct_hist_percentile(&a->hist, 50), true);
			json_u64(out, "p99_ns", ct_hist_percentile(&a->hist, 99), true);
		}
		if (ct_api_has_bytes(a->flags))
			json_u64(out, "bytes", a->bytes, true);
		if (a->n_errs && (err = print_json_errs(out, a)))
			break;
		if (a->n_kinds) {
			fputs(",\"bytes_by_kind\":{", out);
			for (size_t j = 0; j < a->n_kinds; j++) {
				if (j)
					fputc(',', out);
				ct_json_str(out, a->kinds[j].name);
				fprintf(out, ":{\"calls\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
					a->kinds[j].calls, a->kinds[j].bytes);
			}
			fputc('}', out);
		}
		fputc('}', out);
	}
	fputc(']', out);
	free(v);
	if (err)
		return err;
	err = print_json_kernels(s, out, p->pid);
	print_json_coll(out, cp, s->coll.gpu);
	if (!err)
		err = print_json_gpu(out, &s->gpu, p->pid);
	if (!err)
		err = print_json_nvtx(s, out, p->pid);
	fputc('}', out);
	return err;
}

static int print_csv_proc(const struct summary_ctx *s, FILE *out, const struct ct_proc_stat *p)
{
	struct ct_api_stat **v;
	size_t n;
	int err = ct_apistats_sorted(p, &v, &n);

	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		const struct ct_api_stat *a = v[i];

		if (p == s->st.ended) /* no pid: the ended processes folded together */
			fputc(',', out);
		else
			fprintf(out, "%u,", p->pid);
		ct_csv_field(out, p->comm);
		fputc(',', out);
		ct_csv_field(out, a->plugin);
		fputc(',', out);
		ct_csv_field(out, a->api);
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.2f", a->calls, a->errors,
			a->total_ns, ct_api_stat_pct(a, p));
		if (a->timed)
			fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
				ct_api_stat_avg(a), a->hist.min, a->hist.max,
				ct_hist_percentile(&a->hist, 50), ct_hist_percentile(&a->hist, 99));
		else
			fputs(",,,,,", out);
		if (ct_api_has_bytes(a->flags))
			fprintf(out, ",%" PRIu64 ",", a->bytes);
		else
			fputs(",,", out);
		/* kinds in one field: "kind=bytes;kind=bytes" */
		if (a->n_kinds) {
			size_t len = 0;
			char buf[1024] = "";

			for (size_t j = 0; j < a->n_kinds && len < sizeof(buf); j++)
				len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s=%" PRIu64,
							j ? ";" : "", a->kinds[j].name, a->kinds[j].bytes);
			ct_csv_field(out, buf);
		}
		fprintf(out, ",%" PRIu64 "\r\n", a->nested);
	}
	free(v);
	return 0;
}

/* ---- the whole report ---- */

static int summary_write(struct summary_ctx *s, const struct ct_run_stats *rs, bool final)
{
	FILE *out = s->c.out;
	struct ct_proc_stat **procs;
	size_t n;
	int err;

	if (s->rewrite) {
		err = ct_out_restart(out);
		if (err)
			return err;
	}
	err = ct_apistats_procs(&s->st, &procs, &n);
	if (err)
		return err;
	switch (s->fmt) {
	case FMT_TABLE:
		fputs(final ? "cudatracer summary\n" : "cudatracer summary (so far)\n", out);
		if (!n && !s->st.ended)
			fputs("\nno calls traced\n", out);
		for (size_t i = 0; i < n && !err; i++) {
			fputc('\n', out);
			err = print_table_proc(s, out, procs[i]);
			if (!err)
				err = print_table_kernels(s, out, procs[i]->pid);
			if (!err)
				err = print_table_coll(out, ct_collstats_proc(&s->coll, procs[i]->pid),
						       s->coll.gpu);
			if (!err)
				err = print_table_gpu(out, &s->gpu, procs[i]->pid);
			if (!err)
				err = print_table_nvtx(s, out, procs[i]->pid);
		}
		if (s->st.ended && !err) {
			fputc('\n', out);
			err = print_table_proc(s, out, s->st.ended);
		}
		if (rs && rs->lost)
			fprintf(out, "\nwarning: %" PRIu64 " record%s lost: the figures above undercount\n",
				rs->lost, CT_S(rs->lost));
		break;
	case FMT_JSON:
		fprintf(out, "{\"final\":%s", final ? "true" : "false");
		json_u64(out, "calls", s->st.calls, true);
		json_u64(out, "total_ns", s->st.total_ns, true);
		if (rs)
			json_u64(out, "lost", rs->lost, true);
		fputs(",\"processes\":[", out);
		for (size_t i = 0; i < n && !err; i++) {
			if (i)
				fputc(',', out);
			err = print_json_proc(s, out, procs[i]);
		}
		fputc(']', out);
		if (s->st.ended && !err) {
			fputs(",\"ended\":", out);
			err = print_json_proc(s, out, s->st.ended);
		}
		fputs("}\n", out);
		break;
	case FMT_CSV:
		fputs("pid,comm,plugin,api,calls,errors,total_ns,time_pct,avg_ns,min_ns,max_ns,"
		      "p50_ns,p99_ns,bytes,bytes_by_kind,nested\r\n", out);
		for (size_t i = 0; i < n && !err; i++)
			err = print_csv_proc(s, out, procs[i]);
		if (s->st.ended && !err)
			err = print_csv_proc(s, out, s->st.ended);
		break;
	}
	free(procs);
	if (fflush(out) && !err)
		err = -errno;
	return err;
}

static int summary_open(void *ctx)
{
	struct summary_ctx *s = ctx;

	/* a file of ours holds the latest summary; standard output gets each one in turn */
	s->rewrite = ct_out_rewritable(s->c.out);
	return 0;
}

static int summary_event(void *ctx, const struct ct_event *ev)
{
	struct summary_ctx *s = ctx;
	int err = ct_apistats_add(&s->st, ev);

	if (!err)
		err = ct_kernstats_add(&s->kern, ev);
	if (!err)
		err = ct_gpustats_call(&s->gpu, ev);
	if (!err)
		err = ct_an_sink_event(&s->an, ev);
	if (!err)
		err = ct_nvtxstats_call(&s->nvtx, ev);
	return err ? err : ct_collstats_add(&s->coll, ev);
}

static int summary_gpu(void *ctx, const struct ct_gpu_event *g)
{
	struct summary_ctx *s = ctx;

	int err = ct_gpustats_gpu(&s->gpu, g);

	if (!err)
		err = ct_an_sink_gpu(&s->an, g);
	if (!err)
		err = ct_nvtxstats_gpu(&s->nvtx, g);
	return err ? err : ct_collstats_gpu(&s->coll, g);
}

static int summary_nvtx(void *ctx, const struct ct_nvtx_event *r)
{
	struct summary_ctx *s = ctx;

	return ct_nvtxstats_range(&s->nvtx, r);
}

static int summary_totals(void *ctx, const struct ct_totals *t)
{
	struct summary_ctx *s = ctx;
	uint64_t calls, ns;
	int err = ct_apistats_set(&s->st, t, &calls, &ns);

	return err ? err : ct_gpustats_totals(&s->gpu, t, calls, ns);
}

static int summary_tick(void *ctx, uint64_t now_ns)
{
	struct summary_ctx *s = ctx;

	if (!s->interval_ns)
		return 0;
	if (!s->next_tick) {
		s->next_tick = now_ns + s->interval_ns;
		return 0;
	}
	if (now_ns < s->next_tick)
		return 0;
	s->next_tick = now_ns + s->interval_ns;
	return summary_write(s, NULL, false);
}

/* Past keep_exited, the oldest ended process's figures join the ended row. */
static void summary_proc_exit(void *ctx, uint32_t pid, uint64_t ts_ns)
{
	struct summary_ctx *s = ctx;
	uint32_t fold = ct_exited_end(&s->exited, s->keep_exited, &s->st, &s->kern, &s->gpu, pid);

	(void)ts_ns;
	if (fold)
		ct_collstats_drop_pid(&s->coll, fold);
}

static int summary_close(void *ctx, const struct ct_run_stats *rs)
{
	struct summary_ctx *s = ctx;
	int err = summary_write(ctx, rs, true);

	if (!err && ct_an_sink_has_answer(&s->an) && s->fmt == FMT_TABLE) {
		ct_an_finish(&s->an.an);
		ct_an_write_text(&s->an.an, s->c.out);
		if (fflush(s->c.out))
			err = -errno;
	}
	return err;
}

static void summary_destroy(void *ctx)
{
	struct summary_ctx *s = ctx;

	ct_apistats_free(&s->st);
	ct_collstats_free(&s->coll);
	ct_kernstats_free(&s->kern);
	ct_gpustats_free(&s->gpu);
	ct_nvtxstats_free(&s->nvtx);
	ct_exited_free(&s->exited);
	ct_an_sink_free(&s->an);
}

const struct ct_sink_ops ct_sink_summary = {
	.type = "summary",
	.where_help = "per-API counts, errors, times and bytes, at the end",
	.help = "Per-API call counts, errors, time, p50/p99 and bytes, per process",
	.keys = summary_keys,
	.ctx_size = sizeof(struct summary_ctx),
	.open = summary_open,
	.event = summary_event,
	.tick = summary_tick,
	.close = summary_close,
	.destroy = summary_destroy,
	.totals = summary_totals,
	.gpu = summary_gpu,
	.nvtx = summary_nvtx,
	.proc_exit = summary_proc_exit,
};
