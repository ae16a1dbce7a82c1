// SPDX-License-Identifier: MIT
/*
 * otlp sink: the metrics model (metrics.h) over OTLP/HTTP with protobuf
 * encoding, to any OpenTelemetry collector: POST ENDPOINT/v1/metrics, an
 * ExportMetricsServiceRequest every `interval` and at the end; counters as
 * cumulative monotonic sums, durations as histograms with explicit bounds,
 * memory as gauges; the resource says service.name = cudatracer and
 * host.name. As an option, spans (POST ENDPOINT/v1/traces) for the calls
 * that failed or were slower than a threshold. Encoded here from the field
 * numbers of opentelemetry-proto (v1), through the push sender (push.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include "sinks/endpoint.h"
#include "sinks/hangtext.h"
#include "sinks/metrics.h"
#include "sinks/push.h"
#include "sinks/sink.h"
#include "util/log.h"
#include "util/pbwriter.h"

enum { KIND_METRICS, KIND_TRACES };

struct ospan {
	const char *plugin, *api, *result_name;
	const char *hang; /* a hang's state (stuck, ended, gone); NULL: a call's span */
	int64_t result;
	bool is_error, has_result;
	uint32_t pid, tid;
	char comm[CT_COMM_LEN];
	uint64_t start_ns, dur_ns;
};

struct span_batch {
	size_t n;
	struct ospan v[];
};

struct otlp_ctx {
	struct ct_metric_sink ms; /* first: the shared callbacks take the context as one */
	char *endpoint;
	uint64_t interval_ns, timeout_ns;
	bool spans, span_errors;
	uint64_t span_slower_ns, max_spans;
	struct ct_push push;
	char url[2][1024];
	uint64_t next_ns;
	struct span_batch *batch;
	uint64_t spans_dropped;   /* past max_spans in one interval */
	uint64_t rng;             /* the sender's, for trace and span ids */
};

static const struct ct_key otlp_keys[] = {
	{ "endpoint", CT_KEY_STR, "http://127.0.0.1:4318", offsetof(struct otlp_ctx, endpoint),
	  "The collector's OTLP/HTTP base URL; /v1/metrics and /v1/traces are added", NULL, ct_check_url },
	{ "interval", CT_KEY_DUR, "15s", offsetof(struct otlp_ctx, interval_ns), "Export this often (and at the end)",
	  NULL, ct_check_positive },
	{ "timeout", CT_KEY_DUR, "10s", offsetof(struct otlp_ctx, timeout_ns),
	  "Give up on one request after this long; also how long the last export may take at the end", NULL,
	  ct_check_positive },
	CT_METRICS_KEYS(struct otlp_ctx, ms.mc),
	{ "spans", CT_KEY_BOOL, "false", offsetof(struct otlp_ctx, spans),
	  "Also export a span for each call that failed (span_errors) or took span_slower_than or more" },
	{ "span_slower_than", CT_KEY_DUR, "10ms", offsetof(struct otlp_ctx, span_slower_ns),
	  "With spans: calls this slow or slower get one; 0: none for being slow" },
	{ "span_errors", CT_KEY_BOOL, "true", offsetof(struct otlp_ctx, span_errors),
	  "With spans: calls that returned an error get one" },
	{ "max_spans", CT_KEY_U64, "4096", offsetof(struct otlp_ctx, max_spans),
	  "At most this many spans per interval; the rest are counted and dropped" },
	{ 0 },
};

/* ---- common pieces ---- */

static void kv_str(struct ct_pb *w, unsigned field, const char *key, const char *val)
{
	ct_pb_begin(w, field);
	ct_pb_str(w, 1, key);
	ct_pb_begin(w, 2);
	ct_pb_str(w, 1, val); /* AnyValue.string_value */
	ct_pb_end(w);
	ct_pb_end(w);
}

static void kv_int(struct ct_pb *w, unsigned field, const char *key, int64_t v)
{
	ct_pb_begin(w, field);
	ct_pb_str(w, 1, key);
	ct_pb_begin(w, 2);
	ct_pb_u64(w, 3, (uint64_t)v); /* AnyValue.int_value */
	ct_pb_end(w);
	ct_pb_end(w);
}

/* Resource (1) and the scope, which opens field `scope_list` (ScopeMetrics or ScopeSpans). */
static void resource_and_scope(struct ct_pb *w, const char *host, unsigned scope_list)
{
	ct_pb_begin(w, 1);
	kv_str(w, 1, "service.name", "cudatracer");
	kv_str(w, 1, "service.version", CT_VERSION);
	kv_str(w, 1, "host.name", host);
	ct_pb_end(w);
	ct_pb_begin(w, scope_list);
	ct_pb_begin(w, 1);
	ct_pb_str(w, 1, "cudatracer");
	ct_pb_str(w, 2, CT_VERSION);
	ct_pb_end(w);
}

/* ---- metrics ---- */

static void data_point_attrs(struct ct_pb *w, unsigned field, const struct ct_msnap *s, const struct ct_mseries *x)
{
	const char *names[CT_ML_N], *vals[CT_ML_N];
	char buf[CT_MLABEL_BUF];
	int n = ct_msnap_labels(s, x, names, vals, buf);

	for (int i = 0; i < n; i++)
		kv_str(w, field, names[i], vals[i]);
}

static void metric(struct ct_pb *w, const struct ct_msnap *s, int f)
{
	const struct ct_mfamily *fam = &ct_mfamilies[f];
	/* Metric.data: gauge = 5, sum = 7, histogram = 9 */
	static const unsigned data_field[] = { [CT_MT_COUNTER] = 7, [CT_MT_GAUGE] = 5, [CT_MT_HISTOGRAM] = 9 };

	ct_pb_begin(w, 2);
	ct_pb_str(w, 1, fam->name);
	ct_pb_str(w, 2, fam->help);
	ct_pb_str(w, 3, fam->unit);
	ct_pb_begin(w, data_field[fam->type]);
	for (size_t i = s->fam_start[f]; i < s->fam_start[f + 1]; i++) {
		const struct ct_mseries *x = &s->v[i];

		ct_pb_begin(w, 1);
		if (fam->type == CT_MT_HISTOGRAM) {
			const struct ct_mhist *h = &s->h[x->hist];

			data_point_attrs(w, 9, s, x);
			ct_pb_fixed64(w, 2, s->start_ns);
			ct_pb_fixed64(w, 3, s->time_ns);
			ct_pb_fixed64(w, 4, h->count);
			ct_pb_double(w, 5, (double)h->sum_ns / 1e9);
			ct_pb_begin(w, 6); /* bucket_counts, packed fixed64, one per bucket */
			for (int b = 0; b <= CT_MBUCKETS; b++)
				ct_pb_raw64(w, h->b[b]);
			ct_pb_end(w);
			ct_pb_begin(w, 7); /* explicit_bounds, packed double */
			for (int b = 0; b < CT_MBUCKETS; b++) {
				double d = (double)ct_mbucket_ns[b] / 1e9;
				uint64_t u;

				memcpy(&u, &d, sizeof(u));
				ct_pb_raw64(w, u);
			}
			ct_pb_end(w);
		} else {
			data_point_attrs(w, 7, s, x);
			ct_pb_fixed64(w, 2, s->start_ns);
			ct_pb_fixed64(w, 3, s->time_ns);
			ct_pb_fixed64(w, 6, x->v); /* as_int, sfixed64 */
		}
		ct_pb_end(w);
	}
	if (fam->type != CT_MT_GAUGE)
		ct_pb_u64(w, 2, 2); /* AGGREGATION_TEMPORALITY_CUMULATIVE */
	if (fam->type == CT_MT_COUNTER)
		ct_pb_u64(w, 3, 1); /* is_monotonic */
	ct_pb_end(w);
	ct_pb_end(w);
}

static void metrics_request(struct ct_pb *w, const struct ct_msnap *s)
{
	ct_pb_begin(w, 1); /* ResourceMetrics */
	resource_and_scope(w, s->host, 2);
	for (int f = 0; f < CT_MF_N; f++)
		if (s->fam_start[f] != s->fam_start[f + 1])
			metric(w, s, f);
	ct_pb_end(w); /* ScopeMetrics */
	ct_pb_end(w);
}

/* ---- spans ---- */

static uint64_t next_rand(uint64_t *x)
{
	/* xorshift64*: ids need to be unique, not secret */
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dull;
}

static void traces_request(struct ct_pb *w, struct otlp_ctx *o, const struct span_batch *b)
{
	ct_pb_begin(w, 1); /* ResourceSpans */
	resource_and_scope(w, o->ms.m.host, 2);
	for (size_t i = 0; i < b->n; i++) {
		const struct ospan *sp = &b->v[i];
		uint64_t id[3] = { next_rand(&o->rng), next_rand(&o->rng), next_rand(&o->rng) | 1 };

		ct_pb_begin(w, 2);
		ct_pb_bytes(w, 1, id, 16);      /* trace_id: each call its own trace */
		ct_pb_bytes(w, 2, &id[2], 8);   /* span_id */
		ct_pb_str(w, 5, sp->api);
		ct_pb_u64(w, 6, 1);             /* SPAN_KIND_INTERNAL */
		ct_pb_fixed64(w, 7, sp->start_ns);
		ct_pb_fixed64(w, 8, sp->start_ns + sp->dur_ns);
		kv_str(w, 9, "cudatracer.plugin", sp->plugin);
		kv_str(w, 9, "cudatracer.api", sp->api);
		kv_int(w, 9, "process.pid", sp->pid);
		kv_int(w, 9, "thread.id", sp->tid);
		kv_str(w, 9, "process.executable.name", sp->comm);
		if (sp->has_result) {
			kv_int(w, 9, "cudatracer.result_code", sp->result);
			if (sp->result_name)
				kv_str(w, 9, "cudatracer.result", sp->result_name);
		}
		if (sp->hang)
			kv_str(w, 9, "cudatracer.hang", sp->hang);
		if (sp->hang && !strcmp(sp->hang, ct_hang_state_name(CT_HANG_STUCK))) {
			ct_pb_begin(w, 15);
			ct_pb_str(w, 2, "in flight past tracer.hang_timeout");
			ct_pb_u64(w, 3, 2); /* STATUS_CODE_ERROR */
			ct_pb_end(w);
		} else if (sp->is_error) {
			ct_pb_begin(w, 15);
			ct_pb_str(w, 2, sp->result_name ? sp->result_name : "error");
			ct_pb_u64(w, 3, 2); /* STATUS_CODE_ERROR */
			ct_pb_end(w);
		}
		ct_pb_end(w);
	}
	ct_pb_end(w); /* ScopeSpans */
	ct_pb_end(w);
}

static bool otlp_encode(void *ud, const struct ct_push_item *it, struct ct_sb *body)
{
	struct ct_pb w = { 0 };
	bool ok;

	if (it->kind == KIND_METRICS)
		metrics_request(&w, it->obj);
	else
		traces_request(&w, ud, it->obj);
	ok = !w.oom;
	*body = w.b; /* the protobuf is the body: no compression */
	return ok;
}

static void release_obj(unsigned kind, void *obj)
{
	if (kind == KIND_METRICS)
		ct_msnap_put(obj);
	else
		free(obj);
}

static void otlp_release(void *ud, struct ct_push_item *it)
{
	(void)ud;
	release_obj(it->kind, it->obj);
	free(it);
}

static void offer(struct otlp_ctx *o, unsigned kind, void *obj, uint64_t samples)
{
	struct ct_push_item *it = calloc(1, sizeof(*it));

	if (!it) {
		release_obj(kind, obj);
		return;
	}
	*it = (struct ct_push_item){ .kind = kind, .cumulative = kind == KIND_METRICS, .samples = samples, .obj = obj };
	ct_push_offer(&o->push, it);
}

static void export_now(struct otlp_ctx *o, uint64_t now_ns)
{
	struct ct_msnap *s;

	if (o->batch && o->batch->n) {
		offer(o, KIND_TRACES, o->batch, o->batch->n);
		o->batch = NULL;
	}
	ct_metrics_stats(&o->ms.m, &o->ms.st);
	ct_metrics_set(&o->ms.m, CT_MF_EXPORT_FAILED, ct_push_failures(&o->push));
	s = ct_metrics_snapshot(&o->ms.m, now_ns);
	if (s)
		offer(o, KIND_METRICS, s, s->n);
}

/* ---- the sink ---- */

static const char *const otlp_headers[] = { "Content-Type: application/x-protobuf", NULL };

static int otlp_open(void *ctx)
{
	struct otlp_ctx *o = ctx;
	size_t n = o->endpoint ? strlen(o->endpoint) : 0;
	int err;

	while (n && o->endpoint[n - 1] == '/')
		n--;
	/* an http(s) URL of at most CT_URL_MAX bytes, interval and timeout more than 0: the config's checks */
	snprintf(o->url[KIND_METRICS], sizeof(o->url[0]), "%.*s/v1/metrics", (int)n, o->endpoint);
	snprintf(o->url[KIND_TRACES], sizeof(o->url[0]), "%.*s/v1/traces", (int)n, o->endpoint);
	if (getrandom(&o->rng, sizeof(o->rng), 0) != sizeof(o->rng) || !o->rng)
		o->rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL);
	err = ct_metric_sink_init(&o->ms);
	if (err)
		return err;
	o->push = (struct ct_push){
		.sink = o->ms.c.name, .type = "otlp", .urls = { o->url[0], o->url[1] },
		.units = { "data points", "spans" }, .headers = otlp_headers, .timeout_ns = o->timeout_ns,
		.max_queue = 8, .ud = o, .encode = otlp_encode, .release = otlp_release,
	};
	o->next_ns = o->ms.m.start_ns + o->interval_ns;
	return ct_push_start(&o->push);
}

static struct ospan *new_span(struct otlp_ctx *o, const struct ct_event *ev)
{
	struct ospan *sp;

	if (!o->batch) {
		o->batch = malloc(sizeof(*o->batch) + o->max_spans * sizeof(struct ospan));
		if (!o->batch) {
			o->spans_dropped++;
			return NULL;
		}
		o->batch->n = 0;
	}
	if (o->batch->n >= o->max_spans) {
		o->spans_dropped++;
		return NULL;
	}
	sp = &o->batch->v[o->batch->n++];
	*sp = (struct ospan){
		.plugin = ev->plugin->name, .api = ev->api ? ev->api->symbol : "unknown",
		.result_name = ev->result_name, .result = ev->result, .is_error = ev->is_error,
		.has_result = ev->has_result, .pid = ev->pid, .tid = ev->tid, .start_ns = ev->ts_ns,
		.dur_ns = ev->dur_ns,
	};
	snprintf(sp->comm, sizeof(sp->comm), "%s", ev->comm ? ev->comm : "");
	return sp;
}

static void take_span(struct otlp_ctx *o, const struct ct_event *ev)
{
	if ((ev->is_error && o->span_errors) ||
	    (!ev->entry_only && o->span_slower_ns && ev->dur_ns >= o->span_slower_ns))
		new_span(o, ev);
}

/* A hang, with spans: the call's span so far (stuck), or whole (ended, gone). */
static int otlp_hang(void *ctx, const struct ct_hang *h)
{
	struct otlp_ctx *o = ctx;
	struct ospan *sp = o->spans && o->max_spans ? new_span(o, h->call) : NULL;

	if (sp)
		sp->hang = ct_hang_state_name(h->state);
	return ct_metrics_hang(&o->ms.m, h);
}

static int otlp_event(void *ctx, const struct ct_event *ev)
{
	struct otlp_ctx *o = ctx;

	if (o->spans && o->max_spans)
		take_span(o, ev);
	return ct_metrics_event(&o->ms.m, ev);
}

static int otlp_tick(void *ctx, uint64_t now_ns)
{
	struct otlp_ctx *o = ctx;

	ct_metrics_expire(&o->ms.m, now_ns);
	if (now_ns >= o->next_ns) {
		o->next_ns = now_ns + o->interval_ns;
		export_now(o, now_ns);
	}
	return 0;
}

static int otlp_close(void *ctx, const struct ct_run_stats *st)
{
	struct otlp_ctx *o = ctx;

	o->ms.st = *st;
	export_now(o, st->end_ns);
	ct_push_stop(&o->push, o->timeout_ns);
	if (o->spans_dropped)
		ct_warn("sink '%s' (otlp): %llu spans were dropped: more than max_spans = %llu in one interval",
			o->ms.c.name, (unsigned long long)o->spans_dropped, (unsigned long long)o->max_spans);
	return ct_metric_sink_final(&o->ms, st->end_ns);
}

static void otlp_destroy(void *ctx)
{
	struct otlp_ctx *o = ctx;

	ct_push_stop(&o->push, 0);
	free(o->batch);
	o->batch = NULL;
	ct_metrics_free(&o->ms.m);
}

const struct ct_sink_ops ct_sink_otlp = {
	.type = "otlp",
	.where_key = "endpoint",
	.where_arg = "URL",
	.where_help = "export metrics to this OTLP/HTTP collector",
	.help = "Export the same metrics (and, as an option, spans of failed or slow calls) over OTLP/HTTP",
	.keys = otlp_keys,
	.ctx_size = sizeof(struct otlp_ctx),
	.open = otlp_open,
	.event = otlp_event,
	.tick = otlp_tick,
	.close = otlp_close,
	.destroy = otlp_destroy,
	.proc_exit = ct_metric_sink_proc_exit,
	.hang = otlp_hang,
	.totals = ct_metric_sink_totals,
	.stats = ct_metric_sink_stats,
};
