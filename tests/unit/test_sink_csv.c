// SPDX-License-Identifier: MIT
/* The csv sink: one row per call, RFC 4180 quoting, exact text; control
 * bytes (a line break too) escaped, so that a row is one line; the arguments
 * one JSON object in the last field. */
#include "test_sink_fixture.h"

static const char header[] = "ts_ns,pid,tid,comm,plugin,api,dur_ns,depth,result,error,bytes,args,device\r\n";

/* The arguments: one JSON object in one field, quoted as it has quotes. */
static const char want_rows[] =
	"1700000000000001000,5,5,app,fake,xMalloc,250,0,xSuccess,0,64,\"{\"\"devPtr\"\":\"\"0x1000\"\",\"\"size\"\":64}\",\r\n"
	"1700000000000002000,5,5,app,fake,xMark,,0,,0,,\"{\"\"label\"\":\"\"a,b\"\"}\",\r\n"
	"1700000000000003000,5,6,app-worker,fake,xFree,10,1,xErrorMemory,1,,\"{\"\"devPtr\"\":\"\"0x1000\"\"}\",\r\n"
	"1700000000000004000,5,5,app,fake,xDeviceSynchronize,7,0,999,1,,{},\r\n"
	"1700000000000005000,5,5,\"we,ird\"\"x\",fake,xSetName,3,0,xSuccess,0,,\"{\"\"name\"\":\"\"line1\\nline2\"\"}\",\r\n"
	"1700000000000006000,5,5,app,fake,xMemcpy2D,9,0,xSuccess,0,1000,"
	"\"{\"\"width\"\":100,\"\"height\"\":10,\"\"kind\"\":\"\"xDeviceToDevice\"\"}\",\r\n";

static void feed(struct fx_sink *s)
{
	struct ct_event ev[] = {
		fx_event(FX_MALLOC, 5, 5, 1000, 250, 0, U(0x1000), U(64)),
		fx_event(FX_MARK, 5, 5, 2000, 0, 0, "a,b"),
		fx_event(FX_FREE, 5, 6, 3000, 10, 2, U(0x1000)),
		fx_event(FX_SYNC, 5, 5, 4000, 7, 999),
		fx_event(FX_NAMED, 5, 5, 5000, 3, 0, "line1\nline2"),
		fx_event(FX_MEMCPY2D, 5, 5, 6000, 9, 0, U(100), U(10), U(3)),
	};

	ev[2].depth = 1;
	ev[4].comm = "we,ird\"x";
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		fx_sink_event(s, &ev[i]);
}

static void test_rows(void **state)
{
	struct fx_sink s;
	char want[sizeof(header) + sizeof(want_rows)];
	char *out;

	fx_sink_open(&s, "csv", NULL);
	feed(&s);
	out = fx_sink_close(&s, NULL);
	snprintf(want, sizeof(want), "%s%s", header, want_rows);
	assert_text_equal(out, want);
	/* and a strict RFC 4180 reader gets the fields back */
	assert_int_equal(fx_python(
		"import csv, io, sys\n"
		"rows = list(csv.reader(io.StringIO(sys.stdin.read(), newline=''), strict=True))\n"
		"assert len(rows) == 7 and all(len(r) == 13 for r in rows), rows\n"
		"import json\n"
		"assert json.loads(rows[2][11]) == {'label': 'a,b'}\n"
		"assert rows[5][3] == 'we,ird\"x' and json.loads(rows[5][11]) == {'name': 'line1\\nline2'}\n"
		"assert json.loads(rows[6][11]) == {'width': 100, 'height': 10, 'kind': 'xDeviceToDevice'}\n",
		out), 0);
	free(out);
}

static void test_no_header(void **state)
{
	struct fx_sink s;
	char *out;

	fx_sink_open(&s, "csv", "header", "false", NULL);
	feed(&s);
	out = fx_sink_close(&s, NULL);
	assert_text_equal(out, want_rows);
	free(out);
}

/* Rows reach the file at each tick, before close: what a crash leaves. */
static void test_tick_flushes(void **state)
{
	struct fx_sink s;
	struct ct_event ev = fx_event(FX_SYNC, 5, 5, 4000, 7, 0);
	char *out;

	fx_sink_open(&s, "csv", NULL);
	fx_sink_event(&s, &ev);
	assert_int_equal(s.ops->tick(s.ctx, 1), 0);
	out = fx_sink_peek(&s);
	assert_text_equal(out, "ts_ns,pid,tid,comm,plugin,api,dur_ns,depth,result,error,bytes,args,device\r\n"
			       "1700000000000004000,5,5,app,fake,xDeviceSynchronize,7,0,xSuccess,0,,{},\r\n");
	free(out);
	free(fx_sink_close(&s, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_no_header),
		cmocka_unit_test(test_tick_flushes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
