// SPDX-License-Identifier: MIT
/*
 * The OpenCL plugin: one row per traced API of the ICD loader (libOpenCL.so.1),
 * which every OpenCL program calls whatever the vendor behind it.
 *
 * Slots follow the x86-64 SysV ABI: registers rdi, rsi, rdx, rcx, r8, r9 are
 * slots 0-5, the stack words past them slots 6-11. Every signature here was
 * checked against CL/cl.h.
 *
 * The create calls return a handle and report their error through the
 * `errcode_ret` out-parameter: the table reads *errcode_ret after the call
 * and names it the call's result (err_arg).
 */
#include <cudatracer/plugin.h>
#include "opencl_apis.h" /* generated: every other API (apis.ini) */

extern const struct ct_enum cl_errors; /* generated: CL/cl.h and CL/cl_ext.h */

/* The cl_int that an errcode_ret argument points to, read into mem word 0 after the call. */
#define ERRCODE_ARG CT_ARG_NAMED("errcode_ret", CT_MEMW(0), 4, CT_ROLE_NONE, &cl_errors)

/* Arguments that every enqueue call ends with. */
#define WAIT_LIST(slot) \
	CT_ARG("num_events_in_wait_list", CT_ARG_UINT, CT_SLOT(slot), 4, CT_ROLE_NONE), \
	CT_ARG("event_wait_list", CT_ARG_PTR, CT_SLOT((slot) + 1), 8, CT_ROLE_NONE), \
	CT_ARG("event", CT_ARG_PTR, CT_SLOT((slot) + 2), 8, CT_ROLE_NONE)

static const struct ct_api opencl_apis[] = {
	/* platforms, devices, contexts, queues */
	CT_API("clGetPlatformIDs", 0, CT_READS(CT_OUT_WORD(2, 0)),
	    CT_ARGS(CT_ARG("num_entries", CT_ARG_UINT, CT_SLOT(0), 4, CT_ROLE_NONE),
		 CT_ARG("platforms", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		 CT_ARG("num_platforms", CT_ARG_UINT, CT_MEMW(0), 4, CT_ROLE_NONE))),
	CT_API("clGetDeviceIDs", 0, CT_READS(CT_OUT_WORD(4, 0)),
	    CT_ARGS(CT_ARG("platform", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE),
		 CT_ARG("device_type", CT_ARG_HEX, CT_SLOT(1), 8, CT_ROLE_NONE),
		 CT_ARG("num_entries", CT_ARG_UINT, CT_SLOT(2), 4, CT_ROLE_NONE),
		 CT_ARG("devices", CT_ARG_PTR, CT_SLOT(3), 8, CT_ROLE_NONE),
		 CT_ARG("num_devices", CT_ARG_UINT, CT_MEMW(0), 4, CT_ROLE_NONE))),
	CT_API("clCreateContext", 0, CT_RETURNS_HANDLE(5), CT_READS(CT_OUT_WORD(5, 0)),
	       CT_ARGS(CT_ARG("properties", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		    CT_ARG("num_devices", CT_ARG_UINT, CT_SLOT(1), 4, CT_ROLE_NONE),
		    CT_ARG("devices", CT_ARG_PTR, CT_SLOT(2), 8, CT_ROLE_NONE),
		    CT_ARG("pfn_notify", CT_ARG_PTR, CT_SLOT(3), 8, CT_ROLE_NONE),
		    CT_ARG("user_data", CT_ARG_PTR, CT_SLOT(4), 8, CT_ROLE_NONE),
		    ERRCODE_ARG)),
	CT_API("clCreateCommandQueue", 0, CT_RETURNS_HANDLE(3), CT_READS(CT_OUT_WORD(3, 0)),
	       CT_ARGS(CT_ARG("context", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE),
		    CT_ARG("device", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_DEVICE),
		    CT_ARG("properties", CT_ARG_HEX, CT_SLOT(2), 8, CT_ROLE_NONE),
		    ERRCODE_ARG)),
	CT_API("clCreateCommandQueueWithProperties", 0, CT_RETURNS_HANDLE(3), CT_READS(CT_OUT_WORD(3, 0)),
	       CT_ARGS(CT_ARG("context", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE),
		    CT_ARG("device", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_DEVICE),
		    CT_ARG("properties", CT_ARG_PTR, CT_SLOT(2), 8, CT_ROLE_NONE),
		    ERRCODE_ARG)),

	/* buffers: a cl_mem is the allocation, held by each retain and freed
	 * by the release that drops its count to zero */
	CT_API("clCreateBuffer", CT_API_ALLOC | CT_API_DEVICE_MEM, CT_RETURNS_HANDLE(5), CT_READS(CT_OUT_WORD(4, 0)),
	       CT_ARGS(CT_ARG("context", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE),
		    CT_ARG("flags", CT_ARG_HEX, CT_SLOT(1), 8, CT_ROLE_NONE),
		    CT_ARG("size", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES),
		    CT_ARG("host_ptr", CT_ARG_PTR, CT_SLOT(3), 8, CT_ROLE_NONE),
		    CT_ARG("mem", CT_ARG_HANDLE, CT_IN_RET, 8, CT_ROLE_ALLOC_PTR),
		    ERRCODE_ARG)),
	CT_API("clReleaseMemObject", CT_API_FREE | CT_API_DEVICE_MEM,
	    CT_ARGS(CT_ARG("memobj", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	CT_API("clRetainMemObject", CT_API_RETAIN | CT_API_DEVICE_MEM,
	    CT_ARGS(CT_ARG("memobj", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	/* Shared virtual memory: one address on host and device, as managed
	 * memory is; clSVMAlloc returns it (NULL: failed), clSVMFree returns nothing. */
	CT_API("clSVMAlloc", CT_API_ALLOC | CT_API_MANAGED_MEM, CT_RETURNS_HANDLE(-1),
	       CT_ARGS(CT_ARG("context", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE),
		    CT_ARG("flags", CT_ARG_HEX, CT_SLOT(1), 8, CT_ROLE_NONE),
		    CT_ARG("size", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES),
		    CT_ARG("alignment", CT_ARG_UINT, CT_SLOT(3), 4, CT_ROLE_NONE),
		    CT_ARG("svm_pointer", CT_ARG_PTR, CT_IN_RET, 8, CT_ROLE_ALLOC_PTR))),
	CT_API("clSVMFree", CT_API_FREE | CT_API_MANAGED_MEM, CT_RETURNS_VOID,
	    CT_ARGS(CT_ARG("context", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE),
		 CT_ARG("svm_pointer", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_FREE_PTR))),

	/* programs and kernels */
	CT_API("clCreateProgramWithSource", 0, CT_RETURNS_HANDLE(4), CT_READS(CT_OUT_WORD(4, 0)),
	       CT_ARGS(CT_ARG("context", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE),
		    CT_ARG("count", CT_ARG_UINT, CT_SLOT(1), 4, CT_ROLE_NONE),
		    CT_ARG("strings", CT_ARG_PTR, CT_SLOT(2), 8, CT_ROLE_NONE),
		    CT_ARG("lengths", CT_ARG_PTR, CT_SLOT(3), 8, CT_ROLE_NONE),
		    ERRCODE_ARG)),
	CT_API("clBuildProgram", 0, CT_STR(3),
	  CT_ARGS(CT_ARG("program", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE),
	       CT_ARG("num_devices", CT_ARG_UINT, CT_SLOT(1), 4, CT_ROLE_NONE),
	       CT_ARG("device_list", CT_ARG_PTR, CT_SLOT(2), 8, CT_ROLE_NONE),
	       CT_ARG("options", CT_ARG_STRING, CT_IN_STR, 0, CT_ROLE_NONE),
	       CT_ARG("pfn_notify", CT_ARG_PTR, CT_SLOT(4), 8, CT_ROLE_NONE),
	       CT_ARG("user_data", CT_ARG_PTR, CT_SLOT(5), 8, CT_ROLE_NONE))),
	/* The kernel name is read here and remembered by the returned handle. */
	CT_API("clCreateKernel", 0, CT_RETURNS_HANDLE(3), CT_STR(1), CT_READS(CT_OUT_WORD(2, 0)),
	       CT_ARGS(CT_ARG("program", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE),
		    CT_ARG("kernel_name", CT_ARG_STRING, CT_IN_STR, 0, CT_ROLE_NONE),
		    CT_ARG("kernel", CT_ARG_HANDLE, CT_IN_RET, 8, CT_ROLE_HANDLE_NEW),
		    ERRCODE_ARG)),
	CT_API("clSetKernelArg", 0,
	    CT_ARGS(CT_ARG("kernel", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_HANDLE_NAMED),
		 CT_ARG("arg_index", CT_ARG_UINT, CT_SLOT(1), 4, CT_ROLE_NONE),
		 CT_ARG("arg_size", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_NONE),
		 CT_ARG("arg_value", CT_ARG_PTR, CT_SLOT(3), 8, CT_ROLE_NONE))),
	CT_API("clReleaseKernel", 0,
	    CT_ARGS(CT_ARG("kernel", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_HANDLE_NAMED))),
	CT_API("clReleaseProgram", 0,
	    CT_ARGS(CT_ARG("program", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE))),

	/* enqueues: the work sizes are arrays of work_dim size_t (1 to 3). The
	 * kernel is the launch's (CT_ROLE_KERNEL), a handle named by clCreateKernel:
	 * the summary's and html's kernels tables and chrome's slices go by it. */
	CT_API("clEnqueueNDRangeKernel", CT_API_LAUNCH,
	    CT_READS(CT_IN_WORDS(4, 3, 0), CT_IN_WORDS(5, 3, 3)),
	    CT_ARGS(CT_ARG("command_queue", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_STREAM),
		 CT_ARG("kernel", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_KERNEL),
		 CT_ARG("work_dim", CT_ARG_UINT, CT_SLOT(2), 4, CT_ROLE_NONE),
		 CT_ARG("global_work_offset", CT_ARG_PTR, CT_SLOT(3), 8, CT_ROLE_NONE),
		 CT_ARG_SIZES3_ROLE("global_work_size", CT_MEMW(0), 2, CT_ROLE_GRID),
		 CT_ARG_SIZES3_ROLE("local_work_size", CT_MEMW(3), 2, CT_ROLE_BLOCK),
		 WAIT_LIST(6))),
	CT_API("clEnqueueReadBuffer", CT_API_COPY,
	    CT_ARGS(CT_ARG("command_queue", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_STREAM),
		 CT_ARG("buffer", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_NONE),
		 CT_ARG("blocking_read", CT_ARG_UINT, CT_SLOT(2), 4, CT_ROLE_NONE),
		 CT_ARG("offset", CT_ARG_SIZE, CT_SLOT(3), 8, CT_ROLE_NONE),
		 CT_ARG("size", CT_ARG_SIZE, CT_SLOT(4), 8, CT_ROLE_BYTES),
		 CT_ARG("ptr", CT_ARG_PTR, CT_SLOT(5), 8, CT_ROLE_NONE),
		 WAIT_LIST(6))),
	CT_API("clEnqueueWriteBuffer", CT_API_COPY,
	    CT_ARGS(CT_ARG("command_queue", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_STREAM),
		 CT_ARG("buffer", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_NONE),
		 CT_ARG("blocking_write", CT_ARG_UINT, CT_SLOT(2), 4, CT_ROLE_NONE),
		 CT_ARG("offset", CT_ARG_SIZE, CT_SLOT(3), 8, CT_ROLE_NONE),
		 CT_ARG("size", CT_ARG_SIZE, CT_SLOT(4), 8, CT_ROLE_BYTES),
		 CT_ARG("ptr", CT_ARG_PTR, CT_SLOT(5), 8, CT_ROLE_NONE),
		 WAIT_LIST(6))),
	CT_API("clEnqueueCopyBuffer", CT_API_COPY,
	    CT_ARGS(CT_ARG("command_queue", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_STREAM),
		 CT_ARG("src_buffer", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_NONE),
		 CT_ARG("dst_buffer", CT_ARG_HANDLE, CT_SLOT(2), 8, CT_ROLE_NONE),
		 CT_ARG("src_offset", CT_ARG_SIZE, CT_SLOT(3), 8, CT_ROLE_NONE),
		 CT_ARG("dst_offset", CT_ARG_SIZE, CT_SLOT(4), 8, CT_ROLE_NONE),
		 CT_ARG("size", CT_ARG_SIZE, CT_SLOT(5), 8, CT_ROLE_BYTES),
		 WAIT_LIST(6))),
	CT_API("clEnqueueFillBuffer", CT_API_SET,
	    CT_ARGS(CT_ARG("command_queue", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_STREAM),
		 CT_ARG("buffer", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_NONE),
		 CT_ARG("pattern", CT_ARG_PTR, CT_SLOT(2), 8, CT_ROLE_NONE),
		 CT_ARG("pattern_size", CT_ARG_SIZE, CT_SLOT(3), 8, CT_ROLE_NONE),
		 CT_ARG("offset", CT_ARG_SIZE, CT_SLOT(4), 8, CT_ROLE_NONE),
		 CT_ARG("size", CT_ARG_SIZE, CT_SLOT(5), 8, CT_ROLE_BYTES),
		 WAIT_LIST(6))),

	/* synchronisation and teardown */
	CT_API("clFlush", 0,
	    CT_ARGS(CT_ARG("command_queue", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_STREAM))),
	CT_API("clFinish", CT_API_SYNC,
	    CT_ARGS(CT_ARG("command_queue", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_STREAM))),
	CT_API("clWaitForEvents", CT_API_SYNC,
	    CT_ARGS(CT_ARG("num_events", CT_ARG_UINT, CT_SLOT(0), 4, CT_ROLE_NONE),
		 CT_ARG("event_list", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE))),
	CT_API("clReleaseCommandQueue", 0,
	    CT_ARGS(CT_ARG("command_queue", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_STREAM))),
	CT_API("clReleaseContext", 0,
	    CT_ARGS(CT_ARG("context", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE))),
};

/* The ICD loader; vendors' own libraries (libpocl, the NVIDIA and AMD ICDs)
 * export the same names under other sonames and are reached through it. */
static const struct ct_plugin opencl_plugin = {
	CT_PLUGIN_HEAD,
	.name = "opencl",
	.version = CT_PLUGIN_VERSION,
	.description = "OpenCL through the ICD loader (libOpenCL)",
	CT_LIBRARIES("libOpenCL.so"),
	CT_APIS(opencl_apis),
	CT_GEN_APIS(opencl_gen_apis),
	.errors = &cl_errors,
	.success_name = "CL_SUCCESS",
};

CT_PLUGIN_DEFINE(opencl_plugin)
