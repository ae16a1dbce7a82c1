// SPDX-License-Identifier: MIT
/*
 * The analysis in a live run's sinks: the summary's table and the html page
 * are followed by the answer, and the chrome trace marks each step and each idle gap with
 * its cause, once GPU activity comes; without it, neither changes. Five
 * launches of one kernel, 1 us apart, each kernel [100, 600) ns after its
 * launch; the analysis starts at the first kernel (after the first launch),
 * and the period opens a step at each launch after (3 whole steps), each
 * busy 500 ns, idle 500 ns in two launch-bound gaps (100 and 400 ns).
 */
#include "test_sink_fixture.h"
#include "analysis/analysis.h"

static void feed(struct fx_sink *s, bool gpu)
{
	for (uint64_t k = 0; k < 5; k++) {
		struct ct_event ev = fx_event(FX_LAUNCH, 1, 1, k * 1000, 10, 0, U(0x1000), U(1), U(1), U(1));
		struct ct_gpu_event g = {
			.kind = CT_GPU_KERNEL, .pid = 1, .ts_ns = FX_WALL + k * 1000 + 100,
			.mono_ns = FX_MONO + k * 1000 + 100, .dur_ns = 500, .name = "k", .correlation = (uint32_t)k + 1,
		};

		fx_sink_event(s, &ev);
		if (gpu)
			assert_int_equal(s->ops->gpu(s->ctx, &g), 0);
	}
}

static int count(const char *text, const char *what)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void summary_answer(void **state)
{
	struct fx_sink s;
	char *text;

	(void)state;
	fx_sink_open(&s, "summary", NULL);
	feed(&s, true);
	text = fx_sink_close(&s, NULL);
	assert_non_null(strstr(text, "Why the GPU was idle"));
	assert_non_null(strstr(text, "pid 1: 3 steps (the launch sequence repeats every 1 launches)"));
	assert_non_null(strstr(text, "wall 0.003 ms, GPU busy 0.001 ms (50.0%), idle 0.001 ms"));
	assert_non_null(strstr(text, "launch-bound                 0.001 ms in 6 gaps"));
	assert_non_null(strstr(text, "verdict: 1. launch-bound (0.001 ms)"));
	free(text);
	/* No GPU activity: the table alone, as before. */
	fx_sink_open(&s, "summary", NULL);
	feed(&s, false);
	text = fx_sink_close(&s, NULL);
	assert_null(strstr(text, "Why the GPU"));
	free(text);
}

static void chrome_marks(void **state)
{
	struct fx_sink s;
	char *text;

	(void)state;
	fx_sink_open(&s, "chrome", NULL);
	feed(&s, true);
	text = fx_sink_close(&s, NULL);
	assert_int_equal(count(text, "\"name\":\"step\",\"cat\":\"analysis\""), 3);
	/* The steps on the monotonic clock, as the calls: 5 s + 1, 2, 3 us. */
	assert_non_null(strstr(text, "\"name\":\"step\",\"cat\":\"analysis\",\"ph\":\"X\",\"ts\":5000001.000,"
				     "\"dur\":1.000,\"pid\":1,\"tid\":4294967280,\"args\":{\"busy_ns\":500,\"idle_ns\":500}}"));
	assert_int_equal(count(text, "\"name\":\"launch-bound\",\"cat\":\"analysis\""), 6);
	assert_non_null(strstr(text, "\"name\":\"launch-bound\",\"cat\":\"analysis\",\"ph\":\"X\",\"ts\":5000001.600,"
				     "\"dur\":0.400,\"pid\":1,\"tid\":4294967281"));
	assert_non_null(strstr(text, "\"args\":{\"name\":\"GPU idle, by cause (analysis)\"}"));
	assert_int_equal(fx_python("import json,sys; json.load(sys.stdin)", text), 0);
	free(text);
	fx_sink_open(&s, "chrome", NULL);
	feed(&s, false);
	text = fx_sink_close(&s, NULL);
	assert_null(strstr(text, "\"cat\":\"analysis\""));
	free(text);
}

static void html_answer(void **state)
{
	struct fx_sink s;
	char *text;

	(void)state;
	fx_sink_open(&s, "html", NULL);
	feed(&s, true);
	text = fx_sink_close(&s, NULL);
	assert_non_null(strstr(text, "<h2>Why the GPU was idle</h2>\n<pre id=\"analysis\">"));
	assert_non_null(strstr(text, "pid 1: 3 steps (the launch sequence repeats every 1 launches)"));
	assert_non_null(strstr(text, "verdict: 1. launch-bound (0.001 ms)\n</pre>"));
	free(text);
	fx_sink_open(&s, "html", NULL);
	feed(&s, false);
	text = fx_sink_close(&s, NULL);
	assert_null(strstr(text, "id=\"analysis\""));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summary_answer),
		cmocka_unit_test(chrome_marks),
		cmocka_unit_test(html_answer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
