// SPDX-License-Identifier: MIT
/* The chrome sink: exact Trace Event JSON, and a file that parses at every moment. */
#include "test_sink_fixture.h"

#ifndef CT_VERSION
#define CT_VERSION "0"
#endif

static void feed(struct fx_sink *s)
{
	struct ct_event ev[] = {
		fx_event(FX_MALLOC, 100, 101, 1000, 500, 0, U(0x1000), U(4096)),
		fx_event(FX_MEMCPY, 100, 100, 2000, 250, 0, U(0x1000), U(0x9000), U(4096), U(1)),
		fx_event(FX_MARK, 100, 100, 3000, 0, 0, "a\"b"),
		fx_event(FX_FREE, 100, 100, 4000, 100, 2, U(0x1000)),
		fx_event(FX_FREE, 100, 100, 5000, 100, 0, U(0x1000)),
		fx_event(FX_LAUNCH, 100, 100, 6000, 1234567, 0, U(0x401000), U(2), U(1), U(1)),
	};

	ev[5].depth = 1;
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		fx_sink_event(s, &ev[i]);
}

static const char want[] =
	"{\"traceEvents\":[\n"
	"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":100,\"tid\":0,\"args\":{\"name\":\"app-worker\"}},\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":100,\"tid\":101,\"args\":{\"name\":\"app-worker\"}},\n"
	"{\"name\":\"xMalloc\",\"cat\":\"fake\",\"ph\":\"X\",\"ts\":5000001.000,\"dur\":0.500,\"pid\":100,\"tid\":101,\"args\":{\"api\":\"xMalloc\",\"call\":{\"devPtr\":\"0x1000\",\"size\":4096},\"result\":\"xSuccess\",\"error\":false,\"depth\":0}},\n"
	"{\"name\":\"device memory in use (fake)\",\"ph\":\"C\",\"ts\":5000001.500,\"pid\":100,\"args\":{\"bytes\":4096}},\n"
	"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":100,\"tid\":0,\"args\":{\"name\":\"app\"}},\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":100,\"tid\":100,\"args\":{\"name\":\"app\"}},\n"
	"{\"name\":\"xMemcpy\",\"cat\":\"fake\",\"ph\":\"X\",\"ts\":5000002.000,\"dur\":0.250,\"pid\":100,\"tid\":100,\"args\":{\"api\":\"xMemcpy\",\"call\":{\"dst\":\"0x1000\",\"src\":\"0x9000\",\"count\":4096,\"kind\":\"xHostToDevice\"},\"result\":\"xSuccess\",\"error\":false,\"depth\":0}},\n"
	"{\"name\":\"bytes copied (fake)\",\"ph\":\"C\",\"ts\":5000002.250,\"pid\":100,\"args\":{\"xHostToDevice\":4096}},\n"
	"{\"name\":\"xMark\",\"cat\":\"fake\",\"ph\":\"i\",\"s\":\"t\",\"ts\":5000003.000,\"pid\":100,\"tid\":100,\"args\":{\"api\":\"xMark\",\"call\":{\"label\":\"a\\\"b\"},\"depth\":0}},\n"
	"{\"name\":\"xFree\",\"cat\":\"fake\",\"ph\":\"X\",\"ts\":5000004.000,\"dur\":0.100,\"pid\":100,\"tid\":100,\"args\":{\"api\":\"xFree\",\"call\":{\"devPtr\":\"0x1000\"},\"result\":\"xErrorMemory\",\"error\":true,\"depth\":0}},\n"
	"{\"name\":\"xFree\",\"cat\":\"fake\",\"ph\":\"X\",\"ts\":5000005.000,\"dur\":0.100,\"pid\":100,\"tid\":100,\"args\":{\"api\":\"xFree\",\"call\":{\"devPtr\":\"0x1000\"},\"result\":\"xSuccess\",\"error\":false,\"depth\":0}},\n"
	"{\"name\":\"device memory in use (fake)\",\"ph\":\"C\",\"ts\":5000005.100,\"pid\":100,\"args\":{\"bytes\":0}},\n"
	"{\"name\":\"kernel 0x401000\",\"cat\":\"fake\",\"ph\":\"X\",\"ts\":5000006.000,\"dur\":1234.567,\"pid\":100,\"tid\":100,\"args\":{\"api\":\"xLaunchKernel\",\"call\":{\"func\":\"0x401000\",\"grid\":[2,1,1]},\"result\":\"xSuccess\",\"error\":false,\"depth\":1}}\n"
	"],\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"cudatracer\",\"version\":\"" CT_VERSION "\",\"clock\":\"CLOCK_MONOTONIC\",\"calls\":6,\"lost\":2,\"unpaired\":1,\"start_ns\":10,\"end_ns\":20}}\n";

static const char check[] =
	"import json, sys\n"
	"d = json.load(sys.stdin)\n"
	"ev = d['traceEvents']\n"
	"x = [e for e in ev if e['ph'] == 'X']\n"
	"assert [e['name'] for e in x] == ['xMalloc', 'xMemcpy', 'xFree', 'xFree', 'kernel 0x401000']\n"
	"assert [e['args']['api'] for e in x] == ['xMalloc', 'xMemcpy', 'xFree', 'xFree', 'xLaunchKernel']\n"
	"assert {(e['pid'], e['tid']) for e in x} == {(100, 101), (100, 100)}\n"
	"assert [e['name'] for e in ev if e['ph'] == 'i'] == ['xMark']\n"
	"mem = [e['args']['bytes'] for e in ev if e['name'] == 'device memory in use (fake)']\n"
	"assert mem == [4096, 0], mem\n"
	"cp = [e['args'] for e in ev if e['name'] == 'bytes copied (fake)']\n"
	"assert cp == [{'xHostToDevice': 4096}], cp\n"
	"names = {e['tid']: e['args']['name'] for e in ev if e['name'] == 'thread_name'}\n"
	"assert names == {101: 'app-worker', 100: 'app'}\n"
	"assert d['otherData']['calls'] == 6 and d['otherData']['lost'] == 2\n";

static void test_golden(void **state)
{
	struct fx_sink s;
	struct ct_run_stats st = { .events = 6, .lost = 2, .unpaired = 1, .start_ns = 10, .end_ns = 20 };
	char *out;

	fx_sink_open(&s, "chrome", NULL);
	feed(&s);
	out = fx_sink_close(&s, &st);
	assert_text_equal(out, want);
	assert_int_equal(fx_python(check, out), 0);
	free(out);
}

/* A launch as cudart's row has it: a kernel, shapes, and a pointer named args. */
static const struct ct_arg launch_args[] = {
	{ .name = "func", .kind = CT_ARG_PTR, CT_SLOT(0), .size = 8, .role = CT_ROLE_KERNEL },
	{ .name = "grid", .kind = CT_ARG_DIM3, CT_SLOT(1), .size = 12, .role = CT_ROLE_GRID },
	{ .name = "args", .kind = CT_ARG_PTR, CT_SLOT(3), .size = 8 },
};
static const struct ct_api launch_api = { .symbol = "rtLaunchKernel", .flags = CT_API_LAUNCH,
					  .args = launch_args, .n_args = 3 };
static const struct ct_plugin rt_plugin = { CT_PLUGIN_HEAD, .name = "rt", .apis = &launch_api, .n_apis = 1 };

/*
 * The runtime's launch (rt) and the driver's launch made inside it (fake,
 * depth 1, parent rt/rtLaunchKernel), delivered inner first as the ring
 * does: both slices are named by the kernel, the API in args, the call's
 * own `args` pointer in args.call, and one flow arrow goes from the outer
 * slice to the inner one. With clock = wall the same instants in UTC.
 */
static const char flows_check[] =
	"import json, sys, os\n"
	"d = json.load(sys.stdin)\n"
	"ev = d['traceEvents']\n"
	"x = [e for e in ev if e['ph'] == 'X']\n"
	"assert [e['name'] for e in x] == ['vecAdd(float*)', 'vecAdd(float*)'], x\n"
	"inner, outer = x\n"
	"assert inner['args']['api'] == 'xLaunchKernel' and outer['args']['api'] == 'rtLaunchKernel'\n"
	"assert outer['args']['call'] == {'func': 'vecAdd(float*)', 'grid': [8, 1, 1], 'args': '0x7ffd0000'}, outer\n"
	"assert outer['args']['depth'] == 0 and 'result' not in outer['args']['call']\n"
	"fl = [e for e in ev if e['ph'] in 'sf']\n"
	"assert [e['ph'] for e in fl] == ['s', 'f'] and fl[0]['id'] == fl[1]['id'], fl\n"
	"assert fl[1]['bp'] == 'e' and all(e['tid'] == 100 for e in fl)\n"
	"wall = os.environ['CLOCK'] == 'wall'\n"
	"base = 1700000000000000 if wall else 5000000\n"
	"assert fl[0]['ts'] == outer['ts'] == base + 1 and fl[1]['ts'] == inner['ts'] == base + 1.1, (fl, base)\n"
	"assert d['otherData']['clock'] == ('CLOCK_REALTIME' if wall else 'CLOCK_MONOTONIC')\n";

static void test_launch_names_flows(void **state)
{
	static const char *const clocks[] = { "monotonic", "wall" };

	for (int c = 0; c < 2; c++) {
		struct ct_event outer = fx_event_pl(&rt_plugin, 0, 100, 100, 1000, 500, 0, U(0x401000),
						    U(8), U(1), U(1), U(0x7ffd0000));
		struct ct_event inner = fx_event(FX_LAUNCH, 100, 100, 1100, 100, 0, U(0x9000), U(8), U(1), U(1));
		struct fx_sink s;
		char *out;

		outer.fields[0].str = inner.fields[0].str = "vecAdd(float*)";
		inner.depth = 1;
		inner.parent_plugin = "rt";
		inner.parent_api = "rtLaunchKernel";
		fx_sink_open(&s, "chrome", "clock", clocks[c], NULL);
		fx_sink_event(&s, &inner);
		fx_sink_event(&s, &outer);
		out = fx_sink_close(&s, NULL);
		setenv("CLOCK", clocks[c], 1);
		assert_int_equal(fx_python(flows_check, out), 0);
		free(out);
	}
}

static const char parses[] =
	"import json, sys, os\n"
	"d = json.load(sys.stdin)\n"
	"n = len([e for e in d['traceEvents'] if e['ph'] in 'Xi'])\n"
	"assert n == int(os.environ['WANT']), (n, os.environ['WANT'])\n";

static void expect_calls(struct fx_sink *s, const char *want_calls)
{
	char *out = fx_sink_peek(s);

	setenv("WANT", want_calls, 1);
	assert_int_equal(fx_python(parses, out), 0);
	free(out);
}

/* What a killed tracer leaves behind: a valid trace at every step. */
static void test_valid_mid_run(void **state)
{
	struct fx_sink s;
	char *out;

	fx_sink_open(&s, "chrome", NULL);
	expect_calls(&s, "0");          /* just opened: an empty trace */
	feed(&s);
	expect_calls(&s, "0");          /* formatted, not yet written */
	assert_int_equal(s.ops->tick(s.ctx, 1), 0);
	expect_calls(&s, "6");          /* written, with a closing trailer after */
	assert_int_equal(s.ops->tick(s.ctx, 2), 0);
	expect_calls(&s, "6");
	feed(&s);
	assert_int_equal(s.ops->tick(s.ctx, 3), 0);
	expect_calls(&s, "12");
	out = fx_sink_close(&s, NULL);
	setenv("WANT", "12", 1);
	assert_int_equal(fx_python(parses, out), 0);
	free(out);
}

/* Many calls go out in chunks without a tick; memory stays bounded by the chunk. */
static void test_streams_in_chunks(void **state)
{
	struct fx_sink s;
	struct ct_event ev = fx_event(FX_SYNC, 7, 7, 0, 10, 0);
	char *out;
	size_t len;

	fx_sink_open(&s, "chrome", "args", "false", "counters", "false", NULL);
	for (int i = 0; i < 20000; i++) {
		ev.mono_ns += 100;
		fx_sink_event(&s, &ev);
	}
	out = fx_sink_peek(&s);
	len = strlen(out);
	/* over a megabyte formatted: most of it already on disk, and still valid */
	assert_true(len > 1000000);
	assert_int_equal(fx_python("import json, sys\nd = json.load(sys.stdin)\n"
				   "assert 15000 < len(d['traceEvents']) <= 20002\n", out), 0);
	free(out);
	out = fx_sink_close(&s, NULL);
	setenv("WANT", "20000", 1);
	assert_int_equal(fx_python(parses, out), 0);
	assert_null(strstr(out, "\"devPtr\""));
	free(out);
}

/* --stacks: the frames on the call's slice, as lines; a long stack of long
 * names (past the room a call has without one) still parses. */
static void test_stacks(void **state)
{
	static const struct ct_frame_info fr[] = {
		{ .kind = CT_FRAME_NATIVE, .addr = 0x40101a, .module = "/opt/app", .function = "inner", .offset = 0x27 },
		{ .kind = CT_FRAME_NATIVE, .addr = 0x7f12, .module = "/lib/a\"b.so", .offset = 0x7f12 },
		{ .kind = CT_FRAME_TRUNCATED },
	};
	const struct ct_callstack cs = { fr, 3, 1 };
	struct ct_py_frames *py = calloc(1, sizeof(*py) + 2 * sizeof(py->f[0]));
	struct ct_frame_info *big = calloc(126, sizeof(*big));
	char *name = malloc(1001);
	struct ct_callstack bigcs = { big, 126, 2 };
	struct ct_event a = fx_event(FX_MALLOC, 5, 5, 1000, 10, 2, U(0), U(64));
	struct ct_event b = fx_event(FX_MALLOC, 5, 5, 2000, 10, 2, U(0), U(64));
	struct fx_sink s;
	char *out;

	py->n = 2;
	py->f[0] = (struct ct_py_frame_info){ "train", "model.py", 42, NULL };
	py->f[1] = (struct ct_py_frame_info){ "<module>", "main.py", 7, NULL };
	memset(name, 'n', 1000);
	name[1000] = 0;
	for (int i = 0; i < 126; i++)
		big[i] = (struct ct_frame_info){ .kind = CT_FRAME_NATIVE, .module = name, .function = name };
	a.stack = &cs;
	a.py_stack = py;
	b.stack = &bigcs;
	fx_sink_open(&s, "chrome", "args", "false", NULL);
	fx_sink_event(&s, &a);
	fx_sink_event(&s, &b);
	out = fx_sink_close(&s, NULL);
	assert_non_null(strstr(out, "\"error\":true,\"stack\":[\"inner+0x27 (/opt/app)\","
				    "\"[unknown] 0x7f12 (/lib/a\\\"b.so+0x7f12)\",\"[truncated]\"],"
				    "\"py_stack\":[\"train (model.py:42)\",\"<module> (main.py:7)\"],\"depth\":0}}"));
	assert_int_equal(fx_python("import json, sys\n"
				   "x = [e for e in json.load(sys.stdin)['traceEvents'] if e['ph'] == 'X']\n"
				   "assert len(x) == 2 and 'py_stack' not in x[1]['args'], x\n"
				   "assert x[0]['args']['stack'][1] == '[unknown] 0x7f12 (/lib/a\"b.so+0x7f12)'\n"
				   "st = x[1]['args']['stack']\n"
				   "assert len(st) == 126 and all(l.startswith('nnnn') for l in st), len(st)\n",
				   out), 0);
	free(out);
	free(py);
	free(big);
	free(name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_launch_names_flows),
		cmocka_unit_test(test_valid_mid_run),
		cmocka_unit_test(test_streams_in_chunks),
		cmocka_unit_test(test_stacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
