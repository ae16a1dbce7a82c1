// SPDX-License-Identifier: MIT
/*
 * The opencl plugin's table against CL/cl.h and the x86-64 calling
 * convention: its error names are the header's codes (the extensions' too),
 * every symbol is exported by the ICD loader, and the calls with stack
 * arguments, work-size arrays and errcode_ret out-parameters decode to the
 * values the caller passed.
 */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include "plugin_check.h"

static struct loaded_plugin lp;

static int setup(void **state)
{
	plugin_load(&lp, CT_TEST_PLUGIN, CT_TEST_RUNTIME);
	return 0;
}

static int teardown(void **state)
{
	plugin_unload(&lp);
	return 0;
}

static void test_table(void **state)
{
	check_plugin(&lp, "opencl", 26);
	assert_string_equal(lp.p->libraries[0], "libOpenCL.so");
	assert_int_equal(lp.p->n_libraries, 1);
}

#define E(x) { x, #x }

static void test_errors_match_header(void **state)
{
	static const struct { int64_t v; const char *name; } want[] = {
		E(CL_SUCCESS), E(CL_DEVICE_NOT_FOUND), E(CL_OUT_OF_RESOURCES),
		E(CL_BUILD_PROGRAM_FAILURE), E(CL_INVALID_VALUE), E(CL_INVALID_MEM_OBJECT),
		E(CL_INVALID_KERNEL_NAME), E(CL_INVALID_WORK_GROUP_SIZE),
		E(CL_INVALID_GLOBAL_WORK_SIZE), E(CL_MAX_SIZE_RESTRICTION_EXCEEDED),
		E(CL_PLATFORM_NOT_FOUND_KHR), E(CL_CONTEXT_TERMINATED_KHR),
	};
	const struct ct_enum *e = lp.p->errors;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *got = ct_enum_name(e, want[i].v);

		if (!got || strcmp(got, want[i].name))
			fail_msg("%lld: want %s, table has %s", (long long)want[i].v, want[i].name,
				 got ? got : "nothing");
	}
	/* Only error codes: nothing above CL_SUCCESS, and cl.h's names win over
	 * later headers' reuse of a value (CL_BUILD_NONE is -1 too). */
	assert_int_equal(e->v[e->n - 1].value, 0);
	assert_string_equal(ct_enum_name(e, CL_BUILD_NONE), "CL_DEVICE_NOT_FOUND");
}

static void assert_sizes(const struct ct_event *ev, const char *name, int n, size_t x, size_t y)
{
	const struct ct_field *f = field(ev, name);

	assert_true(f->valid);
	assert_int_equal(f->n3, n);
	assert_int_equal(f->v3[0], x);
	if (n > 1)
		assert_int_equal(f->v3[1], y);
}

static void test_ndrange_abi(void **state)
{
	struct ct_record r;
	struct ct_event ev;
	/* Three words each: the table always copies three. */
	size_t global[3] = { 16, 8, 99 }, local[3] = { 4, 2, 99 };
	cl_event waits[3] = { 0 }, done;

	ct_test_ret = CL_SUCCESS;
	AS(clEnqueueNDRangeKernel)((cl_command_queue)0x3000, (cl_kernel)0x4000, 2, NULL, global,
				   local, 3, waits, &done);
	capture_decode(lp.p, "clEnqueueNDRangeKernel", &r, &ev);
	assert_int_equal(fv(&ev, "command_queue"), 0x3000);
	assert_int_equal(fv(&ev, "kernel"), 0x4000);
	assert_int_equal(fv(&ev, "work_dim"), 2);
	assert_sizes(&ev, "global_work_size", 2, 16, 8);
	assert_sizes(&ev, "local_work_size", 2, 4, 2);
	assert_int_equal(fv(&ev, "num_events_in_wait_list"), 3);
	assert_int_equal(fv(&ev, "event_wait_list"), (uintptr_t)waits);
	assert_int_equal(fv(&ev, "event"), (uintptr_t)&done);
	assert_name(ev.result_name, "CL_SUCCESS");

	/* No local size: the runtime picks one, and the trace must not make one up. */
	global[0] = 256;
	AS(clEnqueueNDRangeKernel)((cl_command_queue)0x3000, (cl_kernel)0x4000, 1, NULL, global,
				   NULL, 0, NULL, NULL);
	capture_decode(lp.p, "clEnqueueNDRangeKernel", &r, &ev);
	assert_sizes(&ev, "global_work_size", 1, 256, 0);
	assert_false(field(&ev, "local_work_size")->valid);
}

static void test_create_errcode_ret(void **state)
{
	struct ct_record r;
	struct ct_event ev;
	cl_int err = CL_INVALID_BUFFER_SIZE;

	/* A failed create: NULL back, the reason in *errcode_ret. */
	ct_test_ret = 0;
	AS(clCreateBuffer)((cl_context)0x1000, CL_MEM_READ_WRITE, 4096, (void *)0x2000, &err);
	capture_decode(lp.p, "clCreateBuffer", &r, &ev);
	assert_int_equal(fv(&ev, "context"), 0x1000);
	assert_int_equal(fv(&ev, "flags"), CL_MEM_READ_WRITE);
	assert_int_equal(fv(&ev, "size"), 4096);
	assert_int_equal(fv(&ev, "host_ptr"), 0x2000);
	assert_name(field(&ev, "errcode_ret")->enum_name, "CL_INVALID_BUFFER_SIZE");
	assert_true(ev.has_result && ev.is_error);
	assert_int_equal(ev.result, CL_INVALID_BUFFER_SIZE);
	assert_name(ev.result_name, "CL_INVALID_BUFFER_SIZE");

	/* A create with no errcode_ret: the handle alone says it worked. */
	ct_test_ret = 0x9000;
	AS(clCreateBuffer)((cl_context)0x1000, CL_MEM_READ_ONLY, 64, NULL, NULL);
	capture_decode(lp.p, "clCreateBuffer", &r, &ev);
	assert_false(field(&ev, "errcode_ret")->valid);
	assert_int_equal(fv(&ev, "mem"), 0x9000);
	assert_int_equal(ct_event_role(&ev, CT_ROLE_ALLOC_PTR)->v, 0x9000);
	assert_int_equal(ct_event_bytes(&ev), 64);
	assert_false(ev.is_error);

	err = CL_SUCCESS;
	ct_test_ret = 0x8800;
	AS(clCreateKernel)((cl_program)0x7000, "vadd", &err);
	capture_decode(lp.p, "clCreateKernel", &r, &ev);
	assert_int_equal(fv(&ev, "program"), 0x7000);
	assert_name(field(&ev, "kernel_name")->str, "vadd");
	assert_int_equal(fv(&ev, "kernel"), 0x8800);
	assert_int_equal(field(&ev, "kernel")->arg->role, CT_ROLE_HANDLE_NEW);
	assert_name(ev.result_name, "CL_SUCCESS");
	assert_int_equal(ev.ret_handle, 0x8800);
}

static void test_enqueue_abi(void **state)
{
	struct ct_record r;
	struct ct_event ev;
	cl_uint n = 1;
	cl_event e;
	float pattern = 0;

	ct_test_ret = CL_SUCCESS;
	AS(clEnqueueReadBuffer)((cl_command_queue)0x3000, (cl_mem)0x9000, CL_TRUE, 16, 1024,
				(void *)0x5000, 2, (const cl_event *)0x6000, &e);
	capture_decode(lp.p, "clEnqueueReadBuffer", &r, &ev);
	assert_int_equal(fv(&ev, "buffer"), 0x9000);
	assert_int_equal(fv(&ev, "blocking_read"), CL_TRUE);
	assert_int_equal(fv(&ev, "offset"), 16);
	assert_int_equal(ct_event_bytes(&ev), 1024);
	assert_int_equal(fv(&ev, "ptr"), 0x5000);
	assert_int_equal(fv(&ev, "num_events_in_wait_list"), 2);
	assert_int_equal(fv(&ev, "event_wait_list"), 0x6000);
	assert_int_equal(fv(&ev, "event"), (uintptr_t)&e);

	AS(clEnqueueFillBuffer)((cl_command_queue)0x3000, (cl_mem)0x9000, &pattern, sizeof(pattern),
				32, 2048, 0, NULL, NULL);
	capture_decode(lp.p, "clEnqueueFillBuffer", &r, &ev);
	assert_int_equal(fv(&ev, "pattern_size"), 4);
	assert_int_equal(fv(&ev, "offset"), 32);
	assert_int_equal(ct_event_bytes(&ev), 2048);

	AS(clEnqueueCopyBuffer)((cl_command_queue)0x3000, (cl_mem)0x9000, (cl_mem)0x9100, 8, 24, 512,
				0, NULL, NULL);
	capture_decode(lp.p, "clEnqueueCopyBuffer", &r, &ev);
	assert_int_equal(fv(&ev, "src_buffer"), 0x9000);
	assert_int_equal(fv(&ev, "dst_buffer"), 0x9100);
	assert_int_equal(fv(&ev, "dst_offset"), 24);
	assert_int_equal(ct_event_bytes(&ev), 512);

	AS(clGetDeviceIDs)((cl_platform_id)0x100, CL_DEVICE_TYPE_ALL, 1, (cl_device_id *)0x200, &n);
	capture_decode(lp.p, "clGetDeviceIDs", &r, &ev);
	assert_int_equal(fv(&ev, "device_type"), CL_DEVICE_TYPE_ALL);
	assert_int_equal(fv(&ev, "num_devices"), 1);

	AS(clBuildProgram)((cl_program)0x7000, 1, (const cl_device_id *)0x200, "-DSCALE=3", NULL,
			   (void *)0x42);
	capture_decode(lp.p, "clBuildProgram", &r, &ev);
	assert_name(field(&ev, "options")->str, "-DSCALE=3");
	assert_int_equal(fv(&ev, "user_data"), 0x42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_errors_match_header),
		cmocka_unit_test(test_ndrange_abi),
		cmocka_unit_test(test_create_errcode_ret),
		cmocka_unit_test(test_enqueue_abi),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
