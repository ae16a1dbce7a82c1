// SPDX-License-Identifier: MIT
/*
 * remote_write sink: pushes the metrics model (metrics.h) to a Prometheus
 * remote-write endpoint every `interval` and once more at the end.
 * Remote write 1.0: a WriteRequest (protobuf, encoded here from the spec:
 * timeseries = 1 {labels = 1 {name = 1, value = 2}, samples = 2 {value = 1
 * double, timestamp = 2 int64 ms}}, metadata = 3 {type = 1,
 * metric_family_name = 2, help = 4, unit = 5}), snappy's block format,
 * POSTed with Content-Encoding: snappy and X-Prometheus-Remote-Write-Version:
 * 0.1.0 by the push sender (push.h), which never blocks the reader.
 * Histograms go as the classic _bucket{le}, _sum and _count series.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sinks/endpoint.h"
#include "sinks/metrics.h"
#include "sinks/netlibs.h"
#include "sinks/push.h"
#include "sinks/sink.h"
#include "util/log.h"
#include "util/pbwriter.h"

struct rw_ctx {
	struct ct_metric_sink ms; /* first: the shared callbacks take the context as one */
	char *url;
	uint64_t interval_ns, timeout_ns;
	struct ct_push push;
	uint64_t next_ns, last_ms;
};

static const struct ct_key rw_keys[] = {
	{ "url", CT_KEY_STR, NULL, offsetof(struct rw_ctx, url),
	  "The remote-write endpoint, e.g. http://127.0.0.1:9090/api/v1/write (required)", NULL, ct_check_url, true,
	  "http://127.0.0.1:9090/api/v1/write" },
	{ "interval", CT_KEY_DUR, "15s", offsetof(struct rw_ctx, interval_ns), "Push this often (and at the end)",
	  NULL, ct_check_positive },
	{ "timeout", CT_KEY_DUR, "10s", offsetof(struct rw_ctx, timeout_ns),
	  "Give up on one request after this long; also how long the last push may take at the end", NULL,
	  ct_check_positive },
	CT_METRICS_KEYS(struct rw_ctx, ms.mc),
	{ 0 },
};

/* One time series: labels (with __name__, sorted by name) and one sample. */
static void series(struct ct_pb *w, const char *name, const char *suffix, int n, const char *const *names,
		   const char *const *vals, const char *le, double v, int64_t ms)
{
	char full[128];
	bool le_done = !le;

	snprintf(full, sizeof(full), "%s%s", name, suffix);
	ct_pb_begin(w, 1);
	ct_pb_begin(w, 1);
	ct_pb_str(w, 1, "__name__");
	ct_pb_str(w, 2, full);
	ct_pb_end(w);
	for (int i = 0; i <= n; i++) {
		if (!le_done && (i == n || strcmp(names[i], "le") > 0)) {
			ct_pb_begin(w, 1);
			ct_pb_str(w, 1, "le");
			ct_pb_str(w, 2, le);
			ct_pb_end(w);
			le_done = true;
		}
		if (i == n)
			break;
		ct_pb_begin(w, 1);
		ct_pb_str(w, 1, names[i]);
		ct_pb_str(w, 2, vals[i]);
		ct_pb_end(w);
	}
	ct_pb_begin(w, 2);
	ct_pb_double(w, 1, v);
	ct_pb_u64(w, 2, (uint64_t)ms);
	ct_pb_end(w);
	ct_pb_end(w);
}

static void write_request(struct ct_pb *w, const struct ct_msnap *s)
{
	/* MetricType: COUNTER = 1, GAUGE = 2, HISTOGRAM = 3 */
	static const uint64_t types[] = { 1, 2, 3 };
	int64_t ms = (int64_t)(s->time_ns / 1000000);

	for (int f = 0; f < CT_MF_N; f++) {
		const struct ct_mfamily *fam = &ct_mfamilies[f];

		for (size_t i = s->fam_start[f]; i < s->fam_start[f + 1]; i++) {
			const struct ct_mseries *x = &s->v[i];
			const char *names[CT_ML_N], *vals[CT_ML_N];
			char buf[CT_MLABEL_BUF];
			int n = ct_msnap_labels(s, x, names, vals, buf);
			const struct ct_mhist *h = &s->h[x->hist];
			uint64_t cum = 0;

			if (fam->type != CT_MT_HISTOGRAM) {
				series(w, fam->name, "", n, names, vals, NULL, (double)x->v, ms);
				continue;
			}
			for (int b = 0; b <= CT_MBUCKETS; b++) {
				cum += h->b[b];
				series(w, fam->name, "_bucket", n, names, vals,
				       b < CT_MBUCKETS ? ct_mbucket_le[b] : "+Inf", (double)cum, ms);
			}
			series(w, fam->name, "_sum", n, names, vals, NULL, (double)h->sum_ns / 1e9, ms);
			series(w, fam->name, "_count", n, names, vals, NULL, (double)h->count, ms);
		}
	}
	for (int f = 0; f < CT_MF_N; f++) {
		if (s->fam_start[f] == s->fam_start[f + 1])
			continue;
		ct_pb_begin(w, 3);
		ct_pb_u64(w, 1, types[ct_mfamilies[f].type]);
		ct_pb_str(w, 2, ct_mfamilies[f].name);
		ct_pb_str(w, 4, ct_mfamilies[f].help);
		ct_pb_str(w, 5, ct_mfamilies[f].unit);
		ct_pb_end(w);
	}
}

static bool rw_encode(void *ud, const struct ct_push_item *it, struct ct_sb *body)
{
	struct ct_pb w = { 0 };
	size_t n;
	bool ok;

	(void)ud;
	write_request(&w, it->obj);
	ok = !w.oom;
	n = ct_snappy.max_compressed_length(w.b.len);
	ok = ok && ct_sb_room(body, n);
	ok = ok && ct_snappy.compress(w.b.p ? w.b.p : "", w.b.len, body->p, &n) == SNAPPY_OK;
	if (ok)
		body->len = n;
	ct_pb_free(&w);
	return ok;
}

static void rw_release(void *ud, struct ct_push_item *it)
{
	(void)ud;
	ct_msnap_put(it->obj);
	free(it);
}

static uint64_t samples_of(const struct ct_msnap *s)
{
	uint64_t n = s->n;

	for (int f = 0; f < CT_MF_N; f++)
		if (ct_mfamilies[f].type == CT_MT_HISTOGRAM)
			n += (s->fam_start[f + 1] - s->fam_start[f]) * (CT_MBUCKETS + 2);
	return n;
}

static void push_now(struct rw_ctx *r, uint64_t now_ns)
{
	struct ct_push_item *it;
	struct ct_msnap *s;
	uint64_t ms = now_ns / 1000000;

	/* a sample per series and millisecond: two pushes must not share one */
	if (ms <= r->last_ms)
		ms = r->last_ms + 1;
	r->last_ms = ms;
	ct_metrics_stats(&r->ms.m, &r->ms.st);
	ct_metrics_set(&r->ms.m, CT_MF_EXPORT_FAILED, ct_push_failures(&r->push));
	s = ct_metrics_snapshot(&r->ms.m, ms * 1000000);
	it = calloc(1, sizeof(*it));
	if (!s || !it) {
		ct_msnap_put(s);
		free(it);
		return;
	}
	*it = (struct ct_push_item){ .kind = 0, .cumulative = true, .samples = samples_of(s), .obj = s };
	ct_push_offer(&r->push, it);
}

static const char *const rw_headers[] = {
	"Content-Encoding: snappy", "Content-Type: application/x-protobuf",
	"X-Prometheus-Remote-Write-Version: 0.1.0", NULL,
};

static int rw_open(void *ctx)
{
	struct rw_ctx *r = ctx;
	int err;

	/* url set and an http(s) URL, interval and timeout more than 0: the config's checks */
	err = ct_netlib_snappy(r->ms.c.name, "remote_write");
	if (err)
		return err;
	err = ct_metric_sink_init(&r->ms);
	if (err)
		return err;
	r->push = (struct ct_push){
		.sink = r->ms.c.name, .type = "remote_write", .urls = { r->url }, .units = { "samples" },
		.headers = rw_headers, .timeout_ns = r->timeout_ns, .max_queue = 4, .ud = r,
		.encode = rw_encode, .release = rw_release,
	};
	r->next_ns = r->ms.m.start_ns + r->interval_ns;
	return ct_push_start(&r->push);
}

static int rw_tick(void *ctx, uint64_t now_ns)
{
	struct rw_ctx *r = ctx;

	ct_metrics_expire(&r->ms.m, now_ns);
	if (now_ns >= r->next_ns) {
		r->next_ns = now_ns + r->interval_ns;
		push_now(r, now_ns);
	}
	return 0;
}

static int rw_close(void *ctx, const struct ct_run_stats *st)
{
	struct rw_ctx *r = ctx;

	r->ms.st = *st;
	push_now(r, st->end_ns);
	/* what could not be sent is counted and said; the trace itself is whole */
	ct_push_stop(&r->push, r->timeout_ns);
	return ct_metric_sink_final(&r->ms, st->end_ns);
}

static void rw_destroy(void *ctx)
{
	struct rw_ctx *r = ctx;

	ct_push_stop(&r->push, 0); /* a no-op after close */
	ct_metrics_free(&r->ms.m);
}

const struct ct_sink_ops ct_sink_remote_write = {
	.type = "remote_write",
	.where_key = "url",
	.where_arg = "URL",
	.where_help = "push metrics to this Prometheus remote-write URL",
	.help = "Push the same metrics to a Prometheus remote-write endpoint (url), every interval",
	.keys = rw_keys,
	.ctx_size = sizeof(struct rw_ctx),
	.open = rw_open,
	.event = ct_metric_sink_event,
	.tick = rw_tick,
	.close = rw_close,
	.destroy = rw_destroy,
	.proc_exit = ct_metric_sink_proc_exit,
	.hang = ct_metric_sink_hang,
	.totals = ct_metric_sink_totals,
	.stats = ct_metric_sink_stats,
};
