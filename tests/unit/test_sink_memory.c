// SPDX-License-Identifier: MIT
/* The memory sink and the allocation tracker under it: exact accounting and report. */
#include "test_sink_fixture.h"
#include "sinks/memtrack.h"

/* Times in microseconds after FX_WALL, so the report's times are easy to read. */
#define US(x) ((uint64_t)(x) * 1000)

static void feed(struct fx_sink *s)
{
	struct ct_event ev[] = {
		fx_event(FX_SYNC, 10, 10, US(50), 100, 0),                      /* tracing begins */
		fx_event(FX_FREE, 10, 10, US(100), 100, 0, U(0xdead)),          /* allocated before */
		fx_event(FX_MALLOC, 10, 10, US(1000), 100, 0, U(0x1000), U(4096)),
		fx_event(FX_MALLOC, 10, 11, US(2000), 100, 0, U(0x2000), U(8192)),
		fx_event(FX_MALLOC, 10, 10, US(2500), 100, 2, U(0), U(1) << 40), /* failed: nothing */
		fx_event(FX_FREE, 10, 10, US(2600), 100, 0, U(0)),              /* free(NULL): nothing */
		fx_event(FX_MALLOC_HOST, 10, 10, US(3000), 100, 0, U(0x7000), U(1000)),
		fx_event(FX_FREE, 10, 10, US(4000), 100, 0, U(0x1000)),
		fx_event(FX_FREE, 10, 10, US(4500), 100, 2, U(0x2000)),         /* failed: still live */
		fx_event(FX_FREE_HOST, 10, 10, US(5000), 100, 0, U(0x7000)),
		fx_event(FX_MALLOC, 10, 10, US(6000), 100, 0, U(0x3000), U(100)),
		fx_event(FX_FREE, 10, 11, US(7000), 100, 0, U(0xbeef)),
		/* another process reuses an address; another runtime frees what it never saw */
		fx_event(FX_MALLOC, 20, 20, US(8000), 100, 0, U(0x1000), U(50)),
		fx_event_pl(&fx_plugin2, FX_FREE, 10, 10, US(9000), 100, 0, U(0x2000)),
	};

	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		fx_sink_event(s, &ev[i]);
}

static const char want_text[] =
	"cudatracer memory report\n"
	"\n"
	"pid 10 (app), runtime fake, traced since 2023-11-14T22:13:20.000050Z\n"
	"  allocations: 4 (13388 bytes), frees: 2 (5096 bytes)\n"
	"  peak in use: device 12288 bytes, host 1000 bytes, managed 0 bytes\n"
	"  never freed: 2 allocations, 8292 bytes\n"
	"    size  pointer  kind    api      time                         tid\n"
	"    8192  0x2000   device  xMalloc  2023-11-14T22:13:20.002000Z   11\n"
	"     100  0x3000   device  xMalloc  2023-11-14T22:13:20.006000Z   10\n"
	"  frees of pointers never seen allocated: 2 (tracing began 2023-11-14T22:13:20.000050Z; memory "
	"allocated before then cannot be told from a bad free)\n"
	"    pointer  api    time                         tid\n"
	"    0xdead   xFree  2023-11-14T22:13:20.000100Z  10\n"
	"    0xbeef   xFree  2023-11-14T22:13:20.007000Z  11\n"
	"\n"
	"pid 10 (app), runtime other, traced since 2023-11-14T22:13:20.009000Z\n"
	"  allocations: 0 (0 bytes), frees: 0 (0 bytes)\n"
	"  peak in use: device 0 bytes, host 0 bytes, managed 0 bytes\n"
	"  never freed: 0 allocations, 0 bytes\n"
	"  frees of pointers never seen allocated: 1 (tracing began 2023-11-14T22:13:20.009000Z; memory "
	"allocated before then cannot be told from a bad free)\n"
	"    pointer  api    time                         tid\n"
	"    0x2000   xFree  2023-11-14T22:13:20.009000Z  10\n"
	"\n"
	"pid 20 (app), runtime fake, traced since 2023-11-14T22:13:20.008000Z\n"
	"  allocations: 1 (50 bytes), frees: 0 (0 bytes)\n"
	"  peak in use: device 50 bytes, host 0 bytes, managed 0 bytes\n"
	"  never freed: 1 allocations, 50 bytes\n"
	"    size  pointer  kind    api      time                         tid\n"
	"      50  0x1000   device  xMalloc  2023-11-14T22:13:20.008000Z   20\n";

static void test_text_report(void **state)
{
	struct fx_sink s;
	char *out;

	fx_sink_open(&s, "memory", NULL);
	feed(&s);
	out = fx_sink_close(&s, NULL);
	assert_text_equal(out, want_text);
	free(out);
}

static void test_json_report(void **state)
{
	struct fx_sink s;
	struct ct_run_stats st = { .lost = 0 };
	char *out;

	fx_sink_open(&s, "memory", "format", "json", NULL);
	feed(&s);
	out = fx_sink_close(&s, &st);
	assert_int_equal(fx_python(
		"import json, sys\n"
		"d = json.load(sys.stdin)\n"
		"p = d['processes']\n"
		"assert [(x['pid'], x['runtime']) for x in p] == [(10, 'fake'), (10, 'other'), (20, 'fake')]\n"
		"a = p[0]\n"
		"assert (a['allocs'], a['alloc_bytes'], a['frees'], a['freed_bytes']) == (4, 13388, 2, 5096), a\n"
		"assert a['peak'] == {'device': 12288, 'host': 1000, 'managed': 0}, a['peak']\n"
		"assert a['in_use'] == {'device': 8292, 'host': 0, 'managed': 0}, a['in_use']\n"
		"assert a['unfreed_count'] == 2 and a['unfreed_bytes'] == 8292\n"
		"assert [(u['ptr'], u['size'], u['api'], u['tid']) for u in a['unfreed']] == \\\n"
		"       [('0x2000', 8192, 'xMalloc', 11), ('0x3000', 100, 'xMalloc', 10)]\n"
		"assert a['unfreed'][0]['ts_ns'] == 1700000000002000000\n"
		"assert a['unknown_frees'] == 2 and [u['ptr'] for u in a['unknown_free_list']] == ['0xdead', '0xbeef']\n"
		"assert a['traced_since_ns'] == 1700000000000050000\n"
		"assert p[1]['unknown_frees'] == 1 and p[1]['allocs'] == 0\n"
		"assert p[2]['unfreed'][0]['ptr'] == '0x1000' and p[2]['peak']['device'] == 50\n"
		"assert d['lost'] == 0\n",
		out), 0);
	free(out);
}

static void test_max_list(void **state)
{
	struct fx_sink s;
	char *out;

	fx_sink_open(&s, "memory", "max_list", "1", NULL);
	for (uint64_t i = 1; i <= 5; i++) {
		struct ct_event ev = fx_event(FX_MALLOC, 3, 3, US(i), 10, 0, U(0x1000) * i, U(10));

		fx_sink_event(&s, &ev);
	}
	out = fx_sink_close(&s, NULL);
	assert_non_null(strstr(out, "  never freed: 5 allocations, 50 bytes\n"
				    "    size  pointer  kind    api      time                         tid\n"
				    "      10  0x1000   device  xMalloc  2023-11-14T22:13:20.000001Z    3\n"
				    "    ... and 4 more\n"));
	free(out);
}

/* The tracker alone: what chrome and html draw from. */
static void test_tracker_changes(void **state)
{
	struct ct_memtrack t = { 0 };
	struct ct_mem_change ch;
	struct ct_event a = fx_event(FX_MALLOC, 1, 1, 0, 1, 0, U(0x10), U(300));
	struct ct_event again = fx_event(FX_MALLOC, 1, 1, 5, 1, 0, U(0x10), U(200));
	struct ct_event f = fx_event(FX_FREE, 1, 1, 9, 1, 0, U(0x10));
	struct ct_event unreadable = fx_event(FX_MALLOC, 1, 1, 10, 1, 0, U(0x20), U(5));

	assert_int_equal(ct_memtrack_event(&t, &a, &ch), 0);
	assert_int_equal(ch.op, CT_MEMOP_ALLOC);
	assert_int_equal(ch.kind, CT_MEM_DEVICE);
	assert_int_equal(ch.size, 300);
	assert_int_equal(ch.space->in_use[CT_MEM_DEVICE], 300);
	/* the same pointer again: its free was missed; the old one is replaced, not added */
	assert_int_equal(ct_memtrack_event(&t, &again, &ch), 0);
	assert_int_equal(ch.space->in_use[CT_MEM_DEVICE], 200);
	assert_int_equal(ch.space->peak[CT_MEM_DEVICE], 300);
	assert_int_equal(ch.space->replaced, 1);
	assert_int_equal(ct_memtrack_event(&t, &f, &ch), 0);
	assert_int_equal(ch.op, CT_MEMOP_FREE);
	assert_int_equal(ch.size, 200);
	assert_int_equal(ch.space->in_use[CT_MEM_DEVICE], 0);
	/* an allocation whose out-pointer could not be read is counted, not tracked */
	unreadable.fields[0].valid = false;
	assert_int_equal(ct_memtrack_event(&t, &unreadable, &ch), 0);
	assert_int_equal(ch.op, CT_MEMOP_NONE);
	ct_memtrack_drop_pid(&t, 1);
	assert_int_equal(t.spaces.n, 0);
	ct_memtrack_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_report),
		cmocka_unit_test(test_json_report),
		cmocka_unit_test(test_max_list),
		cmocka_unit_test(test_tracker_changes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
