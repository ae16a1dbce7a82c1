// SPDX-License-Identifier: MIT
/* text: one aligned line per call, for people. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "sinks/sink.h"
#include "sinks/sinkio.h"
#include "util/strbuf.h"

struct text_sink {
	struct ct_sink_common c;
	bool show_header;
	bool wrote_header;
	struct ct_sb val; /* one field's text, reused */
};

static const struct ct_key text_keys[] = {
	{ "header", CT_KEY_BOOL, "true", offsetof(struct text_sink, show_header),
	  "Print a column header first", NULL },
	{ 0 },
};

static void fmt_dur(char *buf, size_t n, uint64_t ns)
{
	if (ns < 10000)
		snprintf(buf, n, "%" PRIu64 "ns", ns);
	else if (ns < 10000000)
		snprintf(buf, n, "%.1fus", ns / 1e3);
	else
		snprintf(buf, n, "%.1fms", ns / 1e6);
}

static void header(struct text_sink *s)
{
	if (s->show_header && !s->wrote_header)
		fprintf(s->c.out, "%-15s %-28s %-3s %-26s %s\n", "TIME", "COMM[PID/TID]", "DEV",
			"RESULT (DURATION)", "CALL");
	s->wrote_header = true;
}

static void clock_text(char *buf, size_t n, uint64_t ts_ns)
{
	time_t secs = ts_ns / 1000000000ull;
	struct tm tm;

	localtime_r(&secs, &tm);
	snprintf(buf, n, "%02d:%02d:%02d.%06u", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned)(ts_ns % 1000000000ull / 1000));
}

static int text_event(void *ctx, const struct ct_event *ev)
{
	struct text_sink *s = ctx;
	FILE *out = s->c.out;
	char when[32], comm[CT_COMM_TEXT], who[CT_COMM_TEXT + 24], res[96], dur[24], dev[16];

	header(s);
	clock_text(when, sizeof(when), ev->ts_ns);
	/* The thread's current device; "-" while none of its calls said. */
	if (ev->device >= 0)
		snprintf(dev, sizeof(dev), "%d", ev->device);
	else
		snprintf(dev, sizeof(dev), "-");
	snprintf(who, sizeof(who), "%s[%u/%u]", ct_text_comm(comm, ev->comm), ev->pid, ev->tid);
	fmt_dur(dur, sizeof(dur), ev->dur_ns);
	if (ev->entry_only)
		snprintf(res, sizeof(res), "(entry)");
	else if (!ev->has_result)
		snprintf(res, sizeof(res), "%s", dur);
	else if (ev->result_name)
		snprintf(res, sizeof(res), "%s %s", ev->result_name, dur);
	else
		snprintf(res, sizeof(res), "%" PRId64 "(unknown) %s", ev->result, dur);
	/* Indent by depth, capped: a broken record's depth must not print gigabytes. */
	fprintf(out, "%-15s %-28s %-3s %-26s %*s%s(", when, who, dev, res, (int)(2 * (ev->depth < 32 ? ev->depth : 32)), "",
		ev->api->symbol);
	for (int i = 0; i < ev->n_fields; i++) {
		s->val.len = 0;
		if (!ct_format_field_sb(&s->val, &ev->fields[i]))
			return -ENOMEM;
		fprintf(out, "%s%s=%.*s", i ? ", " : "", ev->fields[i].arg->name, (int)s->val.len, s->val.p);
	}
	fputc(')', out);
	if (ev->has_ret_handle)
		fprintf(out, " = 0x%" PRIx64, ev->ret_handle);
	if (ev->parent_api)
		fprintf(out, " [in %s]", ev->parent_api);
	fputc('\n', out);
	return 0;
}

/* GPU activity: the device's work, as a line of its own under the same columns. */
static int text_gpu(void *ctx, const struct ct_gpu_event *g)
{
	struct text_sink *s = ctx;
	char when[32], who[48], dev[16], dur[24], name[96];

	header(s);
	clock_text(when, sizeof(when), g->ts_ns);
	snprintf(who, sizeof(who), "[gpu %u stream %u]", g->device, g->stream);
	snprintf(dev, sizeof(dev), "%u", g->device);
	fmt_dur(dur, sizeof(dur), g->dur_ns);
	if (g->kind == CT_GPU_KERNEL)
		fprintf(s->c.out, "%-15s %-28s %-3s %-26s kernel %s", when, who, dev, dur,
			g->name ? "" : "(unnamed)");
	else
		fprintf(s->c.out, "%-15s %-28s %-3s %-26s %s %" PRIu64 " bytes", when, who, dev, dur,
			g->kind == CT_GPU_MEMCPY ? (snprintf(name, sizeof(name), "memcpy %s", g->copy_kind), name) :
						   "memset", g->bytes);
	if (g->kind == CT_GPU_KERNEL && g->name) {
		s->val.len = 0;
		if (!ct_sb_room(&s->val, 4 * strlen(g->name) + 1))
			return -ENOMEM;
		ct_sb_text_str(&s->val, g->name);
		fwrite(s->val.p, 1, s->val.len, s->c.out);
	}
	if (g->has_launch)
		fprintf(s->c.out, " [launched by %s in pid %u tid %u]", g->launch_api ? g->launch_api : "?",
			g->pid, g->launch_tid);
	fputc('\n', s->c.out);
	return 0;
}

static void text_destroy(void *ctx)
{
	struct text_sink *s = ctx;

	ct_sb_free(&s->val);
}

const struct ct_sink_ops ct_sink_text = {
	.type = "text",
	.help = "One aligned line per call: time, command, pid/tid, result and duration, API and decoded arguments",
	.keys = text_keys,
	.ctx_size = sizeof(struct text_sink),
	.event = text_event,
	.destroy = text_destroy,
	.gpu = text_gpu,
};
