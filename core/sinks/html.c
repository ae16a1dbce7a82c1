// SPDX-License-Identifier: MIT
/*
 * html sink: one self-contained HTML page written at exit: the per-API
 * summary tables, the errors by name and API, the kernels by launches, a
 * memory table, a plot of device memory in use over time and a timeline of
 * calls per thread, drawn as inline SVG. Sizes read as people read them
 * (1.36 GiB), exact in their title. No script, no
 * font, no image is fetched (a Content-Security-Policy says so to the
 * browser too), so the file opens anywhere, offline.
 *
 * Memory is bounded: the timeline keeps the first `max_calls` calls (and
 * says so, pointing to the chrome sink for the whole run in Perfetto) and
 * the plot thins its points once it holds `max_points`; the tables count all.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analysis.h"
#include "sinks/apistats.h"
#include "sinks/exited.h"
#include "sinks/kernstats.h"
#include "sinks/gpustats.h"
#include "sinks/memtrack.h"
#include "sinks/sink.h"
#include "sinks/sinkio.h"
#include "plugin/number.h"
#include "util/plural.h"

#ifndef CT_VERSION
#define CT_VERSION "0"
#endif

#define PLOT_W 1000.0  /* drawing width of time axes, in SVG units */
#define LABEL_W 220.0  /* room for thread labels left of the timeline */
#define ROW_H 18.0
#define PLOT_H 240.0

struct call {
	uint64_t start, dur;   /* CLOCK_MONOTONIC ns */
	uint32_t thread;       /* index in threads */
	uint32_t name;         /* index in names */
	uint32_t flags;        /* the API's flags, for the colour */
	bool error;
};

struct thread {
	uint32_t pid, tid, row;
	char comm[CT_COMM_LEN];
};

struct point {
	uint64_t t, v;
};

struct series { /* device memory in use of one process and runtime */
	const struct ct_mem_space *sp;
	struct point *p;
	size_t n, cap;
	uint64_t stride, skipped; /* keep one change in `stride` once thinned */
};

struct html_ctx {
	struct ct_sink_common c;
	char *title;
	uint64_t max_calls;
	uint64_t max_points;
	struct ct_apistats stats;
	struct ct_kernstats kern;
	struct ct_gpustats gpu;
	struct ct_memtrack mem;
	struct call *calls;
	size_t n_calls, cap_calls;
	uint64_t dropped_calls;
	struct thread **threads;
	size_t n_threads;
	struct ct_u64map thread_idx; /* tid -> thread */
	char **names;
	size_t n_names;
	struct ct_u64map name_idx;   /* plugin number << 32 | api index -> index + 1 */
	const struct ct_plugin *plugins[64];
	unsigned n_plugins;
	struct series **series;
	size_t n_series;
	struct ct_u64map series_idx; /* space pointer -> series */
	uint64_t t0, t1;             /* CLOCK_MONOTONIC span of the calls seen */
	bool any;
	uint64_t keep_exited;
	struct ct_exited exited;
	struct ct_an_sink an; /* why the GPU was idle (docs/analysis.md) */
};

static const struct ct_key html_keys[] = {
	{ "title", CT_KEY_STR, "cudatracer report", offsetof(struct html_ctx, title),
	  "The page's title" },
	{ "max_calls", CT_KEY_U64, "20000", offsetof(struct html_ctx, max_calls),
	  "Calls drawn in the timeline, the first ones (the tables count all; the chrome sink has every call)" },
	{ "max_points", CT_KEY_U64, "10000", offsetof(struct html_ctx, max_points),
	  "Points kept per memory series before thinning" },
	CT_KEEP_EXITED_KEY(struct html_ctx, keep_exited),
	{ 0 },
};

static int name_of(struct html_ctx *s, const struct ct_event *ev, uint32_t *idx)
{
	int pn = CT_PLUGIN_NUMBER(s, ev->plugin);
	uint64_t key;
	uintptr_t v;
	char **names;

	if (pn < 0)
		return pn;
	key = (uint64_t)pn << 32 | ev->api_idx;
	v = (uintptr_t)ct_u64map_get(&s->name_idx, key);
	if (v) {
		*idx = (uint32_t)(v - 1);
		return 0;
	}
	names = realloc(s->names, (s->n_names + 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	s->names = names;
	names[s->n_names] = strdup(ev->api && ev->api->symbol ? ev->api->symbol : "?");
	if (!names[s->n_names] || ct_u64map_put(&s->name_idx, key, (void *)(uintptr_t)(s->n_names + 1))) {
		free(names[s->n_names]);
		return -ENOMEM;
	}
	*idx = (uint32_t)s->n_names++;
	return 0;
}

static int thread_of(struct html_ctx *s, const struct ct_event *ev, uint32_t *idx)
{
	struct thread *t = ct_u64map_get(&s->thread_idx, ev->tid);
	struct thread **v;

	if (t) {
		*idx = t->row;
		return 0;
	}
	v = realloc(s->threads, (s->n_threads + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->threads = v;
	t = calloc(1, sizeof(*t));
	if (!t || ct_u64map_put(&s->thread_idx, ev->tid, t)) {
		free(t);
		return -ENOMEM;
	}
	t->pid = ev->pid;
	t->tid = ev->tid;
	t->row = (uint32_t)s->n_threads;
	snprintf(t->comm, sizeof(t->comm), "%s", ev->comm ? ev->comm : "");
	v[s->n_threads++] = t;
	*idx = t->row;
	return 0;
}

static int keep_call(struct html_ctx *s, const struct ct_event *ev)
{
	struct call *c;
	int err;

	if (s->n_calls >= s->max_calls) {
		s->dropped_calls++;
		return 0;
	}
	if (s->n_calls == s->cap_calls) {
		size_t cap = s->cap_calls ? s->cap_calls * 2 : 1024;

		c = realloc(s->calls, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		s->calls = c;
		s->cap_calls = cap;
	}
	c = &s->calls[s->n_calls];
	c->start = ev->mono_ns;
	c->dur = ev->entry_only ? 0 : ev->dur_ns;
	c->flags = ev->api ? ev->api->flags : 0;
	c->error = ev->is_error;
	err = thread_of(s, ev, &c->thread);
	if (!err)
		err = name_of(s, ev, &c->name);
	if (!err)
		s->n_calls++;
	return err;
}

static int add_point(struct html_ctx *s, const struct ct_mem_space *sp, uint64_t t)
{
	struct series *se = ct_u64map_get(&s->series_idx, (uintptr_t)sp);

	if (!se) {
		struct series **v = realloc(s->series, (s->n_series + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->series = v;
		se = calloc(1, sizeof(*se));
		if (!se || ct_u64map_put(&s->series_idx, (uintptr_t)sp, se)) {
			free(se);
			return -ENOMEM;
		}
		se->sp = sp;
		se->stride = 1;
		v[s->n_series++] = se;
	}
	if (++se->skipped < se->stride)
		return 0;
	se->skipped = 0;
	if (se->n == se->cap) {
		size_t cap = se->cap ? se->cap * 2 : 256;
		struct point *p;

		if (cap > s->max_points)
			cap = s->max_points > 2 ? s->max_points : 2;
		if (se->cap >= cap) {
			/* full: keep every other point and from now on one change in two more */
			for (size_t i = 0; i < se->n / 2; i++)
				se->p[i] = se->p[2 * i + 1];
			se->n /= 2;
			se->stride *= 2;
		} else {
			p = realloc(se->p, cap * sizeof(*p));
			if (!p)
				return -ENOMEM;
			se->p = p;
			se->cap = cap;
		}
	}
	se->p[se->n++] = (struct point){ t, sp->in_use[CT_MEM_DEVICE] };
	return 0;
}

static int html_event(void *ctx, const struct ct_event *ev)
{
	struct html_ctx *s = ctx;
	struct ct_mem_change ch;
	uint64_t end = ev->mono_ns + (ev->entry_only ? 0 : ev->dur_ns);
	int err;

	if (!s->any || ev->mono_ns < s->t0)
		s->t0 = ev->mono_ns;
	if (!s->any || end > s->t1)
		s->t1 = end;
	s->any = true;
	err = ct_apistats_add(&s->stats, ev);
	if (!err)
		err = ct_kernstats_add(&s->kern, ev);
	if (!err)
		err = ct_gpustats_call(&s->gpu, ev);
	if (!err)
		err = ct_memtrack_event(&s->mem, ev, &ch);
	if (!err && (ch.op == CT_MEMOP_ALLOC || ch.op == CT_MEMOP_FREE) && ch.kind == CT_MEM_DEVICE)
		err = add_point(s, ch.space, end);
	if (!err)
		err = keep_call(s, ev);
	if (!err)
		err = ct_an_sink_event(&s->an, ev);
	return err;
}

/* ---- the page ---- */

static const char style[] =
	"body{font:14px/1.4 sans-serif;margin:24px;color:#222}"
	"h1{font-size:22px}h2{font-size:18px;margin-top:28px}h3{font-size:15px}"
	"table{border-collapse:collapse;margin:8px 0}"
	"th,td{padding:2px 8px;border-bottom:1px solid #ddd}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}th{text-align:left;background:#f2f2f2}"
	"svg{border:1px solid #ccc;background:#fff}"
	".copy{fill:#3b7dd8}.set{fill:#6aa7e8}.alloc{fill:#3a9d5d}.free{fill:#8cc79f}"
	".launch{fill:#e8912d}.sync{fill:#b04fc7}.other{fill:#888}.err{stroke:#d62728;stroke-width:1.5}"
	".legend span{display:inline-block;margin-right:14px}"
	".legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}"
	".note{color:#666}pre.stack{margin:0;font-size:12px}";

static const char *call_class(uint32_t flags)
{
	if (flags & CT_API_COPY)
		return "copy";
	if (flags & CT_API_SET)
		return "set";
	if (flags & CT_API_ALLOC)
		return "alloc";
	if (flags & CT_API_FREE)
		return "free";
	if (flags & CT_API_LAUNCH)
		return "launch";
	if (flags & CT_API_SYNC)
		return "sync";
	return "other";
}

static void td_u64(FILE *o, uint64_t v)
{
	fprintf(o, "<td class=\"n\">%" PRIu64 "</td>", v);
}

/* 1000 B, 7.32 KiB, 1.36 GiB: three figures, binary units. */
static void human_size(char *buf, size_t n, uint64_t v)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double x = (double)v;
	int u = -1;

	if (v < 1024) {
		snprintf(buf, n, "%" PRIu64 " B", v);
		return;
	}
	while (x >= 1024 && u < 5) {
		x /= 1024;
		u++;
	}
	/* 1023.9 KiB rounds to "1024 KiB": still three figures */
	snprintf(buf, n, x < 9.995 ? "%.2f %s" : x < 99.95 ? "%.1f %s" : "%.0f %s", x, unit[u]);
}

/* A size cell: read by people, exact in its title. */
static void td_size(FILE *o, uint64_t v)
{
	char h[32];

	human_size(h, sizeof(h), v);
	fprintf(o, "<td class=\"n\" title=\"%" PRIu64 " bytes\">%s</td>", v, h);
}

static void html_line(FILE *o, const char *line)
{
	ct_html_str(o, line);
	fputc('\n', o);
}

/* A site's cell: its first CT_SITE_FRAMES_SHOWN native and Python frames, one a line. */
static void td_stack(FILE *o, const struct ct_site *site)
{
	fputs("<td><pre class=\"stack\">", o);
	ct_site_text(o, site, CT_SITE_FRAMES_SHOWN, html_line);
	fputs("</pre></td>", o);
}

/* The API, error and runtime cells of an error's row. */
static void td_error(FILE *o, const struct ct_api_stat *a, const struct ct_err_stat *e)
{
	fputs("<tr><td>", o);
	ct_html_str(o, e->name);
	fputs("</td><td>", o);
	ct_html_str(o, a->api);
	fputs("</td><td>", o);
	ct_html_str(o, a->plugin);
	fputs("</td>", o);
}

/* --stacks: each failing API and error at its sites with most calls. */
static int page_error_sites(FILE *o, const struct ct_proc_stat *p, struct ct_api_stat *const *v, size_t m)
{
	bool any = false;

	for (size_t j = 0; j < m; j++) {
		for (size_t e = 0; e < v[j]->n_errs; e++) {
			const struct ct_err_stat *es = &v[j]->errs[e];
			struct ct_site **sv;
			size_t ns;

			if (!es->stacked)
				continue;
			if (!(sv = ct_err_stat_sites(es, &ns)))
				return -ENOMEM;
			if (!any)
				fprintf(o, "<h3>Error sites</h3>\n<p class=\"note\">Of each API and error, the %d "
					"sites with most calls, %d frames of each, innermost first.</p>\n"
					"<table class=\"error-sites\" data-pid=\"%u\"><tr><th>Error</th><th>API</th>"
					"<th>Runtime</th><th>Calls</th><th>Stack</th></tr>\n",
					CT_SITES_SHOWN, CT_SITE_FRAMES_SHOWN, p->pid);
			any = true;
			for (size_t k = 0; k < ns && k < CT_SITES_SHOWN; k++) {
				td_error(o, v[j], es);
				td_u64(o, sv[k]->count);
				td_stack(o, sv[k]);
				fputs("</tr>\n", o);
			}
			free(sv);
		}
	}
	if (any)
		fputs("</table>\n", o);
	return 0;
}

/* Which errors, from which API: the runtime's own names. */
static int page_errors(FILE *o, const struct ct_proc_stat *p, struct ct_api_stat *const *v, size_t m)
{
	if (!p->errors)
		return 0;
	fprintf(o, "<h3>Errors</h3>\n<table class=\"errors\" data-pid=\"%u\"><tr><th>Error</th><th>API</th><th>Runtime</th>"
		"<th>Calls</th></tr>\n", p->pid);
	for (size_t j = 0; j < m; j++) {
		for (size_t e = 0; e < v[j]->n_errs; e++) {
			td_error(o, v[j], &v[j]->errs[e]);
			td_u64(o, v[j]->errs[e].calls);
			fputs("</tr>\n", o);
		}
	}
	fputs("</table>\n", o);
	return page_error_sites(o, p, v, m);
}

/* A kernel table's shapes cell: the shape when there is one. */
static void td_shapes(FILE *o, const struct ct_u64map *set, const struct ct_kern_shape *first)
{
	char buf[80];

	if (set->n == 1)
		ct_kern_shape_text(buf, sizeof(buf), first);
	else if (set->n)
		snprintf(buf, sizeof(buf), "%zu shapes", set->n);
	else
		snprintf(buf, sizeof(buf), "-");
	fprintf(o, "<td class=\"n\">%s</td>", buf);
}

#define KERNEL_CUT 80 /* bytes of a kernel's name shown; the title has it whole */

static int page_kernels(struct html_ctx *s, FILE *o, uint32_t pid)
{
	struct ct_kern_stat **v;
	size_t n;
	int err = ct_kernstats_sorted(&s->kern, pid, &v, &n);

	if (err || !n) {
		free(v);
		return err;
	}
	fprintf(o, "<h3>Kernels</h3>\n<p class=\"note\">From the launch calls: each launch once, however "
		"many runtimes traced it; times are the launch calls' own.</p>\n"
		"<table class=\"kernels\" data-pid=\"%u\"><tr><th>Kernel</th><th>Runtime</th><th>Launches</th>"
		"<th>Errors</th><th>Total(ns)</th><th>Avg(ns)</th><th>Grids</th><th>Blocks</th></tr>\n", pid);
	for (size_t i = 0; i < n; i++) {
		const struct ct_kern_stat *k = v[i];
		char *cut = malloc(strlen(k->name) + 4);

		if (!cut) {
			err = -ENOMEM;
			break;
		}
		ct_kern_name_cut(cut, strlen(k->name) + 4, k->name, KERNEL_CUT);
		fputs("<tr><td title=\"", o);
		ct_html_str(o, k->name);
		fputs("\">", o);
		ct_html_str(o, cut);
		fputs("</td><td>", o);
		ct_html_str(o, k->plugin);
		fputs("</td>", o);
		td_u64(o, k->launches);
		td_u64(o, k->errors);
		td_u64(o, k->total_ns);
		td_u64(o, ct_kern_avg(k));
		td_shapes(o, &k->grids, &k->grid);
		td_shapes(o, &k->blocks, &k->block);
		fputs("</tr>\n", o);
		free(cut);
	}
	fputs("</table>\n", o);
	free(v);
	return err;
}

static int page_apis(struct html_ctx *s, FILE *o)
{
	struct ct_proc_stat **procs;
	size_t n;
	int err = ct_apistats_procs(&s->stats, &procs, &n);

	if (err)
		return err;
	fputs("<h2>Calls by API</h2>\n", o);
	if (!n && !s->stats.ended)
		fputs("<p>No calls were traced.</p>\n", o);
	/* the ended processes folded together last */
	for (size_t i = 0; i < n + !!s->stats.ended && !err; i++) {
		const struct ct_proc_stat *p = i < n ? procs[i] : s->stats.ended;
		struct ct_api_stat **v;
		size_t m;

		err = ct_apistats_sorted(p, &v, &m);
		if (err)
			break;
		if (p == s->stats.ended) {
			fprintf(o, "<h3 id=\"ended\">%" PRIu64 " ended processes, folded together past keep_exited = %"
				PRIu64 " (their kernels and memory are not kept)", s->stats.n_ended, s->keep_exited);
		} else {
			fprintf(o, "<h3>pid %u (", p->pid);
			ct_html_str(o, p->comm);
			fputc(')', o);
		}
		fprintf(o, ": %" PRIu64 " calls, %" PRIu64 " errors, %" PRIu64 " ns in traced calls</h3>\n",
			p->calls, p->errors, p->total_ns);
		fprintf(o, "<table class=\"apis\" data-pid=\"%u\"><tr><th>API</th><th>Runtime</th>"
			"<th>Time(%%)</th><th>Total(ns)</th><th>Calls</th><th>Errors</th><th>Avg(ns)</th>"
			"<th>Min(ns)</th><th>Max(ns)</th><th>P50(ns)</th><th>P99(ns)</th><th>Bytes</th>"
			"<th title=\"calls made inside another traced call: their time is not counted in "
			"Time(%%) again\">Nested</th></tr>\n", p->pid);
		for (size_t j = 0; j < m; j++) {
			const struct ct_api_stat *a = v[j];

			fputs("<tr><td>", o);
			ct_html_str(o, a->api);
			fputs("</td><td>", o);
			ct_html_str(o, a->plugin);
			fprintf(o, "</td><td class=\"n\">%.1f</td>", ct_api_stat_pct(a, p));
			td_u64(o, a->total_ns);
			td_u64(o, a->calls);
			td_u64(o, a->errors);
			if (a->timed) {
				td_u64(o, ct_api_stat_avg(a));
				td_u64(o, a->hist.min);
				td_u64(o, a->hist.max);
				td_u64(o, ct_hist_percentile(&a->hist, 50));
				td_u64(o, ct_hist_percentile(&a->hist, 99));
			} else {
				fputs("<td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">-</td>", o);
			}
			if (ct_api_has_bytes(a->flags))
				td_size(o, a->bytes);
			else
				fputs("<td class=\"n\">-</td>", o);
			td_u64(o, a->nested);
			fputs("</tr>\n", o);
		}
		fputs("</table>\n", o);
		err = page_errors(o, p, v, m);
		if (!err)
			err = page_kernels(s, o, p->pid);
		free(v);
	}
	free(procs);
	return err;
}

static int html_gpu(void *ctx, const struct ct_gpu_event *g)
{
	struct html_ctx *s = ctx;
	int err = ct_gpustats_gpu(&s->gpu, g);

	return err ? err : ct_an_sink_gpu(&s->an, g);
}

/* The analysis's text answer (escaped for a terminal, then for HTML). */
static int page_analysis(struct html_ctx *s, FILE *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *t;

	if (!ct_an_sink_has_answer(&s->an))
		return 0;
	ct_an_finish(&s->an.an);
	if (!(t = open_memstream(&text, &len)))
		return -errno;
	ct_an_write_text(&s->an.an, t);
	fclose(t);
	fputs("<h2>Why the GPU was idle</h2>\n<pre id=\"analysis\">", o);
	/* Line by line: a line break inside ct_html_str would show as a control picture. */
	for (char *line = text, *nl; line && *line; line = nl + 1) {
		if (!(nl = strchr(line, '\n')))
			nl = line + strlen(line) - 1;
		else
			*nl = 0;
		html_line(o, line);
	}
	fputs("</pre>\n", o);
	free(text);
	return 0;
}

/* Per process: calls and work by device; GPU time per kernel and copy
 * throughput (--gpu-activity). */
static int page_gpu(struct html_ctx *s, FILE *o)
{
	struct ct_proc_stat **procs;
	bool titled = false;
	size_t n;
	int err;

	err = ct_apistats_procs(&s->stats, &procs, &n);
	if (err)
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		struct ct_kernel_stat **k = NULL;
		struct ct_copy_stat **c = NULL;
		struct ct_device_stat **d = NULL;
		size_t nk = 0, nc = 0, nd = 0;

		err = ct_gpustats_kernels(&s->gpu, procs[i]->pid, &k, &nk);
		if (!err)
			err = ct_gpustats_copies(&s->gpu, procs[i]->pid, &c, &nc);
		if (!err)
			err = ct_gpustats_devices(&s->gpu, procs[i]->pid, &d, &nd);
		/* Devices only where one is known, as in the summary. */
		if (nd == 1 && d[0]->device < 0)
			nd = 0;
		if (!err && (nk || nc || nd)) {
			if (!titled)
				fputs("<h2>Devices and GPU activity</h2>\n", o);
			titled = true;
			fprintf(o, "<h3>pid %u</h3>\n", procs[i]->pid);
		}
		if (!err && nd) {
			fprintf(o, "<table class=\"devices\" data-pid=\"%u\"><tr><th>Device</th><th>Calls</th>"
				"<th>Calls(ns)</th><th>Kernels</th><th>Kernels(ns)</th><th>Copies</th><th>Copy bytes</th>"
				"<th>Copies(ns)</th></tr>\n", procs[i]->pid);
			for (size_t j = 0; j < nd; j++) {
				if (d[j]->device < 0)
					fputs("<tr><td>unknown</td>", o);
				else
					fprintf(o, "<tr><td>%d</td>", d[j]->device);
				td_u64(o, d[j]->calls);
				td_u64(o, d[j]->call_ns);
				td_u64(o, d[j]->kernels);
				td_u64(o, d[j]->kernel_ns);
				td_u64(o, d[j]->copies);
				td_u64(o, d[j]->copy_bytes);
				td_u64(o, d[j]->copy_ns);
				fputs("</tr>\n", o);
			}
			fputs("</table>\n", o);
		}
		if (!err && nk) {
			fprintf(o, "<table class=\"kernels\" data-pid=\"%u\"><tr><th>Kernel</th><th>Count</th>"
				"<th>Total(ns)</th><th>Avg(ns)</th><th>Min(ns)</th><th>Max(ns)</th><th>P50(ns)</th>"
				"<th>P99(ns)</th></tr>\n", procs[i]->pid);
			for (size_t j = 0; j < nk; j++) {
				const struct ct_hist *h = &k[j]->hist;

				fputs("<tr><td>", o);
				ct_html_str(o, k[j]->name);
				fputs("</td>", o);
				td_u64(o, h->count);
				td_u64(o, h->sum);
				td_u64(o, h->count ? h->sum / h->count : 0);
				td_u64(o, h->min);
				td_u64(o, h->max);
				td_u64(o, ct_hist_percentile(h, 50));
				td_u64(o, ct_hist_percentile(h, 99));
				fputs("</tr>\n", o);
			}
			fputs("</table>\n", o);
		}
		if (!err && nc) {
			fprintf(o, "<table class=\"copies\" data-pid=\"%u\"><tr><th>Kind</th><th>Count</th>"
				"<th>Bytes</th><th>Total(ns)</th><th>GB/s</th></tr>\n", procs[i]->pid);
			for (size_t j = 0; j < nc; j++) {
				fputs("<tr><td>", o);
				ct_html_str(o, c[j]->kind);
				fputs("</td>", o);
				td_u64(o, c[j]->count);
				td_u64(o, c[j]->bytes);
				td_u64(o, c[j]->ns);
				fprintf(o, "<td class=\"n\">%.3f</td></tr>\n", ct_copy_gbps(c[j]->bytes, c[j]->ns));
			}
			fputs("</table>\n", o);
		}
		free(k);
		free(c);
		free(d);
	}
	free(procs);
	return err;
}

static uint64_t series_max(struct html_ctx *s)
{
	uint64_t m = 0;

	for (size_t i = 0; i < s->n_series; i++) {
		if (s->series[i]->sp->peak[CT_MEM_DEVICE] > m)
			m = s->series[i]->sp->peak[CT_MEM_DEVICE];
	}
	return m;
}

static double xpos(struct html_ctx *s, uint64_t t)
{
	double span = (double)(s->t1 > s->t0 ? s->t1 - s->t0 : 1);

	return LABEL_W + PLOT_W * (double)(t - s->t0) / span;
}

static void time_axis(struct html_ctx *s, FILE *o, double y)
{
	double span_ms = (double)(s->t1 - s->t0) / 1e6;

	for (int i = 0; i <= 4; i++) {
		double x = LABEL_W + PLOT_W * i / 4;

		fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%.3f ms</text>\n",
			x, y, x, y + 4, x, y + 16, span_ms * i / 4);
	}
}

/* --stacks: of each process and runtime, the sites holding most bytes never freed. */
static int page_alloc_sites(FILE *o, struct ct_mem_space *const *v, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		struct ct_mem_site *ms;
		size_t ns;
		int err = ct_memtrack_live_sites(v[i], &ms, &ns);

		if (err)
			return err;
		for (size_t k = 0, shown = 0; k < ns && shown < CT_SITES_SHOWN; k++) {
			if (!ms[k].site)
				continue;
			if (!any)
				fprintf(o, "<h3>Never freed, by allocation site</h3>\n<p class=\"note\">Of each "
					"process and runtime, the %d sites holding most bytes, %d frames of each, "
					"innermost first.</p>\n<table class=\"alloc-sites\"><tr><th>pid</th>"
					"<th>Runtime</th><th>Allocations</th><th>Bytes</th><th>Stack</th></tr>\n",
					CT_SITES_SHOWN, CT_SITE_FRAMES_SHOWN);
			any = true;
			shown++;
			fprintf(o, "<tr data-pid=\"%u\"><td class=\"n\">%u</td><td>", v[i]->pid, v[i]->pid);
			ct_html_str(o, v[i]->plugin);
			fputs("</td>", o);
			td_u64(o, ms[k].count);
			td_size(o, ms[k].bytes);
			td_stack(o, ms[k].site);
			fputs("</tr>\n", o);
		}
		free(ms);
	}
	if (any)
		fputs("</table>\n", o);
	return 0;
}

static int page_memory(struct html_ctx *s, FILE *o)
{
	static const char *const colours[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
						"#9467bd", "#8c564b", "#e377c2", "#17becf" };
	struct ct_mem_space **v;
	uint64_t top = series_max(s);
	char top_text[32];
	size_t n;
	int err = ct_memtrack_spaces(&s->mem, &v, &n);

	if (err)
		return err;
	fputs("<h2>Memory</h2>\n<table class=\"memory\"><tr><th>pid</th><th>Process</th><th>Runtime</th>"
	      "<th>Allocations</th><th>Frees</th><th>Peak device</th><th>Peak host</th>"
	      "<th>Peak managed</th><th>Never freed</th><th>Never freed (bytes)</th>"
	      "<th>Unknown frees</th></tr>\n", o);
	for (size_t i = 0; i < n; i++) {
		const struct ct_mem_space *sp = v[i];
		uint64_t live_bytes = 0;
		struct ct_alloc *a;

		for (size_t j = 0; ct_u64map_next(&sp->live, &j, NULL, (void **)&a);)
			live_bytes += a->size;
		fprintf(o, "<tr data-pid=\"%u\"><td class=\"n\">%u</td><td>", sp->pid, sp->pid);
		ct_html_str(o, sp->comm);
		fputs("</td><td>", o);
		ct_html_str(o, sp->plugin);
		fputs("</td>", o);
		td_u64(o, sp->allocs);
		td_u64(o, sp->frees);
		td_size(o, sp->peak[CT_MEM_DEVICE]);
		td_size(o, sp->peak[CT_MEM_HOST]);
		td_size(o, sp->peak[CT_MEM_MANAGED]);
		td_u64(o, sp->live.n);
		td_size(o, live_bytes);
		td_u64(o, sp->unknown);
		fputs("</tr>\n", o);
	}
	fputs("</table>\n", o);
	err = page_alloc_sites(o, v, n);
	free(v);
	if (err)
		return err;

	fputs("<h3>Device memory in use</h3>\n", o);
	if (!s->n_series) {
		fputs("<p class=\"note\">No device memory was allocated while tracing.</p>\n", o);
		return 0;
	}
	fprintf(o, "<svg id=\"memplot\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n", LABEL_W + PLOT_W + 50, PLOT_H + 40,
		LABEL_W + PLOT_W + 50, PLOT_H + 40);
	human_size(top_text, sizeof(top_text), top);
	fprintf(o, "<text x=\"%.0f\" y=\"14\" font-size=\"11\" text-anchor=\"end\">%s"
		"</text><text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"end\">0</text>\n",
		LABEL_W - 6, top_text, LABEL_W - 6, PLOT_H + 10);
	time_axis(s, o, PLOT_H + 10);
	for (size_t i = 0; i < s->n_series; i++) {
		const struct series *se = s->series[i];
		const char *col = colours[i % (sizeof(colours) / sizeof(colours[0]))];
		double prev_y = PLOT_H + 10;

		/* a step line: the level holds until the next change */
		fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%.1f,%.1f",
			col, LABEL_W, prev_y);
		for (size_t j = 0; j < se->n; j++) {
			double x = xpos(s, se->p[j].t);
			double y = PLOT_H + 10 - (top ? PLOT_H * (double)se->p[j].v / (double)top : 0);

			fprintf(o, " %.1f,%.1f %.1f,%.1f", x, prev_y, x, y);
			prev_y = y;
		}
		fprintf(o, " %.1f,%.1f\"><title>pid %u ", LABEL_W + PLOT_W, prev_y, se->sp->pid);
		ct_html_str(o, se->sp->plugin);
		fputs("</title></polyline>\n", o);
		fprintf(o, "<text x=\"4\" y=\"%.0f\" font-size=\"11\" fill=\"%s\">pid %u ", 30 + 14.0 * (double)i,
			col, se->sp->pid);
		ct_html_str(o, se->sp->plugin);
		fputs("</text>\n", o);
	}
	fputs("</svg>\n", o);
	return 0;
}

static void page_timeline(struct html_ctx *s, FILE *o)
{
	static const char *const legend[] = { "copy", "set", "alloc", "free", "launch", "sync", "other" };
	double h = ROW_H * (double)s->n_threads + 30;

	fputs("<h2>Timeline</h2>\n<p class=\"legend\">", o);
	for (size_t i = 0; i < sizeof(legend) / sizeof(legend[0]); i++)
		fprintf(o, "<span><svg width=\"12\" height=\"12\"><rect class=\"%s\" width=\"12\" "
			"height=\"12\"/></svg> %s</span>", legend[i], legend[i]);
	fputs("<span><svg width=\"12\" height=\"12\"><rect class=\"other err\" x=\"1\" y=\"1\" "
	      "width=\"10\" height=\"10\"/></svg> failed call</span></p>\n", o);
	if (s->dropped_calls)
		fprintf(o, "<p class=\"note\" id=\"dropped\">The timeline shows the first %zu calls; %"
			PRIu64 " later calls are counted in the tables but not drawn (the sink's max_calls). "
			"For every call of the run, write a chrome trace (<code>-o chrome:trace.json</code>, "
			"or <code>cudatracer report TRACE.jsonl -o chrome:trace.json</code>) and open it in "
			"Perfetto (ui.perfetto.dev).</p>\n", s->n_calls, s->dropped_calls);
	if (!s->n_calls) {
		fputs("<p class=\"note\">No calls to draw.</p>\n", o);
		return;
	}
	fprintf(o, "<svg id=\"timeline\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n", LABEL_W + PLOT_W + 50, h, LABEL_W + PLOT_W + 50, h);
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct thread *t = s->threads[i];

		fprintf(o, "<text class=\"thread\" x=\"4\" y=\"%.1f\" font-size=\"11\">", ROW_H * (double)i + 13);
		ct_html_str(o, t->comm);
		fprintf(o, " %u (pid %u)</text>\n", t->tid, t->pid);
	}
	time_axis(s, o, ROW_H * (double)s->n_threads + 4);
	for (size_t i = 0; i < s->n_calls; i++) {
		const struct call *c = &s->calls[i];
		double x = xpos(s, c->start);
		double w = xpos(s, c->start + c->dur) - x;

		/* the shortest call still gets a visible sliver */
		if (w < 1)
			w = 1;
		fprintf(o, "<rect class=\"%s%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\">"
			"<title>", call_class(c->flags), c->error ? " err" : "", x, ROW_H * c->thread + 2, w,
			ROW_H - 4);
		ct_html_str(o, s->names[c->name]);
		fprintf(o, " %" PRIu64 " ns%s</title></rect>\n", c->dur, c->error ? " (error)" : "");
	}
	fputs("</svg>\n", o);
}

static int html_close(void *ctx, const struct ct_run_stats *st)
{
	struct html_ctx *s = ctx;
	FILE *o = s->c.out;
	int err;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'\">\n<title>", o);
	ct_html_str(o, s->title);
	fprintf(o, "</title>\n<style>%s</style></head><body>\n<h1>", style);
	ct_html_str(o, s->title);
	fprintf(o, "</h1>\n<p id=\"totals\">%" PRIu64 " call%s from %zu process%s, %zu thread%s, over "
		"%.3f ms", s->stats.calls, CT_S(s->stats.calls), s->stats.procs.n + (size_t)s->stats.n_ended,
		ct_plural(s->stats.procs.n + (size_t)s->stats.n_ended, "", "es"), s->n_threads, CT_S(s->n_threads),
		s->any ? (double)(s->t1 - s->t0) / 1e6 : 0.0);
	if (st)
		fprintf(o, "; records lost: <span id=\"lost\">%" PRIu64 "</span>", st->lost);
	fputs(".</p>\n", o);
	err = page_apis(s, o);
	if (!err)
		err = page_gpu(s, o);
	if (!err)
		err = page_analysis(s, o);
	if (!err)
		err = page_memory(s, o);
	if (!err)
		page_timeline(s, o);
	fprintf(o, "<p class=\"note\">Written by cudatracer %s.</p>\n</body></html>\n", CT_VERSION);
	if (fflush(o) && !err)
		err = -errno;
	return err;
}

/* A space whose device memory is drawn: the plot points to it. */
static bool space_drawn(void *arg, const struct ct_mem_space *sp)
{
	return ct_u64map_get(&((struct html_ctx *)arg)->series_idx, (uintptr_t)sp) != NULL;
}

/* Past keep_exited, the oldest ended process's calls join the ended row;
 * its memory goes unless the plot draws it. */
static void html_proc_exit(void *ctx, uint32_t pid, uint64_t ts_ns)
{
	struct html_ctx *s = ctx;
	uint32_t fold = ct_exited_end(&s->exited, s->keep_exited, &s->stats, &s->kern, &s->gpu, pid);

	(void)ts_ns;
	if (fold)
		ct_memtrack_drop_pid_but(&s->mem, fold, space_drawn, s);
}

static void html_destroy(void *ctx)
{
	struct html_ctx *s = ctx;

	ct_apistats_free(&s->stats);
	ct_kernstats_free(&s->kern);
	ct_gpustats_free(&s->gpu);
	ct_memtrack_free(&s->mem);
	ct_exited_free(&s->exited);
	ct_an_sink_free(&s->an);
	free(s->calls);
	for (size_t i = 0; i < s->n_threads; i++)
		free(s->threads[i]);
	free(s->threads);
	ct_u64map_free(&s->thread_idx);
	for (size_t i = 0; i < s->n_names; i++)
		free(s->names[i]);
	free(s->names);
	ct_u64map_free(&s->name_idx);
	for (size_t i = 0; i < s->n_series; i++) {
		free(s->series[i]->p);
		free(s->series[i]);
	}
	free(s->series);
	ct_u64map_free(&s->series_idx);
}

const struct ct_sink_ops ct_sink_html = {
	.type = "html",
	.where_help = "a self-contained HTML report",
	.file_ext = "html",
	.help = "A self-contained HTML report: summary tables, memory plot, per-thread timeline",
	.keys = html_keys,
	.ctx_size = sizeof(struct html_ctx),
	.event = html_event,
	.close = html_close,
	.destroy = html_destroy,
	.gpu = html_gpu,
	.proc_exit = html_proc_exit,
};
