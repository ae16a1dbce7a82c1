// SPDX-License-Identifier: MIT
/*
 * The engine sends only the prefix of a record an API uses
 * (ct_record_words). Pinned here for every API of every in-tree plugin: a
 * record cut to that prefix and made whole again by the reader
 * (ct_record_whole) decodes to the same fields and result as the record
 * the call would have filled entirely.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "decode/decode.h"
#include "plugin/loader.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A record with every word set, as a call that used them all would send. */
static void fill(struct ct_record *r, uint32_t api, bool with_str)
{
	memset(r, 0, sizeof(*r));
	r->ts_ns = 1000000000ull + next() % 1000;
	r->dur_ns = next() % 100000;
	r->pid = r->tid = 1; /* no names to look up in init's maps */
	r->call = api;
	strcpy(r->comm, "shape");
	r->ret = next() % 4;
	for (int i = 0; i < CT_REC_ARGS; i++)
		r->args[i] = next() % 3 ? next() % 5000 + 1 : 0;
	for (int i = 0; i < CT_REC_MEM; i++)
		r->mem[i] = next() % 5000;
	if (with_str) {
		r->flags |= CT_REC_HAS_STR;
		strcpy(r->str, "kernel_name");
	}
}

static void assert_same(const struct ct_event *a, const struct ct_event *b, const char *what)
{
	if (a->n_fields != b->n_fields || a->has_result != b->has_result || a->result != b->result ||
	    a->has_ret_handle != b->has_ret_handle)
		fail_msg("%s: result differs when cut", what);
	for (int i = 0; i < a->n_fields; i++) {
		const struct ct_field *x = &a->fields[i], *y = &b->fields[i];

		if (x->valid != y->valid || x->v != y->v || memcmp(x->v3, y->v3, sizeof(x->v3)) ||
		    x->n3 != y->n3 || x->enum_name != y->enum_name)
			fail_msg("%s: argument %s differs when cut (%s, %#llx -> %s, %#llx)", what,
				 x->arg->name, x->valid ? "valid" : "invalid", (unsigned long long)x->v,
				 y->valid ? "valid" : "invalid", (unsigned long long)y->v);
		if (x->arg->kind == CT_ARG_STRING && (!x->str) != (!y->str))
			fail_msg("%s: string %s differs when cut", what, x->arg->name);
	}
}

static void check_plugin(const char *name)
{
	char path[4096];
	struct ct_loaded_plugin lp;
	size_t smaller = 0;

	snprintf(path, sizeof(path), "%s/libct-%s.so", CT_TEST_PLUGIN_DIR, name);
	assert_int_equal(ct_plugin_load(path, NULL, &lp), 0);
	for (uint32_t i = 0; i < lp.p->n_apis; i++) {
		const struct ct_api *api = &lp.p->apis[i];
		uint8_t stack = 0;
		size_t len = ct_record_words(api, &stack) * 8;
		const size_t str_at = offsetof(struct ct_record, str);
		char what[256];

		snprintf(what, sizeof(what), "%s/%s (%zu bytes sent)", name, api->symbol, len);
		assert_true(len >= CT_REC_HEAD_SIZE && len <= str_at);
		assert_true(stack <= CT_STACK_WORDS);
		smaller += len < str_at;
		for (int round = 0; round < 64; round++) {
			static struct ct_record whole, sent, buf;
			static struct ct_event a, b;
			const struct ct_record *cut;
			size_t n;
			bool with_str = round & 1;

			fill(&whole, i, with_str);
			/* What the engine sends: the prefix the API uses (a record
			 * with a string goes through its NUL), where the stack words
			 * it does not copy hold what an earlier call left. */
			sent = whole;
			for (int w = 6 + stack; w < CT_REC_ARGS; w++)
				sent.args[w] = next();
			n = with_str ? offsetof(struct ct_record, str) + strlen(whole.str) + 1 : len;
			cut = ct_record_whole(&sent, n, &buf);
			assert_non_null(cut);
			assert_int_equal(ct_decode(lp.p, &whole, 0, &a), 0);
			assert_int_equal(ct_decode(lp.p, cut, 0, &b), 0);
			assert_same(&a, &b, what);
		}
	}
	/* Most APIs use a few arguments: their records are shorter. */
	assert_true(smaller * 2 > lp.p->n_apis);
	ct_plugin_unload(&lp);
}

/* Too short for a header: refused. Short of the string: no string, even if
 * a broken record claims one. */
static void test_whole(void **state)
{
	static struct ct_record r, buf;
	const struct ct_record *w;

	memset(&r, 0xab, sizeof(r));
	r.flags = CT_REC_HAS_STR;
	assert_null(ct_record_whole(&r, CT_REC_HEAD_SIZE - 8, &buf));
	w = ct_record_whole(&r, CT_REC_HEAD_SIZE + 16, &buf);
	assert_ptr_equal(w, &buf);
	assert_int_equal(w->args[1], 0xababababababababull);
	assert_int_equal(w->args[2], 0);
	assert_int_equal(w->mem[CT_REC_MEM - 1], 0);
	assert_int_equal(w->flags & CT_REC_HAS_STR, 0);
	assert_int_equal(w->str[0], 0);
	assert_ptr_equal(ct_record_whole(&r, sizeof(r), &buf), &r);
}

static void test_cudart(void **state) { check_plugin("cudart"); }
static void test_cuda(void **state) { check_plugin("cuda"); }
static void test_hip(void **state) { check_plugin("hip"); }
static void test_opencl(void **state) { check_plugin("opencl"); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_cudart),
		cmocka_unit_test(test_cuda),
		cmocka_unit_test(test_hip),
		cmocka_unit_test(test_opencl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
