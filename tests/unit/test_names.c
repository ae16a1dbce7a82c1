// SPDX-License-Identifier: MIT
/* Names by handle: what the decoder relies on to name driver-API launches. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "decode/names.h"
#include "symbols/demangle.h"
#include "exponential_name.h"

static int teardown(void **state)
{
	ct_names_reset();
	return 0;
}

static void test_unknown_handle_has_no_name(void **state)
{
	assert_null(ct_names_get(100, 0x1000));
	assert_int_equal(ct_names_put(100, 0x1000, "saxpy"), 0);
	assert_null(ct_names_get(100, 0x2000));
	assert_null(ct_names_get(101, 0x1000)); /* same handle, other process */
}

static void test_put_then_get(void **state)
{
	assert_int_equal(ct_names_put(100, 0x1000, "saxpy"), 0);
	assert_string_equal(ct_names_get(100, 0x1000), "saxpy");
}

static void test_cxx_names_are_demangled(void **state)
{
	assert_int_equal(ct_names_put(7, 0xabc, "_Z10vec_kernelPfPKfi"), 0);
	assert_string_equal(ct_names_get(7, 0xabc), "vec_kernel(float*, float const*, int)");
	/* A name cut short by the record's string buffer stays as it came. */
	assert_int_equal(ct_names_put(7, 0xabd, "_Z10vec_kernelPfP"), 0);
	assert_string_equal(ct_names_get(7, 0xabd), "_Z10vec_kernelPfP");
	/* Triton and OpenCL kernels have plain names. */
	assert_int_equal(ct_names_put(7, 0xabe, "triton_poi_fused_add_0"), 0);
	assert_string_equal(ct_names_get(7, 0xabe), "triton_poi_fused_add_0");
}

static void test_reused_handle_takes_new_name(void **state)
{
	assert_int_equal(ct_names_put(5, 0x10, "old"), 0);
	assert_int_equal(ct_names_put(5, 0x10, "new"), 0);
	assert_string_equal(ct_names_get(5, 0x10), "new");
}

static void test_empty_names_are_refused(void **state)
{
	assert_int_equal(ct_names_put(5, 0x10, NULL), -EINVAL);
	assert_int_equal(ct_names_put(5, 0x10, ""), -EINVAL);
	assert_null(ct_names_get(5, 0x10));
}

static void test_forget_drops_one_process(void **state)
{
	assert_int_equal(ct_names_put(1, 0x10, "a"), 0);
	assert_int_equal(ct_names_put(2, 0x10, "b"), 0);
	ct_names_forget(1);
	assert_null(ct_names_get(1, 0x10));
	assert_string_equal(ct_names_get(2, 0x10), "b");
	ct_names_forget(3); /* never seen: nothing happens */
	assert_string_equal(ct_names_get(2, 0x10), "b");
}

static void test_many_handles(void **state)
{
	char name[32];

	/* Enough to make both levels of maps grow several times. */
	for (uint32_t pid = 1; pid <= 40; pid++)
		for (uint64_t h = 0; h < 500; h++) {
			snprintf(name, sizeof(name), "k%u_%llu", pid, (unsigned long long)h);
			assert_int_equal(ct_names_put(pid, 0x7f0000000000ull + h * 64, name), 0);
		}
	for (uint32_t pid = 1; pid <= 40; pid++)
		for (uint64_t h = 0; h < 500; h++) {
			snprintf(name, sizeof(name), "k%u_%llu", pid, (unsigned long long)h);
			assert_string_equal(ct_names_get(pid, 0x7f0000000000ull + h * 64), name);
		}
	assert_null(ct_names_get(41, 0x7f0000000000ull));
}

/* A handle's name that demangles to 27 MB is kept as it came (docs/reliability.md). */
static void test_exponential_name_kept_mangled(void **state)
{
	char name[512];

	exponential_name(name, sizeof(name), 20);
	assert_int_equal(ct_names_put(100, 0x1000, name), 0);
	assert_int_equal(strlen(ct_names_get(100, 0x1000)), strlen(name));
	assert_string_equal(ct_names_get(100, 0x1000), name);
}

/* A process keeps CT_NAMES_PER_PROC names: a new handle past them is dropped and counted. */
static void test_names_per_process_bounded(void **state)
{
	for (uint64_t h = 0; h < CT_NAMES_PER_PROC; h++)
		assert_int_equal(ct_names_put(100, 0x1000 + h, "k"), 0);
	assert_int_equal(ct_names_put(100, 0x1000 + CT_NAMES_PER_PROC, "k"), -ENOSPC);
	assert_null(ct_names_get(100, 0x1000 + CT_NAMES_PER_PROC));
	assert_int_equal(ct_names_dropped(), 1);
	assert_int_equal(ct_names_put(100, 0x1000, "renamed"), 0); /* a known handle: its place */
	assert_string_equal(ct_names_get(100, 0x1000), "renamed");
	assert_int_equal(ct_names_put(101, 0x1000, "other"), 0); /* another process: its own */
	ct_names_forget(100);
	assert_int_equal(ct_names_put(100, 0x1000 + CT_NAMES_PER_PROC, "k"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_unknown_handle_has_no_name, teardown),
		cmocka_unit_test_teardown(test_put_then_get, teardown),
		cmocka_unit_test_teardown(test_cxx_names_are_demangled, teardown),
		cmocka_unit_test_teardown(test_reused_handle_takes_new_name, teardown),
		cmocka_unit_test_teardown(test_empty_names_are_refused, teardown),
		cmocka_unit_test_teardown(test_forget_drops_one_process, teardown),
		cmocka_unit_test_teardown(test_many_handles, teardown),
		cmocka_unit_test_teardown(test_exponential_name_kept_mangled, teardown),
		cmocka_unit_test_teardown(test_names_per_process_bounded, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
