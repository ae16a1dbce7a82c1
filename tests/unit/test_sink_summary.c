// SPDX-License-Identifier: MIT
/* The summary sink: exact tables, JSON and CSV for a known set of calls. */
#include "test_sink_fixture.h"
#include "sinks/exited.h"
#include "sinks/texttable.h"

/* Two processes; the first has two threads and calls of every sort. */
static void feed(struct fx_sink *s)
{
	struct ct_event ev[] = {
		fx_event(FX_MALLOC, 100, 100, 1000, 5000, 0, U(0x1000), U(4096)),
		fx_event(FX_MALLOC, 100, 100, 10000, 3000, 0, U(0x2000), U(8192)),
		fx_event(FX_MALLOC, 100, 100, 20000, 1000, 2, U(0), U(1) << 40),
		fx_event(FX_MEMCPY, 100, 100, 30000, 2000, 0, U(0x1000), U(0x9000), U(4096), U(1)),
		fx_event(FX_MEMCPY, 100, 101, 40000, 4000, 0, U(0x9000), U(0x1000), U(1024), U(2)),
		fx_event(FX_MEMCPY2D, 100, 101, 50000, 1000, 0, U(100), U(10), U(1)),
		fx_event(FX_LAUNCH, 100, 100, 60000, 500, 0, U(0x401000), U(1), U(1), U(1)),
		fx_event(FX_MARK, 100, 100, 65000, 0, 0, "phase1"),
		fx_event(FX_FREE, 100, 100, 70000, 2000, 0, U(0x1000)),
		fx_event(FX_MEMSET, 100, 100, 80000, 700, 0, U(0x2000), U(0), U(256)),
		fx_event_pl(&fx_plugin2, FX_SYNC, 200, 200, 90000, 100, 0),
	};

	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		fx_sink_event(s, &ev[i]);
}

static const char want_table[] =
	"cudatracer summary\n"
	"\n"
	"pid 100 (app): 10 calls, 1 error, 19.200us in traced calls\n"
	"\n"
	"Time(%)    Total  Calls  Errors  Nested      Avg      Min      Max      P50      P99  Bytes  Runtime  API\n"
	"   46.9  9.000us      3       1       -  3.000us  1.000us  5.000us  3.007us  5.000us  12288  fake     xMalloc\n"
	"   31.2  6.000us      2       0       -  3.000us  2.000us  4.000us  2.000us  4.000us   5120  fake     xMemcpy\n"
	"   10.4  2.000us      1       0       -  2.000us  2.000us  2.000us  2.000us  2.000us      -  fake     xFree\n"
	"    5.2  1.000us      1       0       -  1.000us  1.000us  1.000us  1.000us  1.000us   1000  fake     xMemcpy2D\n"
	"    3.6    700ns      1       0       -    700ns    700ns    700ns    700ns    700ns    256  fake     xMemset\n"
	"    2.6    500ns      1       0       -    500ns    500ns    500ns    500ns    500ns      -  fake     xLaunchKernel\n"
	"      -        -      1       0       -        -        -        -        -        -      -  fake     xMark\n"
	"\n"
	"Bytes by copy kind:\n"
	"Runtime  API        Kind           Calls  Bytes\n"
	"fake     xMemcpy    xHostToDevice      1   4096\n"
	"fake     xMemcpy    xDeviceToHost      1   1024\n"
	"fake     xMemcpy2D  xHostToDevice      1   1000\n"
	"fake     xMemset    -                  1    256\n"
	"\n"
	"Kernels (from launch calls: each launch once, however many runtimes traced it):\n"
	"Launches  Errors  Total    Avg    Grids  Blocks  Runtime  Kernel\n"
	"       1       0  500ns  500ns  (1,1,1)       -  fake     0x401000\n"
	"\n"
	"pid 200 (app): 1 call, 0 errors, 100ns in traced calls\n"
	"\n"
	"Time(%)  Total  Calls  Errors  Nested    Avg    Min    Max    P50    P99  Bytes  Runtime  API\n"
	"  100.0  100ns      1       0       -  100ns  100ns  100ns  100ns  100ns      -  other    xDeviceSynchronize\n"
	"\n"
	"warning: 3 records lost: the figures above undercount\n";

static void test_table(void **state)
{
	struct fx_sink s;
	struct ct_run_stats st = { .events = 11, .lost = 3 };
	char *out;

	fx_sink_open(&s, "summary", NULL);
	feed(&s);
	out = fx_sink_close(&s, &st);
	assert_text_equal(out, want_table);
	free(out);
}

static void test_json(void **state)
{
	struct fx_sink s;
	struct ct_run_stats st = { .events = 11 };
	char *out;

	fx_sink_open(&s, "summary", "format", "json", NULL);
	feed(&s);
	out = fx_sink_close(&s, &st);
	assert_int_equal(fx_python(
		"import json, sys\n"
		"d = json.load(sys.stdin)\n"
		"assert d['final'] is True and d['calls'] == 11 and d['lost'] == 0, d\n"
		"p = d['processes']\n"
		"assert [x['pid'] for x in p] == [100, 200]\n"
		"assert p[0]['comm'] == 'app' and p[0]['calls'] == 10 and p[0]['errors'] == 1\n"
		"assert p[0]['total_ns'] == 19200\n"
		"a = {x['api']: x for x in p[0]['apis']}\n"
		"assert [x['api'] for x in p[0]['apis']][:2] == ['xMalloc', 'xMemcpy']\n"
		"m = a['xMalloc']\n"
		"assert (m['calls'], m['errors'], m['total_ns'], m['avg_ns'], m['min_ns'], m['max_ns'],\n"
		"        m['p50_ns'], m['p99_ns'], m['bytes']) == (3, 1, 9000, 3000, 1000, 5000, 3007, 5000, 12288), m\n"
		"assert m['time_pct'] == 46.88 and m['plugin'] == 'fake'\n"
		"assert a['xMemcpy']['bytes_by_kind'] == {'xHostToDevice': {'calls': 1, 'bytes': 4096},\n"
		"                                        'xDeviceToHost': {'calls': 1, 'bytes': 1024}}\n"
		"assert a['xMemcpy2D']['bytes'] == 1000\n"
		"assert 'bytes' not in a['xLaunchKernel'] and 'p50_ns' not in a['xMark']\n"
		"assert a['xMark']['calls'] == 1 and a['xMark']['timed'] == 0\n"
		"assert p[1]['apis'][0]['plugin'] == 'other' and p[1]['apis'][0]['time_pct'] == 100.0\n",
		out), 0);
	free(out);
}

static const char want_csv[] =
	"pid,comm,plugin,api,calls,errors,total_ns,time_pct,avg_ns,min_ns,max_ns,p50_ns,p99_ns,bytes,bytes_by_kind,nested\r\n"
	"100,app,fake,xMalloc,3,1,9000,46.88,3000,1000,5000,3007,5000,12288,,0\r\n"
	"100,app,fake,xMemcpy,2,0,6000,31.25,3000,2000,4000,2000,4000,5120,xHostToDevice=4096;xDeviceToHost=1024,0\r\n"
	"100,app,fake,xFree,1,0,2000,10.42,2000,2000,2000,2000,2000,,,0\r\n"
	"100,app,fake,xMemcpy2D,1,0,1000,5.21,1000,1000,1000,1000,1000,1000,xHostToDevice=1000,0\r\n"
	"100,app,fake,xMemset,1,0,700,3.65,700,700,700,700,700,256,=256,0\r\n"
	"100,app,fake,xLaunchKernel,1,0,500,2.60,500,500,500,500,500,,,0\r\n"
	"100,app,fake,xMark,1,0,0,0.00,,,,,,,,0\r\n"
	"200,app,other,xDeviceSynchronize,1,0,100,100.00,100,100,100,100,100,,,0\r\n";

static void test_csv(void **state)
{
	struct fx_sink s;
	char *out;

	fx_sink_open(&s, "summary", "format", "csv", NULL);
	feed(&s);
	out = fx_sink_close(&s, NULL);
	assert_text_equal(out, want_csv);
	free(out);
}

/*
 * Both layers of a launch: the runtime's launch (fake) and the driver call
 * made inside it (other, depth 1, with a parent). The kernels table counts
 * the launch once; the per-API table marks the inner row Nested, and its
 * time is not in the share of time a second time.
 */
static const char long_kernel[] = "void gemm_kernel<float, 128, 64>(float const*, float*, int)";

static void feed_layers(struct fx_sink *s)
{
	struct ct_event ev[] = {
		fx_event(FX_LAUNCH, 300, 300, 1000, 100, 0, U(0x401000), U(4), U(1), U(1)),
		fx_event_pl(&fx_plugin2, FX_LAUNCH, 300, 300, 1010, 40, 0, U(0x7000), U(4), U(1), U(1)),
		fx_event(FX_LAUNCH, 300, 300, 2000, 200, 2, U(0x401000), U(4), U(1), U(1)),
		fx_event(FX_LAUNCH, 300, 300, 3000, 300, 0, U(0x401000), U(8), U(1), U(1)),
		fx_event(FX_LAUNCH, 300, 300, 4000, 50, 0, U(0x402000), U(1), U(1), U(1)),
	};

	for (size_t i = 0; i < 4; i++)
		ev[i].fields[0].str = "vecAdd(float*, int)";
	ev[4].fields[0].str = long_kernel;
	ev[1].depth = 1;
	ev[1].parent_plugin = "fake";
	ev[1].parent_api = "xLaunchKernel";
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		fx_sink_event(s, &ev[i]);
}

static const char want_layers[] =
	"cudatracer summary\n"
	"\n"
	"pid 300 (app): 5 calls, 1 error, 650ns in traced calls\n"
	"\n"
	"Time(%)  Total  Calls  Errors  Nested    Avg   Min    Max    P50    P99  Bytes  Runtime  API\n"
	"  100.0  650ns      4       1       -  162ns  50ns  300ns  101ns  300ns      -  fake     xLaunchKernel\n"
	"    0.0   40ns      1       0       1   40ns  40ns   40ns   40ns   40ns      -  other    xLaunchKernel\n"
	"Nested: calls made inside another traced call (a driver call inside a runtime call); Time(%) counts outermost calls only.\n"
	"\n"
	"Kernels (from launch calls: each launch once, however many runtimes traced it):\n"
	"Launches  Errors  Total    Avg     Grids  Blocks  Runtime  Kernel\n"
	"       3       1  600ns  200ns  2 shapes       -  fake     vecAdd(float*, int)\n"
	"       1       0   50ns   50ns   (1,1,1)       -  fake     void gemm_kernel<float, 128... [1]\n"
	"[1] void gemm_kernel<float, 128, 64>(float const*, float*, int)\n";

static void test_kernels_and_nesting(void **state)
{
	struct fx_sink s;
	char *out;

	fx_sink_open(&s, "summary", "kernel_width", "30", NULL);
	feed_layers(&s);
	out = fx_sink_close(&s, NULL);
	assert_text_equal(out, want_layers);
	free(out);
}

static void test_kernels_json(void **state)
{
	struct fx_sink s;
	char *out;

	fx_sink_open(&s, "summary", "format", "json", NULL);
	feed_layers(&s);
	out = fx_sink_close(&s, NULL);
	assert_int_equal(fx_python(
		"import json, sys\n"
		"p = json.load(sys.stdin)['processes'][0]\n"
		"assert p['total_ns'] == 650, p\n"
		"a = {(x['plugin'], x['api']): x for x in p['apis']}\n"
		"inner = a[('other', 'xLaunchKernel')]\n"
		"assert inner['nested'] == 1 and inner['time_pct'] == 0.0 and inner['total_ns'] == 40, inner\n"
		"assert a[('fake', 'xLaunchKernel')]['time_pct'] == 100.0\n"
		"k = p['kernels']\n"
		"assert [x['name'] for x in k] == ['vecAdd(float*, int)', '" "void gemm_kernel<float, 128, 64>(float const*, float*, int)'], k\n"
		"assert (k[0]['launches'], k[0]['errors'], k[0]['total_ns'], k[0]['avg_ns']) == (3, 1, 600, 200)\n"
		"assert k[0]['grids'] == 2 and 'grid' not in k[0] and k[0]['blocks'] == 0 and k[0]['plugin'] == 'fake'\n"
		"assert k[1]['grids'] == 1 and k[1]['grid'] == [1, 1, 1]\n",
		out), 0);
	free(out);
}

/* With an interval, the file is rewritten: it always holds one whole summary. */
static void test_interval_rewrites(void **state)
{
	struct fx_sink s;
	struct ct_event e1 = fx_event(FX_SYNC, 7, 7, 0, 100, 0);
	struct ct_event e2 = fx_event(FX_SYNC, 7, 7, 200, 300, 0);
	char *out;

	fx_sink_open(&s, "summary", "format", "json", "interval", "1s", NULL);
	fx_sink_event(&s, &e1);
	assert_int_equal(s.ops->tick(s.ctx, 10000000000ull), 0); /* first tick: starts the clock */
	out = fx_sink_peek(&s);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(s.ops->tick(s.ctx, 10500000000ull), 0); /* not yet due */
	out = fx_sink_peek(&s);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(s.ops->tick(s.ctx, 11000000000ull), 0);
	out = fx_sink_peek(&s);
	assert_int_equal(fx_python("import json, sys\nd = json.load(sys.stdin)\n"
				   "assert d['final'] is False and d['calls'] == 1, d\n", out), 0);
	free(out);
	fx_sink_event(&s, &e2);
	assert_int_equal(s.ops->tick(s.ctx, 12000000000ull), 0);
	out = fx_sink_peek(&s);
	assert_int_equal(fx_python("import json, sys\nd = json.load(sys.stdin)\n"
				   "a = d['processes'][0]['apis'][0]\n"
				   "assert d['final'] is False and a['calls'] == 2 and a['total_ns'] == 400, d\n",
				   out), 0);
	free(out);
	out = fx_sink_close(&s, NULL);
	assert_int_equal(fx_python("import json, sys\nd = json.load(sys.stdin)\n"
				   "assert d['final'] is True and d['calls'] == 2, d\n", out), 0);
	free(out);
}

/*
 * --stacks: failing calls grouped by API, error and site. Site A (inner <-
 * outer <- main) fails twice, site B (a stack of 10 frames) once, one call
 * carries no stack; another error of the same API is a group of its own.
 */
static const struct ct_frame_info frames_a[] = {
	{ .kind = CT_FRAME_NATIVE, .addr = 0x40101a, .module = "/opt/app", .function = "inner", .offset = 0x1a },
	{ .kind = CT_FRAME_NATIVE, .addr = 0x401120, .module = "/opt/app", .function = "outer", .offset = 0x10 },
	{ .kind = CT_FRAME_NATIVE, .addr = 0x7f0000, .module = "/lib/libc.so.6", .offset = 0x29d90 },
};
static struct ct_frame_info frames_b[10];

static void feed_sites(struct fx_sink *s)
{
	const struct ct_callstack a = { frames_a, 3, 0xa }, b = { frames_b, 10, 0xb };
	struct ct_event ev[] = {
		fx_event(FX_MALLOC, 400, 400, 1000, 100, 2, U(0), U(1) << 40),
		fx_event(FX_MALLOC, 400, 400, 2000, 100, 2, U(0), U(1) << 40),
		fx_event(FX_MALLOC, 400, 400, 3000, 100, 2, U(0), U(1) << 41),
		fx_event(FX_MALLOC, 400, 400, 4000, 100, 2, U(0), U(1) << 42),
		fx_event(FX_MALLOC, 400, 400, 5000, 100, 7, U(0), U(1)),
		fx_event(FX_MALLOC, 400, 400, 6000, 100, 0, U(0x1000), U(64)),
	};

	for (int i = 0; i < 10; i++)
		frames_b[i] = (struct ct_frame_info){ .kind = CT_FRAME_NATIVE, .addr = 0x500000 + i,
						      .module = "/opt/lib.so", .function = "deep", .offset = i };
	frames_b[9].kind = CT_FRAME_TRUNCATED;
	ev[0].stack = ev[1].stack = &a;
	ev[2].stack = &b;
	ev[4].stack = &a;
	ev[5].stack = &a; /* succeeded: no error site */
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		fx_sink_event(s, &ev[i]);
}

static const char want_sites[] =
	"Errors by site (of each API and error, the 5 sites with most calls, 8 frames of each):\n"
	"fake xMalloc xErrorMemory: 4 calls\n"
	"  2 calls at:\n"
	"      inner+0x1a (/opt/app)\n"
	"      outer+0x10 (/opt/app)\n"
	"      [unknown] 0x7f0000 (/lib/libc.so.6+0x29d90)\n"
	"  1 call at:\n"
	"      deep+0x0 (/opt/lib.so)\n"
	"      deep+0x1 (/opt/lib.so)\n"
	"      deep+0x2 (/opt/lib.so)\n"
	"      deep+0x3 (/opt/lib.so)\n"
	"      deep+0x4 (/opt/lib.so)\n"
	"      deep+0x5 (/opt/lib.so)\n"
	"      deep+0x6 (/opt/lib.so)\n"
	"      deep+0x7 (/opt/lib.so)\n"
	"      ... 2 more frames\n"
	"  1 call with no stack\n"
	"fake xMalloc 7: 1 call\n"
	"  1 call at:\n"
	"      inner+0x1a (/opt/app)\n"
	"      outer+0x10 (/opt/app)\n"
	"      [unknown] 0x7f0000 (/lib/libc.so.6+0x29d90)\n";

static void test_error_sites(void **state)
{
	struct fx_sink s;
	char *out, *at;

	fx_sink_open(&s, "summary", NULL);
	feed_sites(&s);
	out = fx_sink_close(&s, NULL);
	at = strstr(out, "Errors by site");
	assert_non_null(at);
	assert_text_equal(at, want_sites);
	free(out);
}

static void test_error_sites_json(void **state)
{
	struct fx_sink s;
	char *out;

	fx_sink_open(&s, "summary", "format", "json", NULL);
	feed_sites(&s);
	out = fx_sink_close(&s, NULL);
	assert_int_equal(fx_python(
		"import json, sys\n"
		"a = json.load(sys.stdin)['processes'][0]['apis'][0]\n"
		"e = a['errors_by_name']\n"
		"assert [(x['error'], x['calls'], x['stacked']) for x in e] == [('xErrorMemory', 4, 3), ('7', 1, 1)], e\n"
		"s = e[0]['sites']\n"
		"assert [(x['count'], x['frames'], len(x['stack'])) for x in s] == [(2, 3, 3), (1, 10, 8)], s\n"
		"assert s[0]['stack'] == ['inner+0x1a (/opt/app)', 'outer+0x10 (/opt/app)',\n"
		"                         '[unknown] 0x7f0000 (/lib/libc.so.6+0x29d90)'], s\n"
		"assert s[1]['stack'][7] == 'deep+0x7 (/opt/lib.so)'\n"
		"assert e[0]['other_sites'] == 0 and e[0]['other_calls'] == 0\n",
		out), 0);
	free(out);
}

/* More sites than are shown: the rest are counted as other sites. */
static void test_error_sites_bounded(void **state)
{
	static struct ct_frame_info f[7];
	struct ct_callstack cs[7];
	struct fx_sink s;
	char *out, *at;

	fx_sink_open(&s, "summary", NULL);
	for (int i = 0; i < 7; i++) {
		char *name = malloc(16);

		snprintf(name, 16, "site%d", i);
		f[i] = (struct ct_frame_info){ .kind = CT_FRAME_NATIVE, .module = "/a", .function = name };
		cs[i] = (struct ct_callstack){ &f[i], 1, 100 + (uint64_t)i };
		for (int k = 0; k <= 7 - i; k++) { /* site0 most */
			struct ct_event ev = fx_event(FX_FREE, 9, 9, 0, 10, 2, U(0));

			ev.stack = &cs[i];
			fx_sink_event(&s, &ev);
		}
	}
	out = fx_sink_close(&s, NULL);
	at = strstr(out, "fake xFree xErrorMemory: 35 calls\n");
	assert_non_null(at);
	assert_non_null(strstr(at, "  4 calls at:\n      site4+0x0 (/a)\n  5 calls at other sites\n"));
	assert_null(strstr(at, "site5"));
	free(out);
	for (int i = 0; i < 7; i++)
		free((char *)f[i].function);
}

static const char want_ended[] =
	"cudatracer summary\n"
	"\n"
	"pid 300 (app): 1 call, 0 errors, 700ns in traced calls\n"
	"\n"
	"Time(%)  Total  Calls  Errors  Nested    Avg    Min    Max    P50    P99  Bytes  Runtime  API\n"
	"  100.0  700ns      1       0       -  700ns  700ns  700ns  700ns  700ns    256  fake     xMemset\n"
	"\n"
	"Bytes by copy kind:\n"
	"Runtime  API      Kind  Calls  Bytes\n"
	"fake     xMemset  -         1    256\n"
	"\n"
	"2 ended processes, folded together past keep_exited = 1 (their kernels, collectives and GPU rows are not kept): 5 calls, 1 error, 15.000us in traced calls\n"
	"\n"
	"Time(%)    Total  Calls  Errors  Nested      Avg      Min      Max      P50      P99  Bytes  Runtime  API\n"
	"   60.0  9.000us      3       1       -  3.000us  1.000us  5.000us  3.007us  5.000us   4196  fake     xMalloc\n"
	"   40.0  6.000us      2       0       -  3.000us  2.000us  4.000us  2.000us  4.000us   5120  fake     xMemcpy\n"
	"\n"
	"Bytes by copy kind:\n"
	"Runtime  API      Kind           Calls  Bytes\n"
	"fake     xMemcpy  xHostToDevice      1   4096\n"
	"fake     xMemcpy  xDeviceToHost      1   1024\n";

/* keep_exited = 1: of three processes that end, the first two are folded
 * into the ended row, their calls added by API (bytes by kind, errors and
 * percentiles too); the last is kept apart. */
static void test_ended_folded(void **state)
{
	struct ct_event ev[] = {
		fx_event(FX_MALLOC, 100, 100, 1000, 5000, 0, U(0x1000), U(4096)),
		fx_event(FX_MALLOC, 100, 100, 10000, 3000, 2, U(0), U(1) << 40),
		fx_event(FX_MEMCPY, 100, 100, 20000, 2000, 0, U(0x1000), U(0x9000), U(4096), U(1)),
		fx_event(FX_MALLOC, 200, 200, 30000, 1000, 0, U(0x2000), U(100)),
		fx_event(FX_MEMCPY, 200, 200, 40000, 4000, 0, U(0x9000), U(0x1000), U(1024), U(2)),
		fx_event(FX_MEMSET, 300, 300, 50000, 700, 0, U(0x2000), U(0), U(256)),
	};
	struct fx_sink s;
	char *out;

	(void)state;
	fx_sink_open(&s, "summary", "keep_exited", "1", NULL);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		fx_sink_event(&s, &ev[i]);
	for (uint32_t pid = 100; pid <= 300; pid += 100)
		s.ops->proc_exit(s.ctx, pid, 0);
	/* 400 made no call this sink saw: it takes no place, 300 stays apart */
	s.ops->proc_exit(s.ctx, 400, 0);
	out = fx_sink_close(&s, NULL);
	assert_text_equal(out, want_ended);
	free(out);
}

/* The ended processes kept apart, oldest first: a pid taken again while its
 * earlier process is kept is one of them, moved to the end (kept twice, the
 * second fold found the row gone and fewer than keep were kept apart). */
static void test_exited_pid_again(void **state)
{
	struct ct_exited e = { 0 };

	(void)state;
	assert_int_equal(ct_exited_note(&e, 10, 2), 0);
	assert_int_equal(ct_exited_note(&e, 11, 2), 0);
	assert_int_equal(ct_exited_note(&e, 10, 2), 0); /* 10 again: [11, 10] */
	assert_int_equal(e.n, 2);
	assert_int_equal(ct_exited_note(&e, 12, 2), 11);
	assert_int_equal(ct_exited_note(&e, 13, 2), 10);
	assert_int_equal(ct_exited_note(&e, 13, 2), 0); /* the newest again: stays */
	assert_int_equal(ct_exited_note(&e, 14, 2), 12);
	assert_int_equal(e.folded, 3);
	ct_exited_free(&e);
}

static void test_empty(void **state)
{
	struct fx_sink s;
	char *out;

	fx_sink_open(&s, "summary", NULL);
	out = fx_sink_close(&s, NULL);
	assert_text_equal(out, "cudatracer summary\n\nno calls traced\n");
	free(out);
}

/* Durations in the unit that suits them; one that would round to 1000 of a
 * unit is given in the next. */
static void test_time_units(void **state)
{
	static const struct { unsigned long long ns; const char *want; } v[] = {
		{ 0, "0ns" }, { 999, "999ns" }, { 1000, "1.000us" }, { 12345, "12.345us" },
		{ 999999, "999.999us" }, { 999999600, "1.000s" }, { 1234567, "1.235ms" },
		{ 2500000000ull, "2.500s" }, { 86400000000000ull, "86400.000s" },
	};
	char buf[CT_TABLE_NS_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_string_equal(ct_table_ns(buf, v[i].ns), v[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_kernels_and_nesting),
		cmocka_unit_test(test_kernels_json),
		cmocka_unit_test(test_interval_rewrites),
		cmocka_unit_test(test_error_sites),
		cmocka_unit_test(test_error_sites_json),
		cmocka_unit_test(test_error_sites_bounded),
		cmocka_unit_test(test_ended_folded),
		cmocka_unit_test(test_exited_pid_again),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_time_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
