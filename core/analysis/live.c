// SPDX-License-Identifier: MIT
/*
 * The analysis fed from a live run's events (the sinks' event and gpu
 * callbacks), as ingest.c feeds it from a trace's lines: the same record,
 * so both give the same answer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cudatracer/event.h>
#include "analysis/analysis.h"
#include "analysis/apiclass.h"
#include "decode/decode.h"
#include "sinks/sink.h"

/* By name (apiclass.c), else by what the plugin's table says the API does. */
static enum ct_api_class class_of(struct ct_an *a, const struct ct_event *ev)
{
	enum ct_api_class c = ev->api ? (enum ct_api_class)ct_an_api_class(a, ev->api->symbol) : CT_CLASS_OTHER;
	uint32_t fl = ev->api ? ev->api->flags : 0;

	if (c != CT_CLASS_OTHER)
		return c;
	if (fl & CT_API_SYNC)
		return CT_CLASS_SYNC;
	if (fl & CT_API_COLLECTIVE)
		return CT_CLASS_COLLECTIVE;
	if (fl & CT_API_LAUNCH)
		return CT_CLASS_LAUNCH;
	return fl & CT_API_MOVES_BYTES ? CT_CLASS_ASYNC_COPY : CT_CLASS_OTHER;
}

int ct_an_event(struct ct_an *a, const struct ct_event *ev)
{
	const struct ct_field *kf = ct_event_role(ev, CT_ROLE_KERNEL);
	char site[1024];
	struct ct_an_rec r = {
		.pid = ev->pid, .tid = ev->tid, .ts = ev->ts_ns, .end = ev->ts_ns + (ev->entry_only ? 0 : ev->dur_ns),
		.api = ev->api && ev->api->symbol ? ev->api->symbol : "?",
		.kname = kf && kf->valid ? kf->str : NULL,
		.site = ct_event_site(ev, site, sizeof(site)),
	};

	/* A driver call inside a runtime call is that call again. */
	if (ev->parent_api)
		return 0;
	r.cls = (uint8_t)(class_of(a, ev) + 1);
	a->seen.calls++;
	a->seen.py_calls += ev->py_stack != NULL;
	a->seen.stack_calls += ev->stack != NULL;
	if (a->o.py_function && ev->py_stack)
		for (uint32_t i = 0; i < ev->py_stack->n && !r.in_fn; i++)
			if (ev->py_stack->f[i].function && !strcmp(ev->py_stack->f[i].function, a->o.py_function))
				r.in_fn = true, r.fn_line = (uint32_t)ev->py_stack->f[i].line;
	return ct_an_call(a, &r);
}

int ct_an_gpu_event(struct ct_an *a, const struct ct_gpu_event *g)
{
	struct ct_an_rec r = {
		.pid = g->pid, .ts = g->ts_ns, .end = g->ts_ns + g->dur_ns, .name = g->name, .bytes = g->bytes,
		.op = g->kind == CT_GPU_MEMCPY ? CT_AN_MEMCPY : g->kind == CT_GPU_MEMSET ? CT_AN_MEMSET : CT_AN_KERNEL,
		.corr_tid = g->has_launch ? g->launch_tid : 0, .corr_ts = g->has_launch ? g->launch_ts_ns : 0,
		.pageable = (g->src_kind && !strcmp(g->src_kind, "pageable")) ||
			    (g->dst_kind && !strcmp(g->dst_kind, "pageable")),
		.graph_id = g->graph_id, .graph_node = g->graph_node,
		.capture_api = g->has_capture ? g->capture_api : NULL, .site = g->has_capture ? g->capture_site : NULL,
	};

	a->seen.gpu++;
	return ct_an_gpu(a, &r);
}

/* What the run (config [analysis]) or `cudatracer report` asks of the sinks'
 * analysis; its strings are copies, so a daemon's reload may free the config. */
static struct ct_an_opts sink_opts = CT_AN_OPTS_DEFAULT;
static bool sink_from_start;
static char *sink_pattern, *sink_function;

static int keep(char **dst, const char *src)
{
	char *c = src ? strdup(src) : NULL;

	if (src && !c)
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

int ct_an_sink_configure(const struct ct_an_opts *o, bool from_start)
{
	if (keep(&sink_pattern, o->range_pattern) || keep(&sink_function, o->py_function))
		return -ENOMEM;
	sink_opts = *o;
	sink_opts.range_pattern = sink_pattern;
	sink_opts.py_function = sink_function;
	sink_from_start = from_start;
	return 0;
}

/* Every sink's analysis running, for what reaches no sink callback: a
 * trace's NVTX range lines and its meta line. */
static struct ct_an_sink *sinks_on;
static bool trace_meta;
static int64_t trace_version = -1;

static int sink_start(struct ct_an_sink *s)
{
	int err = s->on ? 0 : ct_an_init(&s->an, &sink_opts);

	if (!err && !s->on) {
		s->on = true;
		s->an.seen.meta = trace_meta;
		s->an.seen.version = trace_version;
		s->next = sinks_on;
		sinks_on = s;
	}
	return err;
}

void ct_an_sinks_trace(bool meta, int64_t version)
{
	trace_meta = meta;
	trace_version = version;
}

int ct_an_sinks_range(uint32_t pid, uint64_t start, uint64_t end, const char *name)
{
	int err = 0;

	for (struct ct_an_sink *s = sinks_on; s && !err; s = s->next) {
		s->an.seen.ranges++;
		err = ct_an_range(&s->an, pid, start, end, name);
	}
	return err;
}

int ct_an_sink_event(struct ct_an_sink *s, const struct ct_event *ev)
{
	int err = !s->on && sink_from_start ? sink_start(s) : 0;

	return err || !s->on ? err : ct_an_event(&s->an, ev);
}

int ct_an_sink_gpu(struct ct_an_sink *s, const struct ct_gpu_event *g)
{
	int err = sink_start(s);

	return err ? err : ct_an_gpu_event(&s->an, g);
}

bool ct_an_sink_has_answer(const struct ct_an_sink *s)
{
	return s->on && s->an.seen.gpu;
}

void ct_an_sink_free(struct ct_an_sink *s)
{
	for (struct ct_an_sink **pp = &sinks_on; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	if (s->on)
		ct_an_free(&s->an);
	s->on = false;
}
