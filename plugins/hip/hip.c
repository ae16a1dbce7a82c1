// SPDX-License-Identifier: MIT
/*
 * The HIP runtime plugin (libamdhip64): one row per traced API.
 *
 * Slots follow the x86-64 SysV ABI: registers rdi, rsi, rdx, rcx, r8, r9 are
 * slots 0-5, the stack words past them slots 6-11. A dim3 passed by value is
 * 12 bytes of INTEGER class and travels in two registers (x | y << 32, then
 * z), so it takes two slots and reads as three uint32 in a row. Every
 * signature here was checked against hip/hip_runtime_api.h and hip/hip_ext.h.
 */
#include <cudatracer/plugin.h>

extern const struct ct_enum hip_errors;       /* generated: hipError_t */
extern const struct ct_enum hip_memcpy_kinds; /* generated: hipMemcpyKind */

#define ARG(n, k, where, sz, r) { .name = n, .kind = k, where, .size = sz, .role = r }
#define KIND(n, where) { .name = n, .kind = CT_ARG_ENUM, where, .size = 4, \
			 .role = CT_ROLE_COPY_KIND, .names = &hip_memcpy_kinds }
#define ARGS(...) .args = { __VA_ARGS__ }, \
	.n_args = sizeof((struct ct_arg[]){ __VA_ARGS__ }) / sizeof(struct ct_arg)
#define NO_ARGS .n_args = 0
#define IN_STR .area = CT_AREA_STR, .off = 0
/* The word an out-pointer argument points to, copied after the call. */
#define OUT(slot, word) .reads = { { slot, CT_AT_EXIT, 1, word } }
#define API(sym, fl, ...) { .symbol = sym, .flags = fl, .result = CT_RES_ERROR, \
			    .err_arg = -1, .str_slot = CT_NO_STR, __VA_ARGS__ }
#define API_STR(sym, fl, str, ...) { .symbol = sym, .flags = fl, .result = CT_RES_ERROR, \
				     .err_arg = -1, .str_slot = str, __VA_ARGS__ }

#define DEV_ALLOC (CT_API_ALLOC | CT_API_DEVICE_MEM)
#define DEV_FREE (CT_API_FREE | CT_API_DEVICE_MEM)

static const struct ct_api hip_apis[] = {
	/* memory */
	API("hipMalloc", DEV_ALLOC, OUT(0, 0),
	    ARGS(ARG("ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		 ARG("size", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES))),
	API("hipFree", DEV_FREE,
	    ARGS(ARG("ptr", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	API("hipHostMalloc", CT_API_ALLOC | CT_API_HOST_MEM, OUT(0, 0),
	    ARGS(ARG("ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		 ARG("size", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES),
		 ARG("flags", CT_ARG_HEX, CT_SLOT(2), 4, CT_ROLE_NONE))),
	API("hipHostFree", CT_API_FREE | CT_API_HOST_MEM,
	    ARGS(ARG("ptr", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	API("hipMallocManaged", CT_API_ALLOC | CT_API_MANAGED_MEM, OUT(0, 0),
	    ARGS(ARG("dev_ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		 ARG("size", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES),
		 ARG("flags", CT_ARG_HEX, CT_SLOT(2), 4, CT_ROLE_NONE))),
	API("hipMallocAsync", DEV_ALLOC, OUT(0, 0),
	    ARGS(ARG("dev_ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		 ARG("size", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES),
		 ARG("stream", CT_ARG_HANDLE, CT_SLOT(2), 8, CT_ROLE_STREAM))),
	API("hipFreeAsync", DEV_FREE,
	    ARGS(ARG("dev_ptr", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_FREE_PTR),
		 ARG("stream", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_STREAM))),

	/* copies and sets */
	API("hipMemcpy", CT_API_COPY,
	    ARGS(ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		 ARG("src", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		 ARG("sizeBytes", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES),
		 KIND("kind", CT_SLOT(3)))),
	API("hipMemcpyAsync", CT_API_COPY,
	    ARGS(ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		 ARG("src", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		 ARG("sizeBytes", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES),
		 KIND("kind", CT_SLOT(3)),
		 ARG("stream", CT_ARG_HANDLE, CT_SLOT(4), 8, CT_ROLE_STREAM))),
	/* The direction is in the name; the API row in the summary tells them apart. */
	API("hipMemcpyHtoD", CT_API_COPY,
	    ARGS(ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		 ARG("src", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		 ARG("sizeBytes", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES))),
	API("hipMemcpyDtoH", CT_API_COPY,
	    ARGS(ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		 ARG("src", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		 ARG("sizeBytes", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES))),
	API("hipMemcpyDtoD", CT_API_COPY,
	    ARGS(ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		 ARG("src", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		 ARG("sizeBytes", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES))),
	API("hipMemset", CT_API_SET,
	    ARGS(ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		 ARG("value", CT_ARG_INT, CT_SLOT(1), 4, CT_ROLE_NONE),
		 ARG("sizeBytes", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES))),
	API("hipMemsetAsync", CT_API_SET,
	    ARGS(ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		 ARG("value", CT_ARG_INT, CT_SLOT(1), 4, CT_ROLE_NONE),
		 ARG("sizeBytes", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES),
		 ARG("stream", CT_ARG_HANDLE, CT_SLOT(3), 8, CT_ROLE_STREAM))),

	/* launches */
	API("hipLaunchKernel", CT_API_LAUNCH,
	    ARGS(ARG("function_address", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_KERNEL),
		 ARG("numBlocks", CT_ARG_DIM3, CT_SLOT(1), 12, CT_ROLE_NONE),
		 ARG("dimBlocks", CT_ARG_DIM3, CT_SLOT(3), 12, CT_ROLE_NONE),
		 ARG("args", CT_ARG_PTR, CT_SLOT(5), 8, CT_ROLE_NONE),
		 ARG("sharedMemBytes", CT_ARG_SIZE, CT_SLOT(6), 8, CT_ROLE_NONE),
		 ARG("stream", CT_ARG_HANDLE, CT_SLOT(7), 8, CT_ROLE_STREAM))),
	API("hipExtLaunchKernel", CT_API_LAUNCH,
	    ARGS(ARG("function_address", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_KERNEL),
		 ARG("numBlocks", CT_ARG_DIM3, CT_SLOT(1), 12, CT_ROLE_NONE),
		 ARG("dimBlocks", CT_ARG_DIM3, CT_SLOT(3), 12, CT_ROLE_NONE),
		 ARG("args", CT_ARG_PTR, CT_SLOT(5), 8, CT_ROLE_NONE),
		 ARG("sharedMemBytes", CT_ARG_SIZE, CT_SLOT(6), 8, CT_ROLE_NONE),
		 ARG("stream", CT_ARG_HANDLE, CT_SLOT(7), 8, CT_ROLE_STREAM),
		 ARG("startEvent", CT_ARG_HANDLE, CT_SLOT(8), 8, CT_ROLE_NONE),
		 ARG("stopEvent", CT_ARG_HANDLE, CT_SLOT(9), 8, CT_ROLE_NONE),
		 ARG("flags", CT_ARG_INT, CT_SLOT(10), 4, CT_ROLE_NONE))),
	/* The kernel name is read here and remembered by the handle written to *function. */
	API_STR("hipModuleGetFunction", 0, 2, OUT(0, 0),
		ARGS(ARG("function", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_HANDLE_NEW),
		     ARG("module", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_NONE),
		     ARG("kname", CT_ARG_STRING, IN_STR, 0, CT_ROLE_NONE))),
	/* Eleven arguments: gridDimX..blockDimY in registers, the rest on the stack. */
	API("hipModuleLaunchKernel", CT_API_LAUNCH,
	    ARGS(ARG("f", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_KERNEL),
		 ARG("gridDimX", CT_ARG_UINT, CT_SLOT(1), 4, CT_ROLE_NONE),
		 ARG("gridDimY", CT_ARG_UINT, CT_SLOT(2), 4, CT_ROLE_NONE),
		 ARG("gridDimZ", CT_ARG_UINT, CT_SLOT(3), 4, CT_ROLE_NONE),
		 ARG("blockDimX", CT_ARG_UINT, CT_SLOT(4), 4, CT_ROLE_NONE),
		 ARG("blockDimY", CT_ARG_UINT, CT_SLOT(5), 4, CT_ROLE_NONE),
		 ARG("blockDimZ", CT_ARG_UINT, CT_SLOT(6), 4, CT_ROLE_NONE),
		 ARG("sharedMemBytes", CT_ARG_UINT, CT_SLOT(7), 4, CT_ROLE_NONE),
		 ARG("stream", CT_ARG_HANDLE, CT_SLOT(8), 8, CT_ROLE_STREAM),
		 ARG("kernelParams", CT_ARG_PTR, CT_SLOT(9), 8, CT_ROLE_NONE),
		 ARG("extra", CT_ARG_PTR, CT_SLOT(10), 8, CT_ROLE_NONE))),
	API("hipGraphLaunch", CT_API_LAUNCH,
	    ARGS(ARG("graphExec", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE),
		 ARG("stream", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_STREAM))),

	/* streams and events */
	API("hipStreamCreate", 0, OUT(0, 0),
	    ARGS(ARG("stream", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_STREAM))),
	API("hipStreamCreateWithFlags", 0, OUT(0, 0),
	    ARGS(ARG("stream", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_STREAM),
		 ARG("flags", CT_ARG_HEX, CT_SLOT(1), 4, CT_ROLE_NONE))),
	API("hipStreamDestroy", 0,
	    ARGS(ARG("stream", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_STREAM))),
	API("hipStreamSynchronize", CT_API_SYNC,
	    ARGS(ARG("stream", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_STREAM))),
	API("hipDeviceSynchronize", CT_API_SYNC, NO_ARGS),
	API("hipEventCreate", 0, OUT(0, 0),
	    ARGS(ARG("event", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_NONE))),
	API("hipEventRecord", 0,
	    ARGS(ARG("event", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE),
		 ARG("stream", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_STREAM))),
	API("hipEventSynchronize", CT_API_SYNC,
	    ARGS(ARG("event", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE))),
	API("hipEventElapsedTime", 0, OUT(0, 0),
	    ARGS(ARG("ms", CT_ARG_FLOAT, CT_MEMW(0), 4, CT_ROLE_NONE),
		 ARG("start", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_NONE),
		 ARG("stop", CT_ARG_HANDLE, CT_SLOT(2), 8, CT_ROLE_NONE))),
	API("hipEventDestroy", 0,
	    ARGS(ARG("event", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE))),

	/* devices */
	API("hipSetDevice", 0,
	    ARGS(ARG("deviceId", CT_ARG_INT, CT_SLOT(0), 4, CT_ROLE_DEVICE))),
	/* Frameworks ask for the current device around nearly every call. */
	API("hipGetDevice", CT_API_HOT, OUT(0, 0),
	    ARGS(ARG("deviceId", CT_ARG_INT, CT_MEMW(0), 4, CT_ROLE_DEVICE))),
	API("hipGetDeviceCount", 0, OUT(0, 0),
	    ARGS(ARG("count", CT_ARG_INT, CT_MEMW(0), 4, CT_ROLE_NONE))),
};

static const char *const hip_libraries[] = { "libamdhip64.so", NULL };

static struct ct_plugin hip_plugin = {
	.abi_version = CT_ABI_VERSION,
	.sz = sizeof(struct ct_plugin),
	.name = "hip",
	.version = "1",
	.description = "AMD HIP runtime (libamdhip64)",
	.libraries = hip_libraries,
	.apis = hip_apis,
	.n_apis = sizeof(hip_apis) / sizeof(hip_apis[0]),
	.errors = &hip_errors,
	.success_name = "hipSuccess",
};

/* Fills bpf_object from the object ct_add_plugin() embedded. */
CT_PLUGIN_DEFINE(hip_plugin, ct_bpf_hip)
