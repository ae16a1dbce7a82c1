// SPDX-License-Identifier: MIT
/*
 * collstats: a kernel whose launch was made by a collective call's thread
 * during that call is that call's (op, datatype) row's; its device time
 * and the call's bus bytes (once per call) give the GPU bus bandwidth.
 * Anything else (another thread, outside the call, no launch record, a
 * copy, a call pushed out of the ring of recent ones) is nobody's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "sinks/collstats.h"

static const struct ct_elem_size size_v[] = { { 7, 4 } };
static const struct ct_elem_sizes sizes = { size_v, 1 };
static const struct ct_enum_entry dtype_v[] = { { 7, "xFloat32" } };
static const struct ct_enum dtypes = { dtype_v, 1 };
static const struct ct_arg args[] = {
	{ .name = "count", .kind = CT_ARG_UINT, CT_SLOT(0), .size = 8, .role = CT_ROLE_ELEMENTS },
	{ .name = "datatype", .kind = CT_ARG_ENUM, CT_SLOT(1), .size = 4, .role = CT_ROLE_ELEM_TYPE,
	  .names = &dtypes, .elem_sizes = &sizes },
};
static const struct ct_api allreduce = { .symbol = "xAllReduce", .n_args = 2, .args = args,
					 .flags = CT_API_COLLECTIVE | CT_API_BUS_ALLREDUCE };
static const struct ct_plugin plugin = { CT_PLUGIN_HEAD, .name = "xccl" };

/* A successful xAllReduce of 1024 xFloat32 (4096 bytes) by thread `tid` of
 * process 10 over [start, start + dur]; `nranks` < 0: size unknown. */
static void call(struct ct_collstats *s, uint32_t tid, uint64_t start, uint64_t dur, int32_t nranks)
{
	struct ct_comm_info ci = { .rank = 0, .nranks = nranks };
	struct ct_event ev = { .plugin = &plugin, .api = &allreduce, .pid = 10, .tid = tid,
			       .mono_ns = start, .dur_ns = dur, .has_result = true, .n_fields = 2,
			       .comm_info = nranks > 0 ? &ci : NULL };

	ev.fields[0] = (struct ct_field){ .arg = &args[0], .v = 1024, .valid = true };
	ev.fields[1] = (struct ct_field){ .arg = &args[1], .v = 7, .enum_name = "xFloat32", .valid = true };
	assert_int_equal(ct_collstats_add(s, &ev), 0);
}

static void kernel(struct ct_collstats *s, enum ct_gpu_kind kind, bool has_launch, uint32_t tid,
		   uint64_t launch, uint64_t dur)
{
	struct ct_gpu_event g = { .kind = kind, .pid = 10, .mono_ns = launch + 5000, .dur_ns = dur,
				  .has_launch = has_launch, .launch_tid = tid, .launch_mono_ns = launch,
				  .launch_api = "xLaunchKernel" };

	assert_int_equal(ct_collstats_gpu(s, &g), 0);
}

static const struct ct_coll_stat *only_row(const struct ct_collstats *s)
{
	const struct ct_coll_proc *p = ct_collstats_proc(s, 10);

	assert_non_null(p);
	assert_int_equal(p->n, 1);
	return &p->v[0];
}

static void test_attributed(void **state)
{
	struct ct_collstats s = { 0 };
	const struct ct_coll_stat *c;

	(void)state;
	call(&s, 11, 1000, 500, 4);
	assert_false(s.gpu);
	kernel(&s, CT_GPU_KERNEL, true, 11, 1200, 300);
	assert_true(s.gpu);
	kernel(&s, CT_GPU_KERNEL, true, 11, 1500, 100); /* at the call's very end: still its */
	kernel(&s, CT_GPU_KERNEL, true, 12, 1200, 1000); /* another thread */
	kernel(&s, CT_GPU_KERNEL, true, 11, 999, 1000);  /* before it */
	kernel(&s, CT_GPU_KERNEL, true, 11, 1501, 1000); /* after it */
	kernel(&s, CT_GPU_KERNEL, false, 11, 1200, 1000); /* launch record never came */
	kernel(&s, CT_GPU_MEMCPY, true, 11, 1200, 1000);
	c = only_row(&s);
	assert_string_equal(c->dtype, "xFloat32");
	assert_int_equal(c->calls, 1);
	assert_int_equal(c->gpu_kernels, 2);
	assert_int_equal(c->gpu_ns, 400);
	/* 4096 bytes x 2(4-1)/4 = 6144 bus bytes, counted once for the two kernels */
	assert_int_equal(c->gpu_bus_ns, 400);
	assert_true(c->gpu_bus_bytes == 6144.0);
	assert_true(ct_coll_gpu_busbw(c) == 6144.0 * 1e9 / 400.0);
	/* the host-side figures are untouched */
	assert_int_equal(c->ns, 500);
	assert_true(ct_coll_busbw(c) == 6144.0 * 1e9 / 500.0);
	ct_collstats_free(&s);
}

static void test_unknown_size(void **state)
{
	struct ct_collstats s = { 0 };
	const struct ct_coll_stat *c;

	(void)state;
	call(&s, 11, 1000, 500, -1);
	kernel(&s, CT_GPU_KERNEL, true, 11, 1100, 250);
	c = only_row(&s);
	assert_int_equal(c->gpu_kernels, 1);
	assert_int_equal(c->gpu_ns, 250);
	assert_true(ct_coll_gpu_busbw(c) < 0);
	ct_collstats_free(&s);
}

static void test_ring(void **state)
{
	struct ct_collstats s = { 0 };
	const struct ct_coll_stat *c;

	(void)state;
	for (uint64_t i = 0; i < CT_COLL_SPANS + 1; i++)
		call(&s, 11, 1000 + i * 1000, 500, 4);
	kernel(&s, CT_GPU_KERNEL, true, 11, 1100, 70);  /* the first call: no longer kept */
	kernel(&s, CT_GPU_KERNEL, true, 11, 2100, 30);  /* the second: the oldest kept */
	kernel(&s, CT_GPU_KERNEL, true, 11, 1000 + CT_COLL_SPANS * 1000 + 100, 20); /* the last */
	c = only_row(&s);
	assert_int_equal(c->calls, CT_COLL_SPANS + 1);
	assert_int_equal(c->gpu_kernels, 2);
	assert_int_equal(c->gpu_ns, 50);
	assert_true(c->gpu_bus_bytes == 2 * 6144.0);
	ct_collstats_free(&s);
}

static void test_no_calls(void **state)
{
	struct ct_collstats s = { 0 };

	(void)state;
	kernel(&s, CT_GPU_KERNEL, true, 11, 1100, 70);
	assert_true(s.gpu);
	assert_null(ct_collstats_proc(&s, 10));
	ct_collstats_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attributed),
		cmocka_unit_test(test_unknown_size),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_no_calls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
