// SPDX-License-Identifier: MIT
/*
 * The jsonl sink: exact lines. It keeps the text of a thread (pid, tid,
 * comm, depth) and of a result (code, name, error) from one event to the
 * next; these lines pin that a kept text is never shown for an event it
 * does not match: a comm that changes in place, slots shared by two keys,
 * codes outside any table, negative codes, strings that need escaping.
 */
#include <time.h>
#include "test_sink_fixture.h"

#define HEAD(ts, api) "{\"ts_ns\":17000000000000" ts ",\"plugin\":\"fake\",\"api\":\"" api "\""
#define SYNC(ts, thread, result) HEAD(ts, "xDeviceSynchronize") thread ",\"dur_ns\":7" result ",\"args\":{}}\n"
/* A thread's keys, and the device (null: none of its calls said). */
#define T(pid, tid, comm, depth) ",\"pid\":" #pid ",\"tid\":" #tid ",\"comm\":\"" comm "\",\"depth\":" #depth ",\"device\":null"
#define R(code, name, error) ",\"result\":" #code ",\"result_name\":" name ",\"error\":" #error

/* The output after its first line, which must be the trace's meta line
 * (test_meta checks what it holds). */
static const char *events_of(const char *out)
{
	const char *nl = strchr(out, '\n');

	assert_true(!strncmp(out, "{\"kind\":\"meta\",", 15));
	assert_non_null(nl);
	return nl + 1;
}

/* The sink's whole output for these events must be `want`. */
static void expect_lines(const struct ct_event *ev, size_t n, const char *want)
{
	struct fx_sink s;
	char *out;

	fx_sink_open(&s, "jsonl", NULL);
	for (size_t i = 0; i < n; i++)
		fx_sink_event(&s, &ev[i]);
	out = fx_sink_close(&s, NULL);
	assert_text_equal(events_of(out), want);
	free(out);
}

/* n calls of pid 5, tid 5, a microsecond apart, that return codes[i] (or
 * succeed): each test then changes what it is about. */
static void syncs(struct ct_event *ev, size_t n, const int64_t *codes)
{
	for (size_t i = 0; i < n; i++)
		ev[i] = fx_event(FX_SYNC, 5, 5, 1000 * (i + 1), 7, codes ? codes[i] : 0);
}

/* Results: named, unnamed, negative, and codes 64 apart (the same slot). */
static void test_results(void **state)
{
	static const int64_t codes[] = { 0, 2, 999, -1, 64, 0, 63, -1, 3, 3, 0 };
	struct ct_event ev[sizeof(codes) / sizeof(codes[0])];
	static const char want[] =
		SYNC("01000", T(5, 5, "app", 0), R(0, "\"xSuccess\"", false))
		SYNC("02000", T(5, 5, "app", 0), R(2, "\"xErrorMemory\"", true))
		SYNC("03000", T(5, 5, "app", 0), R(999, "null", true))
		SYNC("04000", T(5, 5, "app", 0), R(-1, "null", true))
		SYNC("05000", T(5, 5, "app", 0), R(64, "null", true))
		SYNC("06000", T(5, 5, "app", 0), R(0, "\"xSuccess\"", false))
		SYNC("07000", T(5, 5, "app", 0), R(63, "null", true))
		SYNC("08000", T(5, 5, "app", 0), R(-1, "null", true))
		SYNC("09000", T(5, 5, "app", 0), R(3, "\"x\\\"q\\u0001\"", true))
		SYNC("10000", T(5, 5, "app", 0), R(3, "\"other\"", true))
		SYNC("11000", T(5, 5, "app", 0), R(0, "\"xSuccess\"", true));

	syncs(ev, sizeof(ev) / sizeof(ev[0]), codes);
	/* The same code under another name (another runtime's table), and a
	 * code whose error flag differs from the last one seen. */
	ev[8].result_name = "x\"q\x01";
	ev[9].result_name = "other";
	ev[10].is_error = true;
	expect_lines(ev, sizeof(ev) / sizeof(ev[0]), want);
}

/* Threads: pid, tid, depth and comm each tell two threads apart. */
static void test_threads(void **state)
{
	struct ct_event ev[13];
	static const char want[] =
		SYNC("01000", T(5, 5, "app", 0), R(0, "\"xSuccess\"", false))
		SYNC("02000", T(5, 6, "app-worker", 0), R(0, "\"xSuccess\"", false))
		SYNC("03000", T(7, 5, "app-worker", 0), R(0, "\"xSuccess\"", false))
		SYNC("04000", T(5, 5, "app", 1), R(0, "\"xSuccess\"", false))
		SYNC("05000", T(5, 5, "app", 0), R(0, "\"xSuccess\"", false))
		SYNC("06000", T(5, 5, "we\\\"ird\\u0001", 0), R(0, "\"xSuccess\"", false))
		SYNC("07000", T(5, 5, "ap", 0), R(0, "\"xSuccess\"", false))
		SYNC("08000", T(5, 5, "appx", 0), R(0, "\"xSuccess\"", false))
		SYNC("09000", T(5, 5, "0123456789abcdefghij", 0), R(0, "\"xSuccess\"", false))
		SYNC("10000", T(5, 5, "0123456789abcdefghij", 0), R(0, "\"xSuccess\"", false))
		SYNC("11000", T(5, 5, "0123456789abcde", 0), R(0, "\"xSuccess\"", false))
		SYNC("12000", T(5, 5, "", 0), R(0, "\"xSuccess\"", false))
		SYNC("13000", T(5, 5, "", 0), R(0, "\"xSuccess\"", false));

	syncs(ev, sizeof(ev) / sizeof(ev[0]), NULL);
	ev[1].tid = 6;
	ev[1].comm = "app-worker";
	ev[2].pid = 7;
	ev[2].comm = "app-worker";
	ev[3].depth = 1;
	ev[5].comm = "we\"ird\x01";
	ev[6].comm = "ap";
	ev[7].comm = "appx";
	ev[8].comm = ev[9].comm = "0123456789abcdefghij"; /* longer than any comm */
	ev[10].comm = "0123456789abcde";
	ev[11].comm = NULL;
	ev[12].comm = "";
	expect_lines(ev, sizeof(ev) / sizeof(ev[0]), want);
}

/* The decoder points comm into the record, which the reader reuses: the
 * same address with new bytes is a new comm. */
static void test_comm_in_record(void **state)
{
	static const char want[] =
		SYNC("01000", T(5, 5, "python3", 0), R(0, "\"xSuccess\"", false))
		SYNC("02000", T(5, 5, "pt_main_thread", 0), R(0, "\"xSuccess\"", false))
		SYNC("03000", T(5, 5, "python3", 0), R(0, "\"xSuccess\"", false))
		SYNC("04000", T(5, 5, "python3", 0), R(0, "\"xSuccess\"", false));
	static const char *const comms[] = { "python3", "pt_main_thread", "python3", "python3" };
	struct ct_record rec;
	struct fx_sink s;
	char *out;

	fx_sink_open(&s, "jsonl", NULL);
	for (int i = 0; i < 4; i++) {
		struct ct_event ev = fx_event(FX_SYNC, 5, 5, 1000 * (i + 1), 7, 0);

		memset(&rec, 0, sizeof(rec));
		strcpy(rec.comm, comms[i]);
		ev.rec = &rec;
		ev.comm = rec.comm;
		fx_sink_event(&s, &ev);
	}
	out = fx_sink_close(&s, NULL);
	assert_text_equal(events_of(out), want);
	free(out);
}

/* Arguments (the first key opens the object), an entry-only call, a parent. */
static void test_args(void **state)
{
	struct ct_event ev[] = {
		fx_event(FX_MALLOC, 5, 5, 1000, 250, 0, U(0x7f0000001000), U(64)),
		fx_event(FX_MEMCPY, 5, 5, 2000, 9, 0, U(0), U(0xffffffffffffffff), U(1000000000000), U(9)),
		fx_event(FX_LAUNCH, 5, 5, 3000, 3, 0, U(0x401000), U(65536), U(1), U(0)),
		fx_event(FX_MARK, 5, 5, 4000, 0, 0, "a\"b"),
	};
	static const char want[] =
		HEAD("01000", "xMalloc") T(5, 5, "app", 0) ",\"dur_ns\":250" R(0, "\"xSuccess\"", false)
		",\"args\":{\"devPtr\":\"0x7f0000001000\",\"size\":64}}\n"
		HEAD("02000", "xMemcpy") T(5, 5, "app", 0) ",\"parent\":{\"plugin\":\"other\",\"api\":\"xMalloc\"}"
		",\"dur_ns\":9" R(0, "\"xSuccess\"", false)
		",\"args\":{\"dst\":\"0x0\",\"src\":\"0xffffffffffffffff\",\"count\":1000000000000,\"kind\":9}}\n"
		HEAD("03000", "xLaunchKernel") T(5, 5, "app", 0) ",\"dur_ns\":3" R(0, "\"xSuccess\"", false)
		",\"args\":{\"func\":\"0x401000\",\"grid\":[65536,1,0]}}\n"
		HEAD("04000", "xMark") T(5, 5, "app", 0) ",\"entry_only\":true,\"args\":{\"label\":\"a\\\"b\"}}\n";

	ev[1].parent_plugin = "other";
	ev[1].parent_api = "xMalloc";
	expect_lines(ev, sizeof(ev) / sizeof(ev[0]), want);
}

/*
 * A kernel name has no bound on its length (C++ templates make long ones):
 * the line grows to hold it, escaped, in the jsonl sink and the chrome
 * trace, and the text and csv sinks show it whole (escaped as \x01). 200,000 control bytes escape to 1.2 MB, well past any room kept
 * ahead; run under ASan, a write past the buffer fails the test.
 */
static void test_long_kernel_name(void **state)
{
	enum { N = 200000 };
	struct ct_event ev[2] = {
		fx_event(FX_LAUNCH, 5, 5, 1000, 3, 0, U(0x401000), U(1), U(1), U(1)),
		fx_event(FX_LAUNCH, 5, 5, 2000, 3, 0, U(0x401000), U(1), U(1), U(1)),
	};
	char *name = malloc(N + 1), *want = malloc(6 * N + 4096), *w = want, *out;
	struct fx_sink s;

	assert_non_null(name);
	assert_non_null(want);
	memset(name, 1, N);
	name[N] = 0;
	ev[0].fields[0].str = name;
	for (int i = 0; i < 2; i++) {
		w += sprintf(w, HEAD("0%d000", "xLaunchKernel") T(5, 5, "app", 0) ",\"dur_ns\":3"
			     R(0, "\"xSuccess\"", false) ",\"args\":{\"func\":\"", i + 1);
		for (int k = 0; !i && k < N; k++)
			w = memcpy(w, "\\u0001", 6) + 6;
		w += sprintf(w, "%s\",\"grid\":[1,1,1]}}\n", i ? "0x401000" : "");
	}
	expect_lines(ev, 2, want);

	fx_sink_open(&s, "chrome", NULL);
	fx_sink_event(&s, &ev[0]);
	out = fx_sink_close(&s, NULL);
	assert_non_null(strstr(out, "\"func\":\"\\u0001\\u0001"));
	assert_true(strlen(out) > 6 * N);
	assert_int_equal(fx_python("import json,sys; json.load(sys.stdin)", out), 0);
	free(out);

	/* The text sink shows it whole too, each control byte as \x01, and the
	 * rest of the line after it; csv's arguments object as JSON does, \u0001. */
	static const struct {
		const char *type, *before, *esc, *after;
	} plain[] = {
		{ "text", "func=", "\\x01", ", grid=(1,1,1))\n" },
		{ "csv", "\"{\"\"func\"\":\"\"", "\\u0001", "\"\",\"\"grid\"\":[1,1,1]}\",\r\n" },
	};
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		size_t lb = strlen(plain[i].before), le = strlen(plain[i].esc);
		const char *v;

		fx_sink_open(&s, plain[i].type, NULL);
		fx_sink_event(&s, &ev[0]);
		out = fx_sink_close(&s, NULL);
		v = strstr(out, plain[i].before);
		assert_non_null(v);
		assert_null(strchr(out, '\x01'));
		for (int k = 0; k < N; k++)
			assert_memory_equal(v + lb + le * k, plain[i].esc, le);
		assert_string_equal(v + lb + le * N, plain[i].after);
		free(out);
	}
	free(want);
	free(name);
}

/* The meta line: the fake host and clock skew of the test hooks, and the
 * clocks' offset as the skew moves it; a rank's keys and its communicator. */
static void test_meta_and_ranks(void **state)
{
	static const char want[] =
		HEAD("01500", "xDeviceSynchronize") T(5, 5, "app", 0)
		",\"rank\":3,\"world_size\":8,\"job_id\":\"j\\\"1\",\"host\":\"node-b\""
		",\"communicator\":{\"rank\":1,\"nranks\":4,\"id\":\"0xabc\",\"seq\":2}"
		",\"dur_ns\":7" R(0, "\"xSuccess\"", false) ",\"args\":{}}\n"
		HEAD("02500", "xDeviceSynchronize") T(5, 5, "app", 0)
		",\"local_rank\":0,\"host\":\"node-b\""
		",\"dur_ns\":7" R(0, "\"xSuccess\"", false) ",\"args\":{}}\n";
	struct ct_proc_env env = { .rank = 3, .local_rank = -1, .world_size = 8, .job_id = "j\"1" };
	struct ct_proc_env env2 = { .rank = -1, .local_rank = 0, .world_size = -1 };
	struct ct_comm_info comm = { .rank = 1, .nranks = 4, .id = 0xabc, .seq = 2 };
	struct ct_comm_info unknown = { .rank = -1, .nranks = -1 };
	struct ct_event ev[2];
	struct timespec mono;
	long long wall, mono0, off, skew;
	struct fx_sink s;
	char *out;

	setenv("CUDATRACER_TEST_HOST", "node-b", 1);
	setenv("CUDATRACER_TEST_CLOCK_SKEW_NS", "500", 1);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	fx_sink_open(&s, "jsonl", NULL);
	unsetenv("CUDATRACER_TEST_HOST");
	unsetenv("CUDATRACER_TEST_CLOCK_SKEW_NS");
	syncs(ev, 2, NULL);
	ev[0].env = &env;
	ev[0].comm_info = &comm;
	ev[1].env = &env2;
	ev[1].comm_info = &unknown; /* nothing known: no key */
	fx_sink_event(&s, &ev[0]);
	fx_sink_event(&s, &ev[1]);
	out = fx_sink_close(&s, NULL);
	assert_text_equal(events_of(out), want);
	assert_non_null(strstr(out, "\"host\":\"node-b\",\"boot_id\":\""));
	assert_non_null(strstr(out, ",\"test_clock_skew_ns\":500}\n"));
	assert_int_equal(sscanf(strstr(out, "\"wall_ns\""), "\"wall_ns\":%lld,\"mono_ns\":%lld,\"wall_offset_ns\":%lld",
				&wall, &mono0, &off), 3);
	assert_int_equal(wall - mono0, off);
	assert_true(mono0 >= mono.tv_sec * 1000000000ll + mono.tv_nsec && mono0 - mono.tv_sec * 1000000000ll < 10000000000ll);
	skew = off - (time(NULL) * 1000000000ll - mono0);
	assert_true(skew > -2000000000ll && skew < 2000000000ll);
	free(out);
}

/* The cgroup keys: path, container and pod where known, escaped; one
 * removed before it was resolved has its id; a cgroup seen again comes
 * from its cached text. */
static void test_cgroups(void **state)
{
#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define K(rest) HEAD(rest, "xDeviceSynchronize") T(5, 5, "app", 0)
#define END ",\"dur_ns\":7" R(0, "\"xSuccess\"", false) ",\"args\":{}}\n"
	static const char want[] =
		K("01000") ",\"cgroup\":\"/kubepods/pod1b4c1d2e-0000-4000-8000-0123456789ab/" CID "\""
		",\"container\":\"" CID "\",\"pod\":\"1b4c1d2e-0000-4000-8000-0123456789ab\"" END
		K("02000") ",\"cgroup\":\"/a \\\"b\\\"\"" END
		K("03000") ",\"cgroup\":null,\"cgroup_id\":27" END
		K("04000") ",\"cgroup\":\"/a \\\"b\\\"\"" END
		K("05000") END;
	static const struct ct_cgroup pod = { 11, "/kubepods/pod1b4c1d2e-0000-4000-8000-0123456789ab/" CID, CID,
					      "1b4c1d2e-0000-4000-8000-0123456789ab" };
	static const struct ct_cgroup quoted = { 12, "/a \"b\"", NULL, NULL };
	static const struct ct_cgroup gone = { 27, NULL, NULL, NULL };
	const struct ct_cgroup *cgs[] = { &pod, &quoted, &gone, &quoted, NULL };
	struct ct_event ev[5];

	(void)state;
	syncs(ev, 5, NULL);
	for (int i = 0; i < 5; i++)
		ev[i].cgroup = cgs[i];
	expect_lines(ev, 5, want);
#undef K
#undef END
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_comm_in_record),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_long_kernel_name),
		cmocka_unit_test(test_meta_and_ranks),
		cmocka_unit_test(test_cgroups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
