// SPDX-License-Identifier: MIT
/* text: one aligned line per call, for people. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cudatracer/plugin.h>
#include "sinks/sink.h"
#include "sinks/stackfmt.h"
#include "sinks/sinkio.h"
#include "util/strbuf.h"

struct text_sink {
	struct ct_sink_common c;
	bool show_header;
	bool wrote_header;
	int result_w; /* the longest result name of the plugins seen so far */
	const struct ct_plugin *seen[8]; /* ... those plugins, measured once each */
	struct ct_sb val; /* one field's text, reused */
};

static const struct ct_key text_keys[] = {
	{ "header", CT_KEY_BOOL, "true", offsetof(struct text_sink, show_header),
	  "Print a column header first", NULL },
	{ 0 },
};

/* Columns: each holds one thing in one unit, durations in us with ns digits. */
#define COMM_W 16
#define PID_W 7
#define DUR_W 11
#define DEV_W 3 /* the thread's current device; "-" while none of its calls said */
#define RESULT_MIN_W 11 /* "cudaSuccess", and room for "(entry)" */

/* The result column fits every name the event's runtime can return: measured
 * from its error table the first time one of its calls is seen. */
static void measure_results(struct text_sink *s, const struct ct_plugin *p)
{
	size_t i = 0;

	if (!p)
		return;
	for (; i < sizeof(s->seen) / sizeof(s->seen[0]) && s->seen[i]; i++)
		if (s->seen[i] == p)
			return;
	if (i < sizeof(s->seen) / sizeof(s->seen[0]))
		s->seen[i] = p;
	for (size_t k = 0; p->errors && k < p->errors->n; k++) {
		int len = p->errors->v[k].name ? (int)strlen(p->errors->v[k].name) : 0;

		if (len > s->result_w)
			s->result_w = len;
	}
}

/* The column header, once, before the first line; the result column as wide
 * as the longest result name of the runtimes seen so far. */
static void header(struct text_sink *s, const struct ct_plugin *p)
{
	if (s->result_w < RESULT_MIN_W)
		s->result_w = RESULT_MIN_W;
	measure_results(s, p);
	if (s->show_header && !s->wrote_header)
		fprintf(s->c.out, "%-15s %-*s %*s %*s %-*s %*s  %-*s  %s\n", "TIME", COMM_W, "COMM", PID_W, "PID",
			PID_W, "TID", DEV_W, "DEV", DUR_W, "DUR(us)", s->result_w, "RESULT", "CALL");
	s->wrote_header = true;
}

/* Microseconds with their nanosecond digits; "-" for a call recorded at entry. */
static void dur_text(char *buf, size_t n, bool entry_only, uint64_t ns)
{
	if (entry_only)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
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
	char when[32], comm[CT_COMM_TEXT], res[64], dur[32], dev[16], frame[1024];

	header(s, ev->plugin);
	clock_text(when, sizeof(when), ev->ts_ns);
	if (ev->device >= 0)
		snprintf(dev, sizeof(dev), "%d", ev->device);
	else
		snprintf(dev, sizeof(dev), "-");
	dur_text(dur, sizeof(dur), ev->entry_only, ev->dur_ns);
	if (ev->entry_only)
		snprintf(res, sizeof(res), "(entry)");
	else if (!ev->has_result)
		snprintf(res, sizeof(res), "-");
	else if (ev->result_name)
		snprintf(res, sizeof(res), "%s", ev->result_name);
	else
		snprintf(res, sizeof(res), "%" PRId64 "(unknown)", ev->result);
	/* Indent by depth, capped: a broken record's depth must not print gigabytes. */
	fprintf(out, "%-15s %-*s %*u %*u %-*s %*s  %-*s  %*s%s(", when, COMM_W, ct_text_comm(comm, ev->comm), PID_W,
		ev->pid, PID_W, ev->tid, DEV_W, dev, DUR_W, dur, s->result_w, res,
		(int)(2 * (ev->depth < 32 ? ev->depth : 32)), "", ev->api->symbol);
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
	/* --stacks: the frames under the call, indented past its columns: the
	 * native ones, then the Python ones (their callers), innermost first. */
	for (uint32_t i = 0; ev->stack && i < ev->stack->n; i++) {
		ct_frame_text(&ev->stack->frames[i], frame, sizeof(frame));
		fprintf(out, "%*s%s\n", 20, "", frame);
	}
	for (uint32_t i = 0; ev->py_stack && i < ev->py_stack->n; i++) {
		ct_py_frame_text(&ev->py_stack->f[i], frame, sizeof(frame));
		fprintf(out, "%*s%s\n", 20, "", frame);
	}
	if (ev->py_stack && ev->py_stack->truncated)
		fprintf(out, "%*s[truncated]\n", 20, "");
	return 0;
}

/* GPU activity: the device's work, as a line of its own under the same columns. */
/* A string the traced program chose, escaped (ct_w_text_str), to the sink's file. */
static int text_put_esc(struct text_sink *s, const char *str)
{
	s->val.len = 0;
	if (!ct_sb_room(&s->val, 4 * strlen(str) + 1))
		return -ENOMEM;
	ct_sb_text_str(&s->val, str);
	fwrite(s->val.p, 1, s->val.len, s->c.out);
	return 0;
}

static int text_gpu(void *ctx, const struct ct_gpu_event *g)
{
	struct text_sink *s = ctx;
	char when[32], dev[16], dur[32], what[96];

	header(s, NULL);
	clock_text(when, sizeof(when), g->ts_ns);
	snprintf(dev, sizeof(dev), "%u", g->device);
	dur_text(dur, sizeof(dur), false, g->dur_ns);
	if (g->kind == CT_GPU_KERNEL)
		snprintf(what, sizeof(what), "kernel %s", g->name ? "" : "(unnamed)");
	else if (g->kind == CT_GPU_MEMCPY)
		snprintf(what, sizeof(what), "memcpy %s %" PRIu64 " bytes", g->copy_kind, g->bytes);
	else
		snprintf(what, sizeof(what), "memset %" PRIu64 " bytes", g->bytes);
	/* COMM, PID and TID say where it ran: on the GPU, in a stream. */
	fprintf(s->c.out, "%-15s %-*s %*u %*s %-*s %*s  %-*s  [stream %u] %s", when, COMM_W, "[gpu]", PID_W,
		g->pid, PID_W, "-", DEV_W, dev, DUR_W, dur, s->result_w, "-", g->stream, what);
	/* The kernel's name and its launch call's are the process's: escaped. */
	if (g->kind == CT_GPU_KERNEL && g->name && text_put_esc(s, g->name))
		return -ENOMEM;
	if (g->has_launch) {
		fputs(" [launched by ", s->c.out);
		if (text_put_esc(s, g->launch_api ? g->launch_api : "?"))
			return -ENOMEM;
		fprintf(s->c.out, " in pid %u tid %u]", g->pid, g->launch_tid);
	}
	if (g->graph_node) {
		fprintf(s->c.out, " [graph %u node %" PRIu64, g->graph_id, g->graph_node);
		if (g->has_capture) {
			fputs(", captured by ", s->c.out);
			if (text_put_esc(s, g->capture_api ? g->capture_api : "?"))
				return -ENOMEM;
			fprintf(s->c.out, " in tid %u", g->capture_tid);
		}
		fputc(']', s->c.out);
	}
	fputc('\n', s->c.out);
	return 0;
}

/* An NVTX range (written when it ends) or mark, under the same columns:
 * "range NAME [domain D] [depth N] [open]"; names escaped. */
static int text_nvtx(void *ctx, const struct ct_nvtx_event *r)
{
	struct text_sink *s = ctx;
	char when[32], dur[32];

	header(s, NULL);
	clock_text(when, sizeof(when), r->ts_ns);
	if (r->mark)
		snprintf(dur, sizeof(dur), "-");
	else
		dur_text(dur, sizeof(dur), false, r->end_mono_ns - r->mono_ns);
	fprintf(s->c.out, "%-15s %-*s %*u %*u %-*s %*s  %-*s  %s ", when, COMM_W, "[nvtx]", PID_W, r->pid, PID_W,
		r->tid, DEV_W, "-", DUR_W, dur, s->result_w, "-", r->mark ? "mark" : "range");
	if (text_put_esc(s, r->name))
		return -ENOMEM;
	if (r->domain) {
		fputs(" [domain ", s->c.out);
		if (text_put_esc(s, r->domain))
			return -ENOMEM;
		fputc(']', s->c.out);
	}
	if (r->depth >= 0 && !r->mark)
		fprintf(s->c.out, " [depth %d]", r->depth);
	fputs(r->open ? " [open]\n" : "\n", s->c.out);
	return 0;
}

static void text_destroy(void *ctx)
{
	struct text_sink *s = ctx;

	ct_sb_free(&s->val);
}

const struct ct_sink_ops ct_sink_text = {
	.type = "text",
	.where_help = "one aligned line per call (the default; - is stdout)",
	.appendable = true,
	.help = "One aligned line per call, under a header: time, command, pid, tid, duration in us, result, "
		"API and decoded arguments",
	.keys = text_keys,
	.ctx_size = sizeof(struct text_sink),
	.event = text_event,
	.destroy = text_destroy,
	.gpu = text_gpu,
	.nvtx = text_nvtx,
};
