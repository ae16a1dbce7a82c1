// SPDX-License-Identifier: MIT
/*
 * The metrics model through the prometheus sink's final text (path set):
 * exact exposition lines for calls, histogram buckets, bytes by copy kind,
 * memory gauges; escaping of label values; folding past max_series; the
 * series of exited processes dropped after exited_grace;
 * aggregate mode's cumulative reports; and the protobuf writer's bytes.
 */
#include <errno.h>
#include "test_sink_fixture.h"
#include "sinks/hist.h"
#include "sinks/metrics.h"
#include "util/pbwriter.h"

static struct fx_sink open_prom(const char *labels, const char *max_series)
{
	struct fx_sink s;

	fx_sink_open(&s, "prometheus", "listen", "127.0.0.1:0", "labels", labels, "max_series", max_series,
		     NULL);
	((struct ct_sink_common *)s.ctx)->path = s.path;
	return s;
}

static void has(const char *text, const char *line)
{
	if (!strstr(text, line))
		fail_msg("missing:\n%s\nin:\n%s", line, text);
}

static void test_calls_and_buckets(void **state)
{
	struct fx_sink s = open_prom("plugin,api,error", "100");
	struct ct_run_stats st = { .lost = 7, .probes = 50 };
	struct ct_event ev;
	char *text;

	(void)state;
	ev = fx_event(FX_SYNC, 10, 10, 0, 1000, 0); /* exactly the first bound: le="1e-06" */
	fx_sink_event(&s, &ev);
	ev = fx_event(FX_SYNC, 10, 10, 0, 1001, 0);
	fx_sink_event(&s, &ev);
	ev = fx_event(FX_SYNC, 10, 10, 0, 20000000000ull, 2); /* past the last bound, failed */
	fx_sink_event(&s, &ev);
	ev = fx_event(FX_MARK, 10, 10, 0, 0, 0, "x"); /* entry only: a call, no duration */
	fx_sink_event(&s, &ev);
	text = fx_sink_close(&s, &st);
	has(text, "# TYPE cudatracer_calls_total counter\n");
	has(text, "cudatracer_calls_total{api=\"xDeviceSynchronize\",error=\"false\",plugin=\"fake\"} 2\n");
	has(text, "cudatracer_calls_total{api=\"xDeviceSynchronize\",error=\"true\",plugin=\"fake\"} 1\n");
	has(text, "cudatracer_calls_total{api=\"xMark\",error=\"false\",plugin=\"fake\"} 1\n");
	has(text, "cudatracer_call_duration_seconds_bucket{api=\"xDeviceSynchronize\",error=\"false\","
		  "plugin=\"fake\",le=\"1e-06\"} 1\n");
	has(text, "cudatracer_call_duration_seconds_bucket{api=\"xDeviceSynchronize\",error=\"false\","
		  "plugin=\"fake\",le=\"2.5e-06\"} 2\n");
	has(text, "cudatracer_call_duration_seconds_bucket{api=\"xDeviceSynchronize\",error=\"true\","
		  "plugin=\"fake\",le=\"10\"} 0\n");
	has(text, "cudatracer_call_duration_seconds_bucket{api=\"xDeviceSynchronize\",error=\"true\","
		  "plugin=\"fake\",le=\"+Inf\"} 1\n");
	has(text, "cudatracer_call_duration_seconds_sum{api=\"xDeviceSynchronize\",error=\"false\","
		  "plugin=\"fake\"} 0.000002001\n");
	has(text, "cudatracer_call_duration_seconds_count{api=\"xDeviceSynchronize\",error=\"true\","
		  "plugin=\"fake\"} 1\n");
	assert_null(strstr(text, "cudatracer_call_duration_seconds_count{api=\"xMark\""));
	has(text, "cudatracer_records_lost_total 7\n");
	has(text, "# TYPE cudatracer_probes_attached gauge\ncudatracer_probes_attached 50\n");
	has(text, "cudatracer_series_dropped_total 0\n");
	free(text);
}

static void test_bytes_and_memory(void **state)
{
	struct fx_sink s = open_prom("plugin,api,pid", "100");
	struct ct_run_stats st = { 0 };
	struct ct_event ev;
	char *text;

	(void)state;
	ev = fx_event(FX_MEMCPY, 5, 5, 0, 10, 0, U(1), U(2), U(1000), U(1));
	fx_sink_event(&s, &ev);
	ev = fx_event(FX_MEMCPY, 5, 5, 0, 10, 0, U(1), U(2), U(24), U(1));
	fx_sink_event(&s, &ev);
	ev = fx_event(FX_MEMCPY, 5, 5, 0, 10, 2, U(1), U(2), U(9999), U(2)); /* failed: moved nothing */
	fx_sink_event(&s, &ev);
	ev = fx_event(FX_MEMCPY, 5, 5, 0, 10, 0, U(1), U(2), U(7), U(9)); /* a kind without a name */
	fx_sink_event(&s, &ev);
	ev = fx_event(FX_MALLOC, 5, 5, 0, 10, 0, U(0xa000), U(4096));
	fx_sink_event(&s, &ev);
	ev = fx_event(FX_MALLOC, 5, 5, 0, 10, 0, U(0xb000), U(8192));
	fx_sink_event(&s, &ev);
	ev = fx_event(FX_MALLOC_HOST, 5, 5, 0, 10, 0, U(0xc000), U(100));
	fx_sink_event(&s, &ev);
	ev = fx_event(FX_FREE, 5, 5, 0, 10, 0, U(0xa000));
	fx_sink_event(&s, &ev);
	text = fx_sink_close(&s, &st);
	has(text, "cudatracer_bytes_moved_total{api=\"xMemcpy\",kind=\"xHostToDevice\",pid=\"5\",plugin=\"fake\"} 1024\n");
	has(text, "cudatracer_bytes_moved_total{api=\"xMemcpy\",kind=\"9\",pid=\"5\",plugin=\"fake\"} 7\n");
	assert_null(strstr(text, "kind=\"xDeviceToHost\""));
	has(text, "cudatracer_memory_in_use_bytes{memory=\"device\",pid=\"5\",plugin=\"fake\"} 8192\n");
	has(text, "cudatracer_memory_in_use_bytes{memory=\"host\",pid=\"5\",plugin=\"fake\"} 100\n");
	has(text, "cudatracer_memory_in_use_bytes{memory=\"managed\",pid=\"5\",plugin=\"fake\"} 0\n");
	has(text, "cudatracer_allocations_outstanding{pid=\"5\",plugin=\"fake\"} 2\n");
	free(text);
}

static void test_escaping(void **state)
{
	struct fx_sink s = open_prom("api,comm", "100");
	struct ct_run_stats st = { 0 };
	struct ct_event ev = fx_event(FX_SYNC, 1, 1, 0, 10, 0);
	char *text;

	(void)state;
	/* a quote and a backslash escaped; a newline and a byte that is not UTF-8 as '?' */
	ev.comm = "a\"b\\c\nd\xff";
	fx_sink_event(&s, &ev);
	ev.comm = "gr\xc3\xbc\xc3\x9f"; /* valid UTF-8 is kept */
	fx_sink_event(&s, &ev);
	text = fx_sink_close(&s, &st);
	has(text, "cudatracer_calls_total{api=\"xDeviceSynchronize\",comm=\"a\\\"b\\\\c?d?\"} 1\n");
	has(text, "cudatracer_calls_total{api=\"xDeviceSynchronize\",comm=\"gr\xc3\xbc\xc3\x9f\"} 1\n");
	free(text);
}

static void test_folding(void **state)
{
	struct fx_sink s = open_prom("api,pid", "2");
	struct ct_run_stats st = { 0 };
	char *text;

	(void)state;
	for (uint32_t pid = 1; pid <= 4; pid++) {
		struct ct_event ev = fx_event(FX_MARK, pid, pid, 0, 0, 0, "x");

		fx_sink_event(&s, &ev);
	}
	text = fx_sink_close(&s, &st);
	has(text, "cudatracer_calls_total{api=\"xMark\",pid=\"1\"} 1\n");
	has(text, "cudatracer_calls_total{api=\"xMark\",pid=\"2\"} 1\n");
	has(text, "cudatracer_calls_total{api=\"xMark\",pid=\"other\"} 2\n");
	has(text, "cudatracer_series_dropped_total 2\n");
	assert_null(strstr(text, "pid=\"3\""));
	free(text);
}

/* One call from each cgroup (NULL: none), then the final text. */
static char *feed_cgroups(struct fx_sink *s, const struct ct_cgroup *const *cgs, int n)
{
	struct ct_run_stats st = { 0 };

	for (int i = 0; i < n; i++) {
		struct ct_event ev = fx_event(FX_MARK, 1, 1, 0, 0, 0, "x");

		ev.cgroup = cgs[i];
		fx_sink_event(s, &ev);
	}
	return fx_sink_close(s, &st);
}

#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_cgroup_labels(void **state)
{
	/* Two cgroups of one container, and one of none: a path that is not
	 * UTF-8 shows '?' where Prometheus would refuse the byte. */
	static const struct ct_cgroup a = { 11, "/system.slice/docker-" CID ".scope", CID, NULL };
	static const struct ct_cgroup b = { 12, "/system.slice/docker-" CID ".scope/init", CID, NULL };
	static const struct ct_cgroup c = { 13, "/user.slice/x\xff", NULL, NULL };
	static const struct ct_cgroup p = { 14, "/kubepods/pod1b4c1d2e-0000-4000-8000-0123456789ab/" CID, CID,
					    "1b4c1d2e-0000-4000-8000-0123456789ab" };
	const struct ct_cgroup *cgs[] = { &a, &b, &b, &c, &p, NULL };
	struct fx_sink s = open_prom("api,container", "100");
	char *text;

	(void)state;
	text = feed_cgroups(&s, cgs, 6);
	has(text, "cudatracer_calls_total{api=\"xMark\",container=\"" CID "\"} 4\n");
	has(text, "cudatracer_calls_total{api=\"xMark\",container=\"\"} 2\n");
	free(text);

	s = open_prom("cgroup,pod", "100");
	text = feed_cgroups(&s, cgs, 6);
	has(text, "cudatracer_calls_total{cgroup=\"/system.slice/docker-" CID ".scope\",pod=\"\"} 1\n");
	has(text, "cudatracer_calls_total{cgroup=\"/system.slice/docker-" CID ".scope/init\",pod=\"\"} 2\n");
	has(text, "cudatracer_calls_total{cgroup=\"/user.slice/x?\",pod=\"\"} 1\n");
	has(text, "cudatracer_calls_total{cgroup=\"/kubepods/pod1b4c1d2e-0000-4000-8000-0123456789ab/" CID
		  "\",pod=\"1b4c1d2e-0000-4000-8000-0123456789ab\"} 1\n");
	has(text, "cudatracer_calls_total{cgroup=\"\",pod=\"\"} 1\n");
	free(text);

	/* Past max_series the cgroup labels fold like pid's. */
	s = open_prom("cgroup", "2");
	text = feed_cgroups(&s, cgs, 5);
	has(text, "cudatracer_calls_total{cgroup=\"other\"} 2\n");
	has(text, "cudatracer_series_dropped_total 2\n");
	free(text);
}

#define SEC(x) ((uint64_t)(x) * 1000000000ull)

/* Process 5 exits: its series stay for the grace, then go, with the room
 * they took under max_series; process 6 exits too but calls again (its pid
 * is someone's again): it stays. */
static void test_exited_grace(void **state)
{
	struct fx_sink s;
	struct ct_run_stats st = { 0 };
	struct ct_event ev;
	char *text;

	(void)state;
	fx_sink_open(&s, "prometheus", "listen", "127.0.0.1:0", "labels", "api,pid", "max_series", "3",
		     "exited_grace", "10s", NULL);
	((struct ct_sink_common *)s.ctx)->path = s.path;
	ev = fx_event(FX_MALLOC, 5, 5, 0, 10, 0, U(0xa000), U(4096));
	fx_sink_event(&s, &ev);
	ev = fx_event(FX_SYNC, 5, 5, 0, 1000, 0);
	fx_sink_event(&s, &ev);
	ev = fx_event(FX_SYNC, 6, 6, 0, 1000, 0);
	fx_sink_event(&s, &ev);
	s.ops->proc_exit(s.ctx, 5, FX_WALL + SEC(10));
	s.ops->proc_exit(s.ctx, 6, FX_WALL + SEC(10));
	/* 5's own call, begun before its exit was heard, read after it (the
	 * watcher's ring first): 5 still goes */
	ev = fx_event(FX_SYNC, 5, 5, SEC(9), 1000, 0);
	fx_sink_event(&s, &ev);
	ev = fx_event(FX_SYNC, 6, 6, SEC(11), 1000, 0);
	fx_sink_event(&s, &ev);
	s.ops->tick(s.ctx, FX_WALL + SEC(19));
	assert_int_equal(ct_u64map_get(&((struct ct_metric_sink *)s.ctx)->m.exited, 5) != NULL, 1);
	s.ops->tick(s.ctx, FX_WALL + SEC(20));
	/* room again under max_series: 7's series are its own, not "other" */
	ev = fx_event(FX_SYNC, 7, 7, 0, 1000, 0);
	fx_sink_event(&s, &ev);
	text = fx_sink_close(&s, &st);
	assert_null(strstr(text, "pid=\"5\""));
	has(text, "cudatracer_calls_total{api=\"xDeviceSynchronize\",pid=\"6\"} 2\n");
	has(text, "cudatracer_call_duration_seconds_count{api=\"xDeviceSynchronize\",pid=\"6\"} 2\n");
	has(text, "cudatracer_calls_total{api=\"xDeviceSynchronize\",pid=\"7\"} 1\n");
	has(text, "cudatracer_call_duration_seconds_count{api=\"xDeviceSynchronize\",pid=\"7\"} 1\n");
	has(text, "cudatracer_series_dropped_total 0\n");
	free(text);
}

static void test_unknown_label(void **state)
{
	const struct ct_sink_ops *ops = ct_sink_find("prometheus");
	const struct ct_key *k = ct_key_find(ops->keys, "labels");
	void *ctx = calloc(1, ops->ctx_size);
	char why[256];

	(void)state;
	assert_int_equal(ct_key_set(k, ctx, "plugin,kernel", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "unknown label 'kernel' (known: plugin, api, error, pid, comm, host, rank, job, cgroup, container, pod)");
	ct_keys_free(ops->keys, ctx);
	free(ctx);
}

/* Aggregate mode: each report is the kernel's count since the start. */
static void test_totals(void **state)
{
	struct fx_sink s = open_prom("api,error", "100");
	struct ct_run_stats st = { 0 };
	uint64_t hist[CT_HIST_BUCKETS] = { 0 };
	struct ct_totals t = { .pid = 3, .comm = "app", .plugin = &fx_plugin, .api_idx = FX_MEMCPY, .timed = true,
			       .calls = 4, .errors = 1, .total_ns = 4000, .bytes = 300, .hist = hist,
			       .n_hist = CT_HIST_BUCKETS };
	char *text;

	(void)state;
	hist[ct_hist_bucket(1000)] = 4;
	assert_int_equal(s.ops->totals(s.ctx, &t), 0);
	t.calls = 10;
	t.errors = 2;
	t.total_ns = 10000;
	t.bytes = 800;
	hist[ct_hist_bucket(1000)] = 10;
	assert_int_equal(s.ops->totals(s.ctx, &t), 0);
	text = fx_sink_close(&s, &st);
	has(text, "cudatracer_calls_total{api=\"xMemcpy\",error=\"false\"} 8\n");
	has(text, "cudatracer_calls_total{api=\"xMemcpy\",error=\"true\"} 2\n");
	has(text, "cudatracer_call_duration_seconds_count{api=\"xMemcpy\",error=\"false\"} 10\n");
	has(text, "cudatracer_call_duration_seconds_sum{api=\"xMemcpy\",error=\"false\"} 0.000010000\n");
	has(text, "cudatracer_bytes_moved_total{api=\"xMemcpy\",kind=\"\"} 800\n");
	free(text);
}

/* device and gpu: the index (bounded: "other" past CT_MDEVICE_MAX) and the
 * GPU's UUID, escaped; "" where not known; in events and totals alike. */
static void test_device_labels(void **state)
{
	static const struct ct_gpu_info gpu = { 0, "GPU-0a1b2c3d-0000-1111-2222-333344445555", "0000:3b:00.0" };
	static const struct ct_gpu_info odd = { 1, "GPU-\"\n\xff", "" };
	struct fx_sink s = open_prom("api,device,gpu", "100");
	struct ct_run_stats st = { 0 };
	struct ct_event ev = fx_event(FX_SYNC, 1, 1, 0, 10, 0);
	uint64_t hist[CT_HIST_BUCKETS] = { 0 };
	struct ct_totals t = { .pid = 3, .comm = "app", .plugin = &fx_plugin, .api_idx = FX_MEMCPY, .timed = true,
			       .calls = 4, .total_ns = 4000, .hist = hist, .n_hist = CT_HIST_BUCKETS,
			       .device = 0, .device_from = CT_DEVICE_FROM_ONLY_GPU, .gpu = &gpu };
	char *text;

	(void)state;
	fx_sink_event(&s, &ev); /* not known */
	ev.device = 2;
	ev.gpu = &gpu;
	fx_sink_event(&s, &ev);
	fx_sink_event(&s, &ev);
	ev.device = CT_MDEVICE_MAX; /* an index a call set, past the bound */
	ev.gpu = &odd;
	fx_sink_event(&s, &ev);
	ev.device = 1000;
	fx_sink_event(&s, &ev);
	assert_int_equal(s.ops->totals(s.ctx, &t), 0);
	t.device_from = CT_DEVICE_FROM_NONE; /* the same totals, the device not said: no device */
	t.gpu = NULL;
	t.pid = 4;
	assert_int_equal(s.ops->totals(s.ctx, &t), 0);
	text = fx_sink_close(&s, &st);
	has(text, "cudatracer_calls_total{api=\"xDeviceSynchronize\",device=\"\",gpu=\"\"} 1\n");
	has(text, "cudatracer_calls_total{api=\"xDeviceSynchronize\",device=\"2\","
		  "gpu=\"GPU-0a1b2c3d-0000-1111-2222-333344445555\"} 2\n");
	has(text, "cudatracer_calls_total{api=\"xDeviceSynchronize\",device=\"other\",gpu=\"GPU-\\\"??\"} 2\n");
	has(text, "cudatracer_calls_total{api=\"xMemcpy\",device=\"0\","
		  "gpu=\"GPU-0a1b2c3d-0000-1111-2222-333344445555\"} 4\n");
	has(text, "cudatracer_calls_total{api=\"xMemcpy\",device=\"\",gpu=\"\"} 4\n");
	/* not on the memory and hang families */
	assert_null(strstr(text, "cudatracer_memory_in_use_bytes{device"));
	free(text);
}

static void test_protobuf_writer(void **state)
{
	struct ct_pb w = { 0 };
	char big[200];
	const uint8_t *b;

	(void)state;
	memset(big, 'x', sizeof(big));
	ct_pb_begin(&w, 1);
	ct_pb_bytes(&w, 1, big, sizeof(big)); /* a body past 127 bytes: its length takes two */
	ct_pb_end(&w);
	ct_pb_u64(&w, 2, 300);
	ct_pb_double(&w, 3, 1.0);
	assert_false(w.oom);
	b = (const uint8_t *)w.b.p;
	assert_int_equal(w.b.len, 3 + 3 + 200 + 3 + 9);
	assert_memory_equal(b, "\x0a\xcb\x01\x0a\xc8\x01", 6);
	assert_memory_equal(b + 206, "\x10\xac\x02\x19\x00\x00\x00\x00\x00\x00\xf0\x3f", 12);
	ct_pb_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calls_and_buckets),
		cmocka_unit_test(test_bytes_and_memory),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_folding),
		cmocka_unit_test(test_cgroup_labels),
		cmocka_unit_test(test_exited_grace),
		cmocka_unit_test(test_unknown_label),
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_device_labels),
		cmocka_unit_test(test_protobuf_writer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
