// SPDX-License-Identifier: MIT
/*
 * The one demangler (core/symbols/demangle.h): C++ names read as
 * __cxa_demangle made them, and a name from a traced program never makes
 * the tracer build, keep or write more than CT_NAME_MAX bytes of it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "symbols/demangle.h"
#include "exponential_name.h"

static void test_demangle(void **state)
{
	char *s = ct_demangle("_Z10vec_kernelPfPKfi");

	assert_string_equal(s, "vec_kernel(float*, float const*, int)");
	free(s);
	assert_null(ct_demangle("main"));
	assert_null(ct_demangle("_Z10vec_kernelPf_truncat")); /* not a valid name */
	assert_null(ct_demangle(NULL));
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* 2^30 times its level 0 demangled: stopped at CT_NAME_MAX, in far less than a second. */
static void test_exponential_name_is_kept_mangled(void **state)
{
	char name[512], *kept;
	struct timespec t0;

	exponential_name(name, sizeof(name), 30);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_null(ct_demangle(name));
	kept = ct_name_keep(name, SIZE_MAX);
	assert_true(seconds_since(&t0) < 0.5);
	assert_string_equal(kept, name);
	free(kept);
}

/* The largest level that fits is demangled whole. */
static void test_name_within_the_bound_is_demangled(void **state)
{
	char name[512], *s;
	size_t n;

	exponential_name(name, sizeof(name), 7);
	s = ct_demangle(name);
	assert_non_null(s);
	n = strlen(s);
	assert_true(n > CT_NAME_MAX / 2 && n <= CT_NAME_MAX);
	assert_memory_equal(s, "f(x, A<x, x>, A<A<x, x>, A<x, x> >, ", 36);
	assert_string_equal(s + n - 4, "> >)");
	free(s);
	exponential_name(name, sizeof(name), 8); /* twice as long: over */
	assert_null(ct_demangle(name));
}

/* A name longer than the bound, mangled or not, is cut and says so. */
static void test_long_name_is_cut(void **state)
{
	char *name = malloc(3 * CT_NAME_MAX), *kept;

	memset(name, 'k', 3 * CT_NAME_MAX);
	memcpy(name, "_Z", 2);
	name[3 * CT_NAME_MAX - 1] = '\0';
	kept = ct_name_keep(name, SIZE_MAX);
	assert_int_equal(strlen(kept), CT_NAME_MAX);
	assert_memory_equal(kept, name, CT_NAME_MAX - strlen(CT_NAME_CUT));
	assert_string_equal(kept + CT_NAME_MAX - strlen(CT_NAME_CUT), CT_NAME_CUT);
	free(kept);
	/* `len` bounds what is read: no NUL needed within it */
	kept = ct_name_keep(name, 10);
	assert_string_equal(kept, "_Zkkkkkkkk");
	free(kept);
	free(name);
}

/* A cut never splits a UTF-8 sequence (the sinks that check UTF-8 would refuse the name). */
static void test_cut_keeps_utf8_whole(void **state)
{
	size_t at = CT_NAME_MAX - strlen(CT_NAME_CUT) - 1;
	char *name = malloc(2 * CT_NAME_MAX), *kept;

	memset(name, 'a', 2 * CT_NAME_MAX);
	memcpy(name + at, "\xc3\xa9", 2); /* é across the cut */
	name[2 * CT_NAME_MAX - 1] = '\0';
	kept = ct_name_keep(name, SIZE_MAX);
	assert_int_equal(strlen(kept), CT_NAME_MAX - 1);
	assert_string_equal(kept + at, CT_NAME_CUT);
	free(kept);
	free(name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_exponential_name_is_kept_mangled),
		cmocka_unit_test(test_name_within_the_bound_is_demangled),
		cmocka_unit_test(test_long_name_is_cut),
		cmocka_unit_test(test_cut_keeps_utf8_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
