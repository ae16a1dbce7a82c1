// SPDX-License-Identifier: MIT
/*
 * memory sink: follows allocations and frees per process and per runtime
 * (through memtrack.c, which reads API flags and argument roles), and
 * reports what was never freed (size, pointer, API, thread, time) with
 * totals, the frees of pointers never seen allocated, and peak memory in
 * use per kind. Tracing may begin after a program allocated, so an unknown
 * free is reported with the time tracing began and not called a bug.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include "sinks/exited.h"
#include "sinks/memtrack.h"
#include "sinks/sink.h"
#include "sinks/sinkio.h"
#include "sinks/texttable.h"
#include "util/plural.h"

enum memory_format { MEMORY_TEXT, MEMORY_JSON };

static const char *const format_words[] = { [MEMORY_TEXT] = "text", [MEMORY_JSON] = "json", NULL };

struct memory_ctx {
	struct ct_sink_common c;
	enum memory_format format;
	uint64_t max_list;
	bool any;          /* json: a process was written */
	bool header;       /* text: the report's title was written */
	struct ct_memtrack mem;
	uint64_t keep_exited;
	struct ct_exited exited; /* json: the ended processes still in the document */
};

static const struct ct_key memory_keys[] = {
	{ "format", CT_KEY_CHOICE, "text", offsetof(struct memory_ctx, format),
	  "Text report or json", format_words },
	{ "max_list", CT_KEY_U64, "100", offsetof(struct memory_ctx, max_list),
	  "In the text report, allocations and unknown frees listed per process (all are counted)" },
	{ "keep_exited", CT_KEY_U64, "1000", offsetof(struct memory_ctx, keep_exited),
	  "json: processes that have ended kept for the document; past it the oldest are dropped "
	  "and counted (a daemon sees thousands); 0: keep all. Text names each at its exit" },
	{ 0 },
};

static void u64s(char *buf, size_t n, uint64_t v)
{
	snprintf(buf, n, "%" PRIu64, v);
}

/* --stacks: the never-freed allocations by the stack that made them, most bytes first. */
static int text_sites(struct memory_ctx *s, const struct ct_mem_space *sp)
{
	struct ct_mem_site *v;
	size_t n;
	int err = ct_memtrack_live_sites(sp, &v, &n);

	if (err)
		return err;
	if (n && (n > 1 || v[0].site))
		fprintf(s->c.out, "  never freed, by allocation site:\n");
	for (size_t i = 0; i < n && i < s->max_list && (n > 1 || v[0].site); i++) {
		fprintf(s->c.out, "    %" PRIu64 " bytes in %" PRIu64 " allocation%s %s\n", v[i].bytes, v[i].count,
			CT_S(v[i].count), v[i].site ? "at:" : "with no stack");
		if (v[i].site)
			ct_site_text(s->c.out, v[i].site, 0, ct_site_line_indented);
	}
	free(v);
	return 0;
}

static void json_sites(struct memory_ctx *s, const struct ct_mem_space *sp)
{
	FILE *out = s->c.out;
	struct ct_mem_site *v;
	size_t n;

	fputs(",\"unfreed_sites\":[", out);
	if (!ct_memtrack_live_sites(sp, &v, &n)) {
		for (size_t i = 0; i < n; i++) {
			fprintf(out, "%s{\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 ",", i ? "," : "",
				v[i].count, v[i].bytes);
			if (!v[i].site) {
				fputs("\"stack\":null}", out);
				continue;
			}
			ct_site_json(out, v[i].site, 0);
			fputc('}', out);
		}
		free(v);
	}
	fputc(']', out);
}

static int text_space(struct memory_ctx *s, const struct ct_mem_space *sp)
{
	FILE *out = s->c.out;
	struct ct_table t = { 6, "rllllr" };
	static const char *const head[] = { "size", "pointer", "kind", "api", "time", "tid" };
	struct ct_alloc **live;
	uint64_t live_bytes = 0;
	char when[40], comm[CT_COMM_TEXT];
	size_t n;
	int err;

	err = ct_memtrack_live(sp, &live, &n);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++)
		live_bytes += live[i]->size;
	ct_fmt_time(when, sizeof(when), sp->began_ns);
	fprintf(out, "\npid %u (%s), runtime %s, traced since %s\n", sp->pid, ct_text_comm(comm, sp->comm),
		sp->plugin, when);
	fprintf(out, "  allocations: %" PRIu64 " (%" PRIu64 " bytes), frees: %" PRIu64 " (%" PRIu64
		" bytes)\n", sp->allocs, sp->alloc_bytes, sp->frees, sp->freed_bytes);
	fputs("  peak in use:", out);
	for (unsigned k = 0; k < CT_MEM_KINDS; k++)
		fprintf(out, "%s %s %" PRIu64 " bytes", k ? "," : "", ct_mem_kind_name(k), sp->peak[k]);
	fputc('\n', out);
	if (sp->unreadable)
		fprintf(out, "  allocations whose pointer could not be read: %" PRIu64 "\n", sp->unreadable);
	if (sp->replaced)
		fprintf(out, "  pointers handed out again while live (free not seen): %" PRIu64 "\n",
			sp->replaced);
	if (sp->retains)
		fprintf(out, "  retains of live allocations: %" PRIu64 " (each is freed by its last release)\n",
			sp->retains);
	fprintf(out, "  never freed: %zu allocations, %" PRIu64 " bytes\n", n, live_bytes);
	err = n ? ct_table_row(&t, head) : 0;
	for (size_t i = 0; i < n && i < s->max_list && !err; i++) {
		char c[4][40];
		const char *row[6] = { c[0], c[1], ct_mem_kind_name(live[i]->kind), live[i]->api, c[2], c[3] };

		u64s(c[0], sizeof(c[0]), live[i]->size);
		snprintf(c[1], sizeof(c[1]), "0x%" PRIx64, live[i]->ptr);
		ct_fmt_time(c[2], sizeof(c[2]), live[i]->ts_ns);
		snprintf(c[3], sizeof(c[3]), "%u", live[i]->tid);
		err = ct_table_row(&t, row);
	}
	if (!err) {
		ct_table_print(out, &t, 4);
		if (n > s->max_list)
			fprintf(out, "    ... and %zu more\n", n - (size_t)s->max_list);
	}
	ct_table_free(&t);
	free(live);
	if (!err)
		err = text_sites(s, sp);
	if (err || !sp->unknown)
		return err;

	fprintf(out, "  frees of pointers never seen allocated: %" PRIu64 " (tracing began %s; memory "
		"allocated before then cannot be told from a bad free)\n", sp->unknown, when);
	t = (struct ct_table){ 4, "llll" };
	{
		static const char *const uhead[] = { "pointer", "api", "time", "tid" };

		err = ct_table_row(&t, uhead);
	}
	for (uint64_t i = 0; i < sp->unknown && i < CT_MEM_UNKNOWN_KEEP && i < s->max_list && !err; i++) {
		const struct ct_alloc *u = &sp->unknown_list[i];
		char c[3][40];
		const char *row[4] = { c[0], u->api, c[1], c[2] };

		snprintf(c[0], sizeof(c[0]), "0x%" PRIx64, u->ptr);
		ct_fmt_time(c[1], sizeof(c[1]), u->ts_ns);
		snprintf(c[2], sizeof(c[2]), "%u", u->tid);
		err = ct_table_row(&t, row);
	}
	if (!err) {
		ct_table_print(out, &t, 4);
		if (t.rows - 1 < sp->unknown)
			fprintf(out, "    ... and %" PRIu64 " more\n", sp->unknown - (t.rows - 1));
	}
	ct_table_free(&t);
	return err;
}

static void json_kinds(FILE *out, const char *key, const uint64_t *v)
{
	fprintf(out, ",\"%s\":{", key);
	for (unsigned k = 0; k < CT_MEM_KINDS; k++)
		fprintf(out, "%s\"%s\":%" PRIu64, k ? "," : "", ct_mem_kind_name(k), v[k]);
	fputc('}', out);
}

static int json_space(struct memory_ctx *s, const struct ct_mem_space *sp)
{
	FILE *out = s->c.out;
	struct ct_alloc **live;
	uint64_t live_bytes = 0;
	size_t n;
	int err = ct_memtrack_live(sp, &live, &n);

	if (err)
		return err;
	for (size_t i = 0; i < n; i++)
		live_bytes += live[i]->size;
	fprintf(out, "%s{\"pid\":%u,\"comm\":", s->any ? "," : "", sp->pid);
	s->any = true;
	ct_json_str(out, sp->comm);
	fputs(",\"runtime\":", out);
	ct_json_str(out, sp->plugin);
	fprintf(out, ",\"traced_since_ns\":%" PRIu64 ",\"allocs\":%" PRIu64 ",\"alloc_bytes\":%" PRIu64
		",\"frees\":%" PRIu64 ",\"freed_bytes\":%" PRIu64 ",\"unreadable\":%" PRIu64
		",\"replaced\":%" PRIu64 ",\"retains\":%" PRIu64, sp->began_ns, sp->allocs, sp->alloc_bytes,
		sp->frees, sp->freed_bytes, sp->unreadable, sp->replaced, sp->retains);
	json_kinds(out, "peak", sp->peak);
	json_kinds(out, "in_use", sp->in_use);
	fprintf(out, ",\"unfreed_count\":%zu,\"unfreed_bytes\":%" PRIu64 ",\"unfreed\":[", n, live_bytes);
	for (size_t i = 0; i < n; i++) {
		const struct ct_alloc *a = live[i];

		fprintf(out, "%s{\"ptr\":\"0x%" PRIx64 "\",\"size\":%" PRIu64 ",\"kind\":\"%s\",\"api\":",
			i ? "," : "", a->ptr, a->size, ct_mem_kind_name(a->kind));
		ct_json_str(out, a->api);
		fprintf(out, ",\"tid\":%u,\"ts_ns\":%" PRIu64 "}", a->tid, a->ts_ns);
	}
	fputc(']', out);
	json_sites(s, sp);
	fprintf(out, ",\"unknown_frees\":%" PRIu64 ",\"unknown_free_list\":[", sp->unknown);
	for (uint64_t i = 0; i < sp->unknown && i < CT_MEM_UNKNOWN_KEEP; i++) {
		const struct ct_alloc *u = &sp->unknown_list[i];

		fprintf(out, "%s{\"ptr\":\"0x%" PRIx64 "\",\"api\":", i ? "," : "", u->ptr);
		ct_json_str(out, u->api);
		fprintf(out, ",\"tid\":%u,\"ts_ns\":%" PRIu64 "}", u->tid, u->ts_ns);
	}
	fputs("]}", out);
	free(live);
	return 0;
}

static int memory_report(struct memory_ctx *s, const struct ct_run_stats *st)
{
	struct ct_mem_space **v;
	size_t n;
	int err = ct_memtrack_spaces(&s->mem, &v, &n);

	if (err)
		return err;
	if (s->format == MEMORY_JSON) {
		fputs("{\"processes\":[", s->c.out);
		for (size_t i = 0; i < n && !err; i++)
			err = json_space(s, v[i]);
		fputs("]", s->c.out);
		if (s->exited.folded)
			fprintf(s->c.out, ",\"ended_dropped\":%" PRIu64 ",\"keep_exited\":%" PRIu64,
				s->exited.folded, s->keep_exited);
		if (st)
			fprintf(s->c.out, ",\"lost\":%" PRIu64, st->lost);
		fputs("}\n", s->c.out);
	} else {
		if (!s->header)
			fputs("cudatracer memory report\n", s->c.out);
		if (!n && !s->header)
			fputs("\nno calls traced\n", s->c.out);
		s->header = true;
		for (size_t i = 0; i < n && !err; i++)
			err = text_space(s, v[i]);
		if (st && st->lost)
			fprintf(s->c.out, "\nwarning: %" PRIu64 " records lost: some allocations or frees "
				"were not seen\n", st->lost);
	}
	free(v);
	return err;
}

static int memory_event(void *ctx, const struct ct_event *ev)
{
	struct memory_ctx *s = ctx;

	return ct_memtrack_event(&s->mem, ev, NULL);
}

/* Text reports name a process's leaks when it exits; json keeps one document for the end. */
static void memory_proc_exit(void *ctx, uint32_t pid, uint64_t ts_ns)
{
	struct memory_ctx *s = ctx;
	struct ct_mem_space *v[64];
	size_t n;
	bool any = false;

	if (s->format == MEMORY_JSON) {
		uint32_t drop;

		if (!ct_memtrack_pid_spaces(&s->mem, pid, v))
			return; /* none of its calls reached this sink: nothing to keep apart */
		drop = ct_exited_note(&s->exited, pid, s->keep_exited);

		if (drop)
			ct_memtrack_drop_pid(&s->mem, drop);
		return;
	}
	n = ct_memtrack_pid_spaces(&s->mem, pid, v);
	for (size_t i = 0; i < n; i++) {
		if (!s->header)
			fputs("cudatracer memory report\n", s->c.out);
		s->header = true;
		text_space(s, v[i]);
		any = true;
	}
	if (any) {
		fprintf(s->c.out, "  (pid %u exited)\n", pid);
		ct_memtrack_drop_pid(&s->mem, pid);
	}
}

static int memory_close(void *ctx, const struct ct_run_stats *st)
{
	struct memory_ctx *s = ctx;
	int err = memory_report(s, st);

	if (fflush(s->c.out) && !err)
		err = -errno;
	return err;
}

static void memory_destroy(void *ctx)
{
	struct memory_ctx *s = ctx;

	ct_memtrack_free(&s->mem);
	ct_exited_free(&s->exited);
}

const struct ct_sink_ops ct_sink_memory = {
	.type = "memory",
	.where_help = "leaks, unknown frees and peak memory, per process",
	.help = "Allocations never freed, frees of unknown pointers, peak memory, per process",
	.keys = memory_keys,
	.ctx_size = sizeof(struct memory_ctx),
	.event = memory_event,
	.close = memory_close,
	.destroy = memory_destroy,
	.proc_exit = memory_proc_exit,
};
