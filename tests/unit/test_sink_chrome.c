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
	"{\"name\":\"xMalloc\",\"cat\":\"fake\",\"ph\":\"X\",\"ts\":5000001.000,\"dur\":0.500,\"pid\":100,"
	"\"tid\":101,\"args\":{\"devPtr\":\"0x1000\",\"size\":4096,\"result\":\"xSuccess\",\"error\":false,"
	"\"depth\":0}},\n"
	"{\"name\":\"device memory in use (fake)\",\"ph\":\"C\",\"ts\":5000001.500,\"pid\":100,"
	"\"args\":{\"bytes\":4096}},\n"
	"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":100,\"tid\":0,\"args\":{\"name\":\"app\"}},\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":100,\"tid\":100,\"args\":{\"name\":\"app\"}},\n"
	"{\"name\":\"xMemcpy\",\"cat\":\"fake\",\"ph\":\"X\",\"ts\":5000002.000,\"dur\":0.250,\"pid\":100,"
	"\"tid\":100,\"args\":{\"dst\":\"0x1000\",\"src\":\"0x9000\",\"count\":4096,\"kind\":\"xHostToDevice\","
	"\"result\":\"xSuccess\",\"error\":false,\"depth\":0}},\n"
	"{\"name\":\"bytes copied (fake)\",\"ph\":\"C\",\"ts\":5000002.250,\"pid\":100,"
	"\"args\":{\"xHostToDevice\":4096}},\n"
	"{\"name\":\"xMark\",\"cat\":\"fake\",\"ph\":\"i\",\"s\":\"t\",\"ts\":5000003.000,\"pid\":100,"
	"\"tid\":100,\"args\":{\"label\":\"a\\\"b\",\"depth\":0}},\n"
	"{\"name\":\"xFree\",\"cat\":\"fake\",\"ph\":\"X\",\"ts\":5000004.000,\"dur\":0.100,\"pid\":100,"
	"\"tid\":100,\"args\":{\"devPtr\":\"0x1000\",\"result\":\"xErrorMemory\",\"error\":true,\"depth\":0}},\n"
	"{\"name\":\"xFree\",\"cat\":\"fake\",\"ph\":\"X\",\"ts\":5000005.000,\"dur\":0.100,\"pid\":100,"
	"\"tid\":100,\"args\":{\"devPtr\":\"0x1000\",\"result\":\"xSuccess\",\"error\":false,\"depth\":0}},\n"
	"{\"name\":\"device memory in use (fake)\",\"ph\":\"C\",\"ts\":5000005.100,\"pid\":100,"
	"\"args\":{\"bytes\":0}},\n"
	"{\"name\":\"xLaunchKernel\",\"cat\":\"fake\",\"ph\":\"X\",\"ts\":5000006.000,\"dur\":1234.567,"
	"\"pid\":100,\"tid\":100,\"args\":{\"func\":\"0x401000\",\"grid\":[2,1,1],\"result\":\"xSuccess\","
	"\"error\":false,\"depth\":1}}\n"
	"],\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"cudatracer\",\"version\":\"" CT_VERSION "\","
	"\"clock\":\"CLOCK_MONOTONIC\",\"calls\":6,\"lost\":2,\"unpaired\":1,\"start_ns\":10,\"end_ns\":20}}\n";

static const char check[] =
	"import json, sys\n"
	"d = json.load(sys.stdin)\n"
	"ev = d['traceEvents']\n"
	"x = [e for e in ev if e['ph'] == 'X']\n"
	"assert [e['name'] for e in x] == ['xMalloc', 'xMemcpy', 'xFree', 'xFree', 'xLaunchKernel']\n"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_valid_mid_run),
		cmocka_unit_test(test_streams_in_chunks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
