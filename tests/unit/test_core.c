// SPDX-License-Identifier: MIT
/*
 * Unit tests of the core, no root needed: the table-driven decoder on
 * crafted records (dim3 in two registers, stack arguments, out-parameters),
 * the generated cudaError_t table, config parsing, the plugin loader's ABI
 * checks, and JSON escaping.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "config/config.h"
#include "decode/decode.h"
#include "plugin/loader.h"
#include "sinks/sink.h"
#include "util/strbuf.h"

extern const struct ct_enum cudart_errors; /* the --check table, compiled against driver_types.h */

static struct ct_loaded_plugin cudart;

static int load_cudart(void **state)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/../../plugins/libct-cudart.so", CT_BADPLUGINS);
	return ct_plugin_load(path, NULL, &cudart) ? -1 : 0;
}

static int unload_cudart(void **state)
{
	ct_plugin_unload(&cudart);
	return 0;
}

static uint32_t api_index(const char *sym)
{
	for (uint32_t i = 0; i < cudart.p->n_apis; i++)
		if (!strcmp(cudart.p->apis[i].symbol, sym))
			return i;
	fail_msg("%s not in the cudart table", sym);
	return 0;
}

static const struct ct_field *field(const struct ct_event *ev, const char *name)
{
	for (int i = 0; i < ev->n_fields; i++)
		if (!strcmp(ev->fields[i].arg->name, name))
			return &ev->fields[i];
	fail_msg("no field %s in %s", name, ev->api->symbol);
	return NULL;
}

static void test_launch_dim3_and_stack(void **state)
{
	struct ct_record r = { 0 };
	struct ct_event ev;
	char buf[64];

	r.api = api_index("cudaLaunchKernel");
	r.args[0] = 0x401000;                      /* func */
	r.args[1] = 7ull | (5ull << 32);           /* grid.x | grid.y << 32 */
	r.args[2] = 3;                             /* grid.z */
	r.args[3] = 32ull | (4ull << 32);          /* block.x | block.y << 32 */
	r.args[4] = 2;                             /* block.z */
	r.args[5] = 0x7ffd0000;                    /* args */
	r.args[6] = 1024;                          /* sharedMem: first stack word */
	r.args[7] = 0x5300;                        /* stream: second stack word */
	r.ret = 35;
	r.dur_ns = 1500;
	assert_int_equal(ct_decode(cudart.p, &r, 0, &ev), 0);
	assert_string_equal(ev.api->symbol, "cudaLaunchKernel");
	ct_format_field(buf, sizeof(buf), field(&ev, "grid"));
	assert_string_equal(buf, "(7,5,3)");
	ct_format_field(buf, sizeof(buf), field(&ev, "block"));
	assert_string_equal(buf, "(32,4,2)");
	assert_int_equal(field(&ev, "sharedMem")->v, 1024);
	assert_int_equal(field(&ev, "stream")->v, 0x5300);
	assert_true(ev.has_result);
	assert_int_equal(ev.result, 35);
	assert_string_equal(ev.result_name, "cudaErrorInsufficientDriver");
	assert_true(ev.is_error);
}

static void test_out_param_and_enum(void **state)
{
	struct ct_record r = { 0 };
	struct ct_event ev;

	r.api = api_index("cudaMalloc");
	r.args[0] = 0x7ffd1000; /* &devPtr */
	r.args[1] = 4096;
	r.mem[0] = 0x7f0000200000; /* what the engine read from *devPtr at exit */
	assert_int_equal(ct_decode(cudart.p, &r, 0, &ev), 0);
	assert_int_equal(field(&ev, "devPtr")->v, 0x7f0000200000);
	assert_int_equal(field(&ev, "size")->v, 4096);
	assert_int_equal(ct_event_bytes(&ev), 4096);
	assert_string_equal(ev.result_name, "cudaSuccess");
	assert_false(ev.is_error);

	memset(&r, 0, sizeof(r));
	r.api = api_index("cudaMemcpy2D");
	r.args[4] = 200; /* width */
	r.args[5] = 30;  /* height */
	r.args[6] = 3;   /* kind, the seventh argument: on the stack */
	assert_int_equal(ct_decode(cudart.p, &r, 0, &ev), 0);
	assert_string_equal(field(&ev, "kind")->enum_name, "cudaMemcpyDeviceToDevice");
	assert_int_equal(ct_event_bytes(&ev), 6000);

	r.args[6] = 77; /* a kind with no name is shown as a number */
	assert_int_equal(ct_decode(cudart.p, &r, 0, &ev), 0);
	assert_null(field(&ev, "kind")->enum_name);
}

static void test_unknown_error_and_bad_record(void **state)
{
	struct ct_record r = { 0 };
	struct ct_event ev;

	r.api = api_index("cudaFree");
	r.ret = 123456; /* not a cudaError_t: no name rather than a wrong one */
	assert_int_equal(ct_decode(cudart.p, &r, 0, &ev), 0);
	assert_null(ev.result_name);
	assert_true(ev.is_error);
	r.api = 100000; /* a record that names no API */
	assert_int_equal(ct_decode(cudart.p, &r, 0, &ev), -EINVAL);
}

static void test_error_table_matches_header(void **state)
{
	const struct ct_enum *e = cudart.p->errors;

	/* The plugin's table and the compiler-checked one are the same rows. */
	assert_int_equal(e->n, cudart_errors.n);
	for (size_t i = 0; i < e->n; i++) {
		assert_int_equal(e->v[i].value, cudart_errors.v[i].value);
		assert_string_equal(e->v[i].name, cudart_errors.v[i].name);
		if (i)
			assert_true(e->v[i - 1].value < e->v[i].value); /* sorted, no duplicates */
	}
	assert_string_equal(ct_enum_name(e, 0), "cudaSuccess");
	assert_string_equal(ct_enum_name(e, 35), "cudaErrorInsufficientDriver");
	assert_string_equal(ct_enum_name(e, 100), "cudaErrorNoDevice");
	assert_string_equal(ct_enum_name(e, 999), "cudaErrorUnknown");
}

static char *write_tmp(const char *name, const char *text)
{
	static char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "mkdir -p %s", CT_TEST_TMP);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/%s", CT_TEST_TMP, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_config_values(void **state)
{
	struct ct_config c;
	char *path = write_tmp("good.ini",
			       "[tracer]\nplugins = cudart,cuda\nringbuf_size = 4M\nprofile = full\n"
			       "[filter]\nmin_duration = 2ms\nerrors_only = yes\n"
			       "[sink.one]\ntype = jsonl\npath = /tmp/x.jsonl\n");

	ct_config_init(&c);
	assert_int_equal(c.tracer.ringbuf_size, 16ull << 20); /* the default */
	assert_int_equal(ct_config_load(&c, path), 0);
	assert_int_equal(ct_config_finish(&c), 0);
	assert_string_equal(c.tracer.plugins, "cudart,cuda");
	assert_int_equal(c.tracer.ringbuf_size, 4ull << 20);
	assert_string_equal(c.tracer.profile, "full");
	assert_int_equal(c.filter.min_duration, 2000000);
	assert_true(c.filter.errors_only);
	assert_int_equal(c.n_sinks, 1);
	assert_string_equal(((struct ct_sink_common *)c.sinks[0].ctx)->path, "/tmp/x.jsonl");
	ct_config_free(&c);
}

static void test_config_errors(void **state)
{
	static const char *const bad[] = {
		"[tracer]\nplugins = cudart\nringbuf = 1M\n",          /* unknown key */
		"[tracer]\nringbuf_size = lots\n",                     /* bad value */
		"[tracer]\nprofile = most\n",                          /* not a choice */
		"[trace]\nplugins = cudart\n",                         /* unknown section */
		"[filter]\nerrors_only = maybe\n",
		"this is not ini\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ct_config c;

		ct_config_init(&c);
		assert_int_equal(ct_config_load(&c, write_tmp("bad.ini", bad[i])), -EINVAL);
		ct_config_free(&c);
	}
	{
		struct ct_config c;

		ct_config_init(&c);
		assert_int_equal(ct_config_load(&c, write_tmp("sink.ini", "[sink.x]\ntype = jsonl\ncolour = red\n")), 0);
		assert_int_equal(ct_config_finish(&c), -EINVAL); /* unknown sink key */
		ct_config_free(&c);
		ct_config_init(&c);
		assert_int_equal(ct_config_load(&c, write_tmp("sink2.ini", "[sink.x]\ntype = carrier-pigeon\n")), 0);
		assert_int_equal(ct_config_finish(&c), -EINVAL); /* unknown sink type */
		ct_config_free(&c);
	}
}

static void test_plugin_abi_refused(void **state)
{
	struct ct_loaded_plugin lp;

	assert_int_equal(ct_plugin_load(CT_BADPLUGINS "/libct-badabi.so", NULL, &lp), -EPROTO);
	assert_int_equal(ct_plugin_load(CT_BADPLUGINS "/libct-badsize.so", NULL, &lp), -EPROTO);
	assert_int_equal(ct_plugin_load(CT_BADPLUGINS "/libct-badnone.so", NULL, &lp), -ENOEXEC);
	assert_int_equal(ct_plugin_load(CT_BADPLUGINS "/libct-badrow.so", NULL, &lp), -EINVAL);
	assert_int_equal(ct_plugin_load(CT_BADPLUGINS "/libct-badtail.so", NULL, &lp), -E2BIG);
	assert_int_equal(ct_plugin_load(CT_BADPLUGINS "/libct-badwild.so", NULL, &lp), -EINVAL);
	assert_int_equal(ct_plugin_load(CT_BADPLUGINS "/libct-missing.so", NULL, &lp), -ENOENT);
	assert_int_equal(ct_plugin_load("nosuchplugin", (char *const[]){ CT_BADPLUGINS, NULL }, &lp), -ENOENT);
}

static void json_of(const char *in, char *out, size_t n)
{
	FILE *f = fmemopen(out, n, "w");

	ct_json_str(f, in);
	fclose(f);
}

static void test_json_escaping(void **state)
{
	char out[256];

	json_of("plain", out, sizeof(out));
	assert_string_equal(out, "\"plain\"");
	json_of("a\"b\\c", out, sizeof(out));
	assert_string_equal(out, "\"a\\\"b\\\\c\"");
	json_of("tab\there\nnl\x01", out, sizeof(out));
	assert_string_equal(out, "\"tab\\there\\nnl\\u0001\"");
	json_of("\xff\xfe<bad utf8", out, sizeof(out));
	assert_string_equal(out, "\"\\u00ff\\u00fe<bad utf8\"");
}

static void test_number_formatting(void **state)
{
	static const uint64_t dec[] = { 0, 9, 10, 99, 100, 999, 1000, 12345678, 99999999, 100000000,
					123456789, 9999999999999999999ull, UINT64_MAX };
	uint64_t edges[sizeof(dec) / sizeof(dec[0]) + 40], p = 1;
	size_t n = 0;
	char want[96];

	/* Every digit-count boundary: 10^k - 1 and 10^k. */
	for (int k = 0; k < 20; k++, p *= 10) {
		edges[n++] = p - 1;
		edges[n++] = p;
	}
	for (size_t i = 0; i < sizeof(dec) / sizeof(dec[0]); i++)
		edges[n++] = dec[i];
	for (size_t i = 0; i < n; i++) {
		struct ct_sb b = { 0 };

		assert_true(ct_sb_room(&b, 64));
		ct_sb_u64(&b, edges[i]);
		ct_sb_ch(&b, ' ');
		ct_sb_hex(&b, edges[i]);
		ct_sb_ch(&b, ' ');
		ct_sb_i64(&b, -(int64_t)(edges[i] >> 1));
		snprintf(want, sizeof(want), "%" PRIu64 " 0x%" PRIx64 " %" PRId64, edges[i], edges[i],
			 -(int64_t)(edges[i] >> 1));
		assert_int_equal(b.len, strlen(want));
		assert_memory_equal(b.p, want, b.len);
		ct_sb_free(&b);
	}
}

static void test_timestamp_formatting(void **state)
{
	static const uint64_t ts[] = { 1795948855097976711ull, 1795948855000000001ull, 1795948856999999999ull,
				       1795948856000000000ull, 999999999ull, 0, 1000000000ull, UINT64_MAX };
	struct ct_sb_ts_cache c = { 0 };
	char want[32];

	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		struct ct_sb b = { 0 };

		assert_true(ct_sb_room(&b, 64));
		ct_sb_ts(&b, ts[i], &c);
		snprintf(want, sizeof(want), "%" PRIu64, ts[i]);
		assert_int_equal(b.len, strlen(want));
		assert_memory_equal(b.p, want, b.len);
		ct_sb_free(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch_dim3_and_stack),
		cmocka_unit_test(test_out_param_and_enum),
		cmocka_unit_test(test_unknown_error_and_bad_record),
		cmocka_unit_test(test_error_table_matches_header),
		cmocka_unit_test(test_config_values),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_plugin_abi_refused),
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test(test_number_formatting),
		cmocka_unit_test(test_timestamp_formatting),
	};

	return cmocka_run_group_tests(tests, load_cudart, unload_cudart);
}
