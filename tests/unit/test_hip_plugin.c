// SPDX-License-Identifier: MIT
/*
 * The hip plugin's table against the HIP headers and the x86-64 calling
 * convention: its error and copy-kind names are the header's enumerators,
 * every symbol is exported by libamdhip64, and the arguments of the calls
 * with awkward layouts (dim3 by value, stack arguments, out-parameters)
 * decode to the values the caller passed.
 */
#include <hip/hip_runtime_api.h>
#include "plugin_check.h"

hipError_t hipExtLaunchKernel(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
			      void **args, size_t sharedMemBytes, hipStream_t stream,
			      hipEvent_t startEvent, hipEvent_t stopEvent, int flags);

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
	check_plugin(&lp, "hip", 53);
	assert_string_equal(lp.p->libraries[0], "libamdhip64.so");
	assert_int_equal(lp.p->n_libraries, 1);
}

#define E(x) { x, #x }

/* Values taken from the header by the compiler, names by the generator. */
static void test_errors_match_header(void **state)
{
	static const struct { int64_t v; const char *name; } want[] = {
		E(hipSuccess), E(hipErrorInvalidValue), E(hipErrorOutOfMemory),
		E(hipErrorNotInitialized), E(hipErrorNoDevice), E(hipErrorInvalidDevice),
		E(hipErrorInvalidHandle), E(hipErrorNotFound), E(hipErrorNotReady),
		E(hipErrorIllegalAddress), E(hipErrorNotSupported),
		E(hipErrorStreamCaptureWrongThread), E(hipErrorUnknown), E(hipErrorRuntimeOther),
	};
	const struct ct_enum *e = lp.p->errors;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *got = ct_enum_name(e, want[i].v);

		if (!got || strcmp(got, want[i].name))
			fail_msg("%lld: want %s, table has %s", (long long)want[i].v, want[i].name,
				 got ? got : "nothing");
	}
	/* The sentinel is not an error; the deprecated aliases lose to the first name. */
	assert_null(ct_enum_name(e, hipErrorTbd));
	assert_string_equal(ct_enum_name(e, hipErrorMemoryAllocation), "hipErrorOutOfMemory");
	assert_string_equal(ct_enum_name(e, hipErrorInvalidResourceHandle), "hipErrorInvalidHandle");
	assert_string_equal(e->v[e->n - 1].name, "hipErrorRuntimeOther");
}

static void test_memcpy_kinds_match_header(void **state)
{
	const struct ct_enum *k = find_arg(find_api(lp.p, "hipMemcpy"), "kind")->names;

	assert_int_equal(k->n, 5);
	assert_string_equal(ct_enum_name(k, hipMemcpyHostToHost), "hipMemcpyHostToHost");
	assert_string_equal(ct_enum_name(k, hipMemcpyHostToDevice), "hipMemcpyHostToDevice");
	assert_string_equal(ct_enum_name(k, hipMemcpyDeviceToHost), "hipMemcpyDeviceToHost");
	assert_string_equal(ct_enum_name(k, hipMemcpyDeviceToDevice), "hipMemcpyDeviceToDevice");
	assert_string_equal(ct_enum_name(k, hipMemcpyDefault), "hipMemcpyDefault");
}

static void assert_dim3(const struct ct_event *ev, const char *name, uint32_t x, uint32_t y,
			uint32_t z)
{
	const struct ct_field *f = field(ev, name);

	assert_true(f->valid);
	assert_int_equal(f->n3, 3);
	assert_int_equal(f->v3[0], x);
	assert_int_equal(f->v3[1], y);
	assert_int_equal(f->v3[2], z);
}

static void test_launch_kernel_abi(void **state)
{
	struct ct_record r;
	struct ct_event ev;
	void *kargs[2];

	ct_test_ret = hipErrorInvalidDevice;
	AS(hipLaunchKernel)((const void *)0x401000, (dim3){ 4, 3, 2 }, (dim3){ 64, 2, 1 }, kargs,
			    96, (hipStream_t)0x5100);
	capture_decode(lp.p, "hipLaunchKernel", &r, &ev);
	assert_int_equal(fv(&ev, "function_address"), 0x401000);
	assert_dim3(&ev, "numBlocks", 4, 3, 2);
	assert_dim3(&ev, "dimBlocks", 64, 2, 1);
	assert_int_equal(fv(&ev, "args"), (uintptr_t)kargs);
	assert_int_equal(fv(&ev, "sharedMemBytes"), 96);
	assert_int_equal(fv(&ev, "stream"), 0x5100);
	assert_true(ev.has_result && ev.is_error);
	assert_name(ev.result_name, "hipErrorInvalidDevice");

	AS(hipExtLaunchKernel)((const void *)0x402000, (dim3){ 8, 7, 6 }, (dim3){ 128, 1, 2 }, kargs,
			       48, (hipStream_t)0x5200, (hipEvent_t)0x6100, (hipEvent_t)0x6200, -5);
	capture_decode(lp.p, "hipExtLaunchKernel", &r, &ev);
	assert_dim3(&ev, "numBlocks", 8, 7, 6);
	assert_dim3(&ev, "dimBlocks", 128, 1, 2);
	assert_int_equal(fv(&ev, "sharedMemBytes"), 48);
	assert_int_equal(fv(&ev, "stream"), 0x5200);
	assert_int_equal(fv(&ev, "startEvent"), 0x6100);
	assert_int_equal(fv(&ev, "stopEvent"), 0x6200);
	assert_int_equal((int64_t)fv(&ev, "flags"), -5);
}

static void test_module_launch_kernel_abi(void **state)
{
	struct ct_record r;
	struct ct_event ev;
	void *extra[1];

	ct_test_ret = hipSuccess;
	AS(hipModuleLaunchKernel)((hipFunction_t)0x6500, 5, 6, 7, 32, 4, 2, 256,
				  (hipStream_t)0x5100, (void **)0x7000, extra);
	capture_decode(lp.p, "hipModuleLaunchKernel", &r, &ev);
	assert_int_equal(fv(&ev, "f"), 0x6500);
	assert_int_equal(fv(&ev, "gridDimX"), 5);
	assert_int_equal(fv(&ev, "gridDimY"), 6);
	assert_int_equal(fv(&ev, "gridDimZ"), 7);
	assert_int_equal(fv(&ev, "blockDimX"), 32);
	assert_int_equal(fv(&ev, "blockDimY"), 4);
	assert_int_equal(fv(&ev, "blockDimZ"), 2);
	assert_int_equal(fv(&ev, "sharedMemBytes"), 256);
	assert_int_equal(fv(&ev, "stream"), 0x5100);
	assert_int_equal(fv(&ev, "kernelParams"), 0x7000);
	assert_int_equal(fv(&ev, "extra"), (uintptr_t)extra);
	assert_false(ev.is_error);
	assert_name(ev.result_name, "hipSuccess");
}

static void test_out_parameters(void **state)
{
	struct ct_record r;
	struct ct_event ev;
	void *ptr = (void *)0x7f0000001000;
	float ms = 2.25f;
	int count = 3;
	hipFunction_t fn = (hipFunction_t)0x6600;

	/* The runtime would have written these: the table reads them after the call. */
	ct_test_ret = hipSuccess;
	AS(hipMalloc)(&ptr, 4096);
	capture_decode(lp.p, "hipMalloc", &r, &ev);
	assert_int_equal(fv(&ev, "ptr"), 0x7f0000001000);
	assert_int_equal(fv(&ev, "size"), 4096);
	assert_int_equal(ct_event_bytes(&ev), 4096);

	AS(hipEventElapsedTime)(&ms, (hipEvent_t)0x6100, (hipEvent_t)0x6200);
	capture_decode(lp.p, "hipEventElapsedTime", &r, &ev);
	assert_memory_equal(&field(&ev, "ms")->v, &ms, sizeof(ms));
	assert_int_equal(fv(&ev, "stop"), 0x6200);

	ct_test_ret = hipErrorNoDevice;
	AS(hipGetDeviceCount)(&count);
	capture_decode(lp.p, "hipGetDeviceCount", &r, &ev);
	assert_int_equal(fv(&ev, "count"), 3);
	assert_name(ev.result_name, "hipErrorNoDevice");

	AS(hipModuleGetFunction)(&fn, (hipModule_t)0x6300, "vadd");
	capture_decode(lp.p, "hipModuleGetFunction", &r, &ev);
	assert_int_equal(fv(&ev, "function"), 0x6600);
	assert_int_equal(fv(&ev, "module"), 0x6300);
	assert_name(field(&ev, "kname")->str, "vadd");
	assert_int_equal(field(&ev, "function")->arg->role, CT_ROLE_HANDLE_NEW);
}

static void test_copies(void **state)
{
	struct ct_record r;
	struct ct_event ev;

	ct_test_ret = hipSuccess;
	AS(hipMemcpyAsync)((void *)0x1000, (void *)0x2000, 128, hipMemcpyDeviceToHost,
			   (hipStream_t)0x5100);
	capture_decode(lp.p, "hipMemcpyAsync", &r, &ev);
	assert_int_equal(fv(&ev, "dst"), 0x1000);
	assert_int_equal(fv(&ev, "src"), 0x2000);
	assert_int_equal(ct_event_bytes(&ev), 128);
	assert_name(field(&ev, "kind")->enum_name, "hipMemcpyDeviceToHost");
	assert_int_equal(fv(&ev, "stream"), 0x5100);

	AS(hipMemsetAsync)((void *)0x1000, -1, 512, (hipStream_t)0x5100);
	capture_decode(lp.p, "hipMemsetAsync", &r, &ev);
	assert_int_equal((int64_t)fv(&ev, "value"), -1);
	assert_int_equal(ct_event_bytes(&ev), 512);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_errors_match_header),
		cmocka_unit_test(test_memcpy_kinds_match_header),
		cmocka_unit_test(test_launch_kernel_abi),
		cmocka_unit_test(test_module_launch_kernel_abi),
		cmocka_unit_test(test_out_parameters),
		cmocka_unit_test(test_copies),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
