// SPDX-License-Identifier: MIT
/* The html sink: a self-contained page whose tables, plot and timeline hold the right numbers. */
#include "test_sink_fixture.h"

static void feed(struct fx_sink *s)
{
	struct ct_event ev[] = {
		fx_event(FX_MALLOC, 100, 100, 1000, 5000, 0, U(0x1000), U(4096)),
		fx_event(FX_MALLOC, 100, 101, 10000, 3000, 0, U(0x2000), U(8192)),
		fx_event(FX_MEMCPY, 100, 101, 20000, 2000, 0, U(0x1000), U(0x9000), U(4096), U(1)),
		fx_event(FX_LAUNCH, 100, 100, 30000, 500, 2, U(0x401000), U(1), U(1), U(1)),
		fx_event(FX_FREE, 100, 100, 40000, 1000, 0, U(0x1000)),
		fx_event(FX_MALLOC_HOST, 200, 200, 50000, 1000, 0, U(0x7000), U(100)),
	};

	ev[1].comm = "<w&>"; /* a thread's own name, escaped in the page */
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		fx_sink_event(s, &ev[i]);
}

/* Parse the page and check what a reader sees. */
static const char check[] =
	"import sys, re\n"
	"from html.parser import HTMLParser\n"
	"page = sys.stdin.read()\n"
	"assert page.startswith('<!DOCTYPE html>')\n"
	"assert \"default-src 'none'\" in page\n"
	"low = page.lower()\n"
	"for bad in ('<script', 'src=', 'href=', 'url(', '@import', '<link', '<img', '<iframe'):\n"
	"    assert bad not in low, bad\n"
	"class P(HTMLParser):\n"
	"    def __init__(s):\n"
	"        super().__init__(); s.tables = {}; s.cur = None; s.row = None; s.cell = None\n"
	"        s.titles = {}; s.trow = None\n"
	"        s.rects = []; s.threads = []; s.text = None; s.lines = 0; s.stack = []; s.svg = None\n"
	"    def handle_starttag(s, t, a):\n"
	"        a = dict(a)\n"
	"        if t not in ('meta', 'line'): s.stack.append(t)\n"
	"        if t == 'table': s.cur = (a.get('class'), a.get('data-pid')); s.tables[s.cur] = []; s.titles[s.cur] = []\n"
	"        elif t == 'tr' and s.cur: s.row = []; s.tables[s.cur].append(s.row); s.trow = []; s.titles[s.cur].append(s.trow)\n"
	"        elif t in ('td', 'th') and s.row is not None: s.cell = ''; s.trow.append(a.get('title'))\n"
	"        elif t == 'svg': s.svg = a.get('id')\n"
	"        elif t == 'rect' and s.svg == 'timeline': s.rects.append(a)\n"
	"        elif t == 'text' and a.get('class') == 'thread': s.text = ''\n"
	"        elif t == 'polyline': s.lines += 1\n"
	"    def handle_endtag(s, t):\n"
	"        if t not in ('meta', 'line'):\n"
	"            assert s.stack and s.stack[-1] == t, (s.stack[-3:], t)\n"
	"            s.stack.pop()\n"
	"        if t in ('td', 'th') and s.cell is not None: s.row.append(s.cell); s.cell = None\n"
	"        elif t == 'table': s.cur = None; s.row = None\n"
	"        elif t == 'svg': s.svg = None\n"
	"        elif t == 'text' and s.text is not None: s.threads.append(s.text); s.text = None\n"
	"    def handle_data(s, d):\n"
	"        if s.cell is not None: s.cell += d\n"
	"        if s.text is not None: s.text += d\n"
	"p = P(); p.feed(page); p.close()\n"
	"assert not p.stack, p.stack\n"
	"apis = p.tables[('apis', '100')]\n"
	"assert apis[0][:5] == ['API', 'Runtime', 'Time(%)', 'Total(ns)', 'Calls'], apis[0]\n"
	"rows = {r[0]: r for r in apis[1:]}\n"
	"assert rows['xMalloc'][1:] == ['fake', '69.6', '8000', '2', '0', '4000', '3000', '5000', '3000', '5000', '12.0 KiB', '0'], rows['xMalloc']\n"
	"at = {r[0]: t for r, t in zip(apis[1:], p.titles[('apis', '100')][1:])}\n"
	"assert at['xMalloc'][11] == '12288 bytes', at['xMalloc']\n"
	"assert p.tables[('errors', '100')] == [['Error', 'API', 'Runtime', 'Calls'], ['xErrorMemory', 'xLaunchKernel', 'fake', '1']], p.tables[('errors', '100')]\n"
	"assert ('errors', '200') not in p.tables\n"
	"k = p.tables[('kernels', '100')]\n"
	"assert k[1] == ['0x401000', 'fake', '1', '1', '500', '500', '(1,1,1)', '-'], k\n"
	"assert rows['xLaunchKernel'][5] == '1' and rows['xLaunchKernel'][11] == '-'\n"
	"assert p.tables[('apis', '200')][1][0] == 'xMallocHost'\n"
	"mem = p.tables[('memory', None)]\n"
	"assert mem[1] == ['100', 'app', 'fake', '2', '1', '12.0 KiB', '0 B', '0 B', '1', '8.00 KiB', '0'], mem[1]\n"
	"assert mem[2] == ['200', 'app', 'fake', '1', '0', '0 B', '100 B', '0 B', '1', '100 B', '0'], mem[2]\n"
	"assert p.titles[('memory', None)][1][5] == '12288 bytes'\n"
	"assert len(p.rects) == 6, len(p.rects)\n"
	"assert [r['class'] for r in p.rects] == ['alloc', 'alloc', 'copy', 'launch err', 'free', 'alloc']\n"
	"assert p.threads == ['app 100 (pid 100)', '<w&> 101 (pid 100)', 'app 200 (pid 200)'], p.threads\n"
	"assert p.lines == 1, p.lines\n"
	"assert 'id=\"totals\">6 calls from 2 processes, 3 threads' in page\n"
	"assert '<span id=\"lost\">4</span>' in page\n";

static void test_page(void **state)
{
	struct fx_sink s;
	struct ct_run_stats st = { .lost = 4 };
	char *out;

	fx_sink_open(&s, "html", NULL);
	feed(&s);
	out = fx_sink_close(&s, &st);
	assert_int_equal(fx_python(check, out), 0);
	/* the device memory plot climbs to the peak and ends at what is still in use */
	assert_non_null(strstr(out, ">12.0 KiB</text>"));
	free(out);
}

static void test_timeline_is_bounded(void **state)
{
	struct fx_sink s;
	char *out;

	fx_sink_open(&s, "html", "max_calls", "4", "title", "run <1>", NULL);
	feed(&s);
	out = fx_sink_close(&s, NULL);
	assert_non_null(strstr(out, "<title>run &lt;1&gt;</title>"));
	assert_non_null(strstr(out, "The timeline shows the first 4 calls; 2 later calls are counted in "
				    "the tables but not drawn (the sink's max_calls). For every call of the run, "
				    "write a chrome trace"));
	/* the tables still count every call */
	assert_non_null(strstr(out, "6 calls from 2 processes"));
	free(out);
}

/* A long kernel name is cut in its cell and whole in its title; sizes of any
 * magnitude read in binary units; nested launches are counted once. */
static void test_kernels_sizes(void **state)
{
	static const char name[] = "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::"
				   "MmaPipelined<128, 128, 8>>>(Params)";
	struct ct_event ev[] = {
		fx_event(FX_MALLOC, 100, 100, 1000, 5000, 0, U(0x1000), U(1462763520)),
		fx_event(FX_LAUNCH, 100, 100, 9000, 500, 0, U(0x401000), U(64), U(2), U(1)),
		fx_event_pl(&fx_plugin2, FX_LAUNCH, 100, 100, 9100, 100, 0, U(0x9000), U(64), U(2), U(1)),
	};
	struct fx_sink s;
	char *out;

	ev[1].fields[0].str = ev[2].fields[0].str = name;
	ev[2].depth = 1;
	ev[2].parent_plugin = "fake";
	ev[2].parent_api = "xLaunchKernel";
	fx_sink_open(&s, "html", NULL);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		fx_sink_event(&s, &ev[i]);
	out = fx_sink_close(&s, NULL);
	assert_non_null(strstr(out, "<td class=\"n\" title=\"1462763520 bytes\">1.36 GiB</td>"));
	assert_non_null(strstr(out, "<tr><td title=\"void cutlass::Kernel&lt;cutlass::gemm::kernel::Gemm&lt;"
				    "cutlass::gemm::threadblock::MmaPipelined&lt;128, 128, 8&gt;&gt;&gt;(Params)\">"
				    "void cutlass::Kernel&lt;cutlass::gemm::kernel::Gemm&lt;cutlass::gemm::threadblock::..."
				    "</td><td>fake</td><td class=\"n\">1</td><td class=\"n\">0</td><td class=\"n\">500</td>"
				    "<td class=\"n\">500</td><td class=\"n\">(64,2,1)</td>"));
	/* the inner launch is nested: 0% of the time, marked, and no second kernel row */
	assert_non_null(strstr(out, "<tr><td>xLaunchKernel</td><td>other</td><td class=\"n\">0.0</td>"));
	assert_null(strstr(out, "<td>other</td><td class=\"n\">1</td>"));
	free(out);
}

/* --stacks: the sites of never-freed allocations (most bytes first) and of
 * failing calls (most calls first), each with its frames. */
static void test_sites(void **state)
{
	static const struct ct_frame_info fa[] = {
		{ .kind = CT_FRAME_NATIVE, .module = "/opt/app", .function = "load<T>", .offset = 0x10 },
		{ .kind = CT_FRAME_NATIVE, .module = "/opt/app", .function = "main", .offset = 0x20 },
	};
	static const struct ct_frame_info fb[] = {
		{ .kind = CT_FRAME_NATIVE, .module = "/opt/app", .function = "grow", .offset = 0x30 },
	};
	const struct ct_callstack a = { fa, 2, 1 }, b = { fb, 1, 2 };
	struct ct_event ev[] = {
		fx_event(FX_MALLOC, 100, 100, 1000, 10, 0, U(0x1000), U(100)),
		fx_event(FX_MALLOC, 100, 100, 2000, 10, 0, U(0x2000), U(5000)),
		fx_event(FX_MALLOC, 100, 100, 3000, 10, 2, U(0), U(1) << 40),
		fx_event(FX_MALLOC, 100, 100, 4000, 10, 2, U(0), U(1) << 40),
		fx_event(FX_MALLOC, 100, 100, 5000, 10, 2, U(0), U(1) << 41),
	};
	struct fx_sink s;
	char *out, *at;

	ev[0].stack = &a;
	ev[1].stack = &b;
	ev[2].stack = ev[4].stack = &b;
	ev[3].stack = &a;
	fx_sink_open(&s, "html", NULL);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		fx_sink_event(&s, &ev[i]);
	out = fx_sink_close(&s, NULL);
	at = strstr(out, "<table class=\"error-sites\" data-pid=\"100\">");
	assert_non_null(at);
	assert_non_null(strstr(at, "</tr>\n<tr><td>xErrorMemory</td><td>xMalloc</td><td>fake</td><td class=\"n\">2</td>"
				   "<td><pre class=\"stack\">grow+0x30 (/opt/app)\n</pre></td></tr>\n"
				   "<tr><td>xErrorMemory</td><td>xMalloc</td><td>fake</td><td class=\"n\">1</td>"
				   "<td><pre class=\"stack\">load&lt;T&gt;+0x10 (/opt/app)\nmain+0x20 (/opt/app)\n"
				   "</pre></td></tr>\n</table>"));
	at = strstr(out, "<table class=\"alloc-sites\">");
	assert_non_null(at);
	assert_non_null(strstr(at, "</tr>\n<tr data-pid=\"100\"><td class=\"n\">100</td><td>fake</td>"
				   "<td class=\"n\">1</td><td class=\"n\" title=\"5000 bytes\">4.88 KiB</td>"
				   "<td><pre class=\"stack\">grow+0x30 (/opt/app)\n</pre></td></tr>\n"
				   "<tr data-pid=\"100\"><td class=\"n\">100</td><td>fake</td><td class=\"n\">1</td>"
				   "<td class=\"n\" title=\"100 bytes\">100 B</td><td><pre class=\"stack\">"
				   "load&lt;T&gt;+0x10 (/opt/app)\nmain+0x20 (/opt/app)\n</pre></td></tr>\n</table>"));
	free(out);
}

static void test_empty_page(void **state)
{
	struct fx_sink s;
	char *out;

	fx_sink_open(&s, "html", NULL);
	out = fx_sink_close(&s, NULL);
	assert_non_null(strstr(out, "<p>No calls were traced.</p>"));
	assert_non_null(strstr(out, "</html>\n"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page),
		cmocka_unit_test(test_kernels_sizes),
		cmocka_unit_test(test_timeline_is_bounded),
		cmocka_unit_test(test_empty_page),
		cmocka_unit_test(test_sites),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
