// SPDX-License-Identifier: MIT
/*
 * The CUDA driver CT_API plugin (libcuda.so.1): one row per traced symbol.
 *
 * cuda.h renames most calls with macros (cuMemAlloc -> cuMemAlloc_v2, with
 * -default-stream per-thread cuMemcpyHtoD -> cuMemcpyHtoD_v2_ptds and
 * cuLaunchKernel -> cuLaunchKernel_ptsz), so each CT_API is one row for each
 * symbol libcuda exports under its name, and the event shows the symbol that
 * was really called. The unsuffixed names of renamed calls are the CUDA 3.x
 * ABI, kept for old binaries and for code that dlsym()s plain names: there
 * device pointers and sizes are 32 bits wide, and the rows say so.
 *
 * Slots follow the x86-64 SysV ABI: registers rdi, rsi, rdx, rcx, r8, r9 are
 * slots 0-5, stack words slots 6-11; an `unsigned int` argument fills only
 * the low half of its slot, so it is read with size 4. Every signature was
 * checked against cuda.h of CUDA 13.0 (the legacy ones against its
 * __CUDA_API_VERSION_INTERNAL section), every symbol against `nm -D` of
 * libcuda.
 */
#include <cudatracer/plugin.h>

extern const struct ct_enum cu_result; /* generated from cuda.h: enum cudaError_enum */

#define NO_ARGS .n_args = 0
/* The word an out-pointer argument points to, copied after the call. */
#define OUT(slot) CT_READS(CT_OUT_WORD(slot, 0))

/* Argument shapes that recur. `w` is the width in bytes of a device pointer
 * or size: 8, or 4 in the CUDA 3.x ABI of the unsuffixed symbols. */
#define DPTR(n, s, w) CT_ARG(n, CT_ARG_PTR, CT_SLOT(s), w, CT_ROLE_NONE)
#define HPTR(n, s) CT_ARG(n, CT_ARG_PTR, CT_SLOT(s), 8, CT_ROLE_NONE)
#define BYTES(n, s, w) CT_ARG(n, CT_ARG_SIZE, CT_SLOT(s), w, CT_ROLE_BYTES)
#define STREAM(s) CT_ARG("hStream", CT_ARG_HANDLE, CT_SLOT(s), 8, CT_ROLE_STREAM)
#define HANDLE(n, s) CT_ARG(n, CT_ARG_HANDLE, CT_SLOT(s), 8, CT_ROLE_NONE)
#define UINT(n, s) CT_ARG(n, CT_ARG_UINT, CT_SLOT(s), 4, CT_ROLE_NONE)
#define FLAGS(n, s) CT_ARG(n, CT_ARG_HEX, CT_SLOT(s), 4, CT_ROLE_NONE)
#define DEVICE(s) CT_ARG("dev", CT_ARG_INT, CT_SLOT(s), 4, CT_ROLE_DEVICE)
/* The handle a create call wrote through its first argument. */
#define NEW(n) CT_ARG(n, CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_NONE)


/* cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) */
#define MEM_ALLOC(sym, w) CT_API(sym, CT_API_DEV_ALLOC, OUT(0), \
	CT_ARGS(CT_ARG("dptr", CT_ARG_PTR, CT_MEMW(0), w, CT_ROLE_ALLOC_PTR), BYTES("bytesize", 1, w)))
#define MEM_FREE(sym, w) CT_API(sym, CT_API_DEV_FREE, \
	CT_ARGS(CT_ARG("dptr", CT_ARG_PTR, CT_SLOT(0), w, CT_ROLE_FREE_PTR)))
#define MEM_ALLOC_HOST(sym, w) CT_API(sym, CT_API_ALLOC | CT_API_HOST_MEM, OUT(0), \
	CT_ARGS(CT_ARG("pp", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR), BYTES("bytesize", 1, w)))
/* cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) */
#define MEM_ALLOC_ASYNC(sym) CT_API(sym, CT_API_DEV_ALLOC, OUT(0), \
	CT_ARGS(CT_ARG("dptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR), \
	     BYTES("bytesize", 1, 8), STREAM(2)))
#define MEM_FREE_ASYNC(sym) CT_API(sym, CT_API_DEV_FREE, \
	CT_ARGS(CT_ARG("dptr", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_FREE_PTR), STREAM(1)))

/*
 * Copies. The direction is in the symbol's name (HtoD, DtoH, DtoD) or,
 * for cuMemcpy, in the unified address space, not in an argument.
 */
#define MEMCPY(sym) CT_API(sym, CT_API_COPY, \
	CT_ARGS(DPTR("dst", 0, 8), DPTR("src", 1, 8), BYTES("ByteCount", 2, 8)))
#define MEMCPY_ASYNC(sym) CT_API(sym, CT_API_COPY, \
	CT_ARGS(DPTR("dst", 0, 8), DPTR("src", 1, 8), BYTES("ByteCount", 2, 8), STREAM(3)))
#define MEMCPY_HTOD(sym, w) CT_API(sym, CT_API_COPY, \
	CT_ARGS(DPTR("dstDevice", 0, w), HPTR("srcHost", 1), BYTES("ByteCount", 2, w)))
#define MEMCPY_DTOH(sym, w) CT_API(sym, CT_API_COPY, \
	CT_ARGS(HPTR("dstHost", 0), DPTR("srcDevice", 1, w), BYTES("ByteCount", 2, w)))
#define MEMCPY_DTOD(sym, w) CT_API(sym, CT_API_COPY, \
	CT_ARGS(DPTR("dstDevice", 0, w), DPTR("srcDevice", 1, w), BYTES("ByteCount", 2, w)))
#define MEMCPY_HTOD_ASYNC(sym, w) CT_API(sym, CT_API_COPY, \
	CT_ARGS(DPTR("dstDevice", 0, w), HPTR("srcHost", 1), BYTES("ByteCount", 2, w), STREAM(3)))
#define MEMCPY_DTOH_ASYNC(sym, w) CT_API(sym, CT_API_COPY, \
	CT_ARGS(HPTR("dstHost", 0), DPTR("srcDevice", 1, w), BYTES("ByteCount", 2, w), STREAM(3)))
#define MEMCPY_DTOD_ASYNC(sym, w) CT_API(sym, CT_API_COPY, \
	CT_ARGS(DPTR("dstDevice", 0, w), DPTR("srcDevice", 1, w), BYTES("ByteCount", 2, w), STREAM(3)))
/*
 * The 2D copy's sizes (WidthInBytes, Height) sit at bytes 112 and 120 of
 * CUDA_MEMCPY2D, past what a read can reach (it copies from the start of
 * the struct, 64 bytes at most), so only the descriptor's address shows.
 */
#define MEMCPY_2D(sym) CT_API(sym, CT_API_COPY, CT_ARGS(HPTR("pCopy", 0)))
#define MEMCPY_2D_ASYNC(sym) CT_API(sym, CT_API_COPY, CT_ARGS(HPTR("pCopy", 0), STREAM(1)))

/* cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N): N bytes. */
#define MEMSET_D8(sym, w) CT_API(sym, CT_API_SET, \
	CT_ARGS(DPTR("dstDevice", 0, w), CT_ARG("uc", CT_ARG_HEX, CT_SLOT(1), 1, CT_ROLE_NONE), \
	     BYTES("N", 2, w)))
#define MEMSET_D8_ASYNC(sym) CT_API(sym, CT_API_SET, \
	CT_ARGS(DPTR("dstDevice", 0, 8), CT_ARG("uc", CT_ARG_HEX, CT_SLOT(1), 1, CT_ROLE_NONE), \
	     BYTES("N", 2, 8), STREAM(3)))
/* cuMemsetD32's N counts 32-bit words, not bytes: no BYTES role. */
#define MEMSET_D32(sym, w) CT_API(sym, CT_API_SET, \
	CT_ARGS(DPTR("dstDevice", 0, w), FLAGS("ui", 1), \
	     CT_ARG("N", CT_ARG_UINT, CT_SLOT(2), w, CT_ROLE_NONE)))
#define MEMSET_D32_ASYNC(sym) CT_API(sym, CT_API_SET, \
	CT_ARGS(DPTR("dstDevice", 0, 8), FLAGS("ui", 1), \
	     CT_ARG("N", CT_ARG_UINT, CT_SLOT(2), 8, CT_ROLE_NONE), STREAM(3)))

/*
 * cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
 * blockDimZ, sharedMemBytes, hStream, kernelParams, extra): eleven
 * arguments, blockDimZ onwards on the stack. `f` is a CUfunction, or a
 * CUkernel cast to one; either was named when it was created.
 */
#define LAUNCH_DIMS \
	CT_ARG("f", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_KERNEL), \
	UINT("gridDimX", 1), UINT("gridDimY", 2), UINT("gridDimZ", 3), \
	UINT("blockDimX", 4), UINT("blockDimY", 5), UINT("blockDimZ", 6), \
	UINT("sharedMemBytes", 7), STREAM(8), HPTR("kernelParams", 9)
#define LAUNCH_KERNEL(sym) CT_API(sym, CT_API_LAUNCH, CT_ARGS(LAUNCH_DIMS, HPTR("extra", 10)))
#define LAUNCH_COOPERATIVE(sym) CT_API(sym, CT_API_LAUNCH, CT_ARGS(LAUNCH_DIMS))
/*
 * cuLaunchKernelEx(const CUlaunchConfig *config, f, kernelParams, extra):
 * the configuration is copied at entry. CUlaunchConfig is seven unsigned
 * ints (grid, block, sharedMemBytes), padding, hStream at byte 32, attrs at
 * 40, numAttrs at 48: 56 bytes, seven words.
 */
#define CFG_UINT(n, byte) CT_ARG(n, CT_ARG_UINT, CT_IN_MEM(byte), 4, CT_ROLE_NONE)
#define LAUNCH_KERNEL_EX(sym) CT_API(sym, CT_API_LAUNCH, \
	CT_READS(CT_IN_WORDS(0, 7, 0)), \
	CT_ARGS(CT_ARG("f", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_KERNEL), \
	     CFG_UINT("gridDimX", 0), CFG_UINT("gridDimY", 4), CFG_UINT("gridDimZ", 8), \
	     CFG_UINT("blockDimX", 12), CFG_UINT("blockDimY", 16), CFG_UINT("blockDimZ", 20), \
	     CFG_UINT("sharedMemBytes", 24), \
	     CT_ARG("hStream", CT_ARG_HANDLE, CT_IN_MEM(32), 8, CT_ROLE_STREAM), \
	     CFG_UINT("numAttrs", 48), \
	     HPTR("kernelParams", 2), HPTR("extra", 3)))

/* cuCtxCreate: the CUDA 3.x and 3.2 forms share one signature. */
#define CTX_CREATE(sym) CT_API(sym, 0, OUT(0), \
	CT_ARGS(NEW("pctx"), FLAGS("flags", 1), DEVICE(2)))

static const struct ct_api cuda_apis[] = {
	/* initialisation and contexts */
	CT_API("cuInit", 0, CT_ARGS(FLAGS("Flags", 0))),
	/* Not in the brief's list, but the first calls libcudart makes into the
	 * driver: they show where the runtime's own driver calls nest. */
	CT_API("cuDriverGetVersion", 0, OUT(0),
	    CT_ARGS(CT_ARG("driverVersion", CT_ARG_INT, CT_MEMW(0), 4, CT_ROLE_NONE))),
	/* How libcudart, PyTorch and Triton find driver functions; hundreds at start-up. */
	CT_API("cuGetProcAddress", CT_API_HOT, CT_STR(0), OUT(1),
		CT_ARGS(CT_ARG("symbol", CT_ARG_STRING, CT_IN_STR, 0, CT_ROLE_NONE),
		     CT_ARG("pfn", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_NONE),
		     CT_ARG("cudaVersion", CT_ARG_INT, CT_SLOT(2), 4, CT_ROLE_NONE),
		     CT_ARG("flags", CT_ARG_HEX, CT_SLOT(3), 8, CT_ROLE_NONE))),
	CT_API("cuGetProcAddress_v2", CT_API_HOT, CT_STR(0), OUT(1),
		CT_ARGS(CT_ARG("symbol", CT_ARG_STRING, CT_IN_STR, 0, CT_ROLE_NONE),
		     CT_ARG("pfn", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_NONE),
		     CT_ARG("cudaVersion", CT_ARG_INT, CT_SLOT(2), 4, CT_ROLE_NONE),
		     CT_ARG("flags", CT_ARG_HEX, CT_SLOT(3), 8, CT_ROLE_NONE))),
	CTX_CREATE("cuCtxCreate"),
	CTX_CREATE("cuCtxCreate_v2"),
	CT_API("cuCtxCreate_v3", 0, OUT(0),
	    CT_ARGS(NEW("pctx"), HPTR("paramsArray", 1),
		 CT_ARG("numParams", CT_ARG_INT, CT_SLOT(2), 4, CT_ROLE_NONE),
		 FLAGS("flags", 3), DEVICE(4))),
	CT_API("cuCtxCreate_v4", 0, OUT(0),
	    CT_ARGS(NEW("pctx"), HPTR("ctxCreateParams", 1), FLAGS("flags", 2), DEVICE(3))),
	CT_API("cuCtxDestroy", 0, CT_ARGS(HANDLE("ctx", 0))),
	CT_API("cuCtxDestroy_v2", 0, CT_ARGS(HANDLE("ctx", 0))),
	CT_API("cuCtxSetCurrent", 0, CT_ARGS(HANDLE("ctx", 0))),
	CT_API("cuCtxSynchronize", CT_API_SYNC, NO_ARGS),
	CT_API("cuCtxSynchronize_v2", CT_API_SYNC, CT_ARGS(HANDLE("ctx", 0))),

	/* memory */
	MEM_ALLOC("cuMemAlloc", 4),
	MEM_ALLOC("cuMemAlloc_v2", 8),
	MEM_FREE("cuMemFree", 4),
	MEM_FREE("cuMemFree_v2", 8),
	MEM_ALLOC_HOST("cuMemAllocHost", 4),
	MEM_ALLOC_HOST("cuMemAllocHost_v2", 8),
	CT_API("cuMemFreeHost", CT_API_FREE | CT_API_HOST_MEM,
	    CT_ARGS(CT_ARG("p", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	CT_API("cuMemAllocManaged", CT_API_ALLOC | CT_API_MANAGED_MEM, OUT(0),
	    CT_ARGS(CT_ARG("dptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		 BYTES("bytesize", 1, 8), FLAGS("flags", 2))),
	MEM_ALLOC_ASYNC("cuMemAllocAsync"),
	MEM_ALLOC_ASYNC("cuMemAllocAsync_ptsz"),
	MEM_FREE_ASYNC("cuMemFreeAsync"),
	MEM_FREE_ASYNC("cuMemFreeAsync_ptsz"),

	/* copies */
	MEMCPY("cuMemcpy"),
	MEMCPY("cuMemcpy_ptds"),
	MEMCPY_ASYNC("cuMemcpyAsync"),
	MEMCPY_ASYNC("cuMemcpyAsync_ptsz"),
	MEMCPY_HTOD("cuMemcpyHtoD", 4),
	MEMCPY_HTOD("cuMemcpyHtoD_v2", 8),
	MEMCPY_HTOD("cuMemcpyHtoD_v2_ptds", 8),
	MEMCPY_DTOH("cuMemcpyDtoH", 4),
	MEMCPY_DTOH("cuMemcpyDtoH_v2", 8),
	MEMCPY_DTOH("cuMemcpyDtoH_v2_ptds", 8),
	MEMCPY_DTOD("cuMemcpyDtoD", 4),
	MEMCPY_DTOD("cuMemcpyDtoD_v2", 8),
	MEMCPY_DTOD("cuMemcpyDtoD_v2_ptds", 8),
	MEMCPY_HTOD_ASYNC("cuMemcpyHtoDAsync", 4),
	MEMCPY_HTOD_ASYNC("cuMemcpyHtoDAsync_v2", 8),
	MEMCPY_HTOD_ASYNC("cuMemcpyHtoDAsync_v2_ptsz", 8),
	MEMCPY_DTOH_ASYNC("cuMemcpyDtoHAsync", 4),
	MEMCPY_DTOH_ASYNC("cuMemcpyDtoHAsync_v2", 8),
	MEMCPY_DTOH_ASYNC("cuMemcpyDtoHAsync_v2_ptsz", 8),
	MEMCPY_DTOD_ASYNC("cuMemcpyDtoDAsync", 4),
	MEMCPY_DTOD_ASYNC("cuMemcpyDtoDAsync_v2", 8),
	MEMCPY_DTOD_ASYNC("cuMemcpyDtoDAsync_v2_ptsz", 8),
	MEMCPY_2D("cuMemcpy2D"),
	MEMCPY_2D("cuMemcpy2D_v2"),
	MEMCPY_2D("cuMemcpy2D_v2_ptds"),
	MEMCPY_2D_ASYNC("cuMemcpy2DAsync"),
	MEMCPY_2D_ASYNC("cuMemcpy2DAsync_v2"),
	MEMCPY_2D_ASYNC("cuMemcpy2DAsync_v2_ptsz"),

	/* sets */
	MEMSET_D8("cuMemsetD8", 4),
	MEMSET_D8("cuMemsetD8_v2", 8),
	MEMSET_D8("cuMemsetD8_v2_ptds", 8),
	MEMSET_D32("cuMemsetD32", 4),
	MEMSET_D32("cuMemsetD32_v2", 8),
	MEMSET_D32("cuMemsetD32_v2_ptds", 8),
	MEMSET_D8_ASYNC("cuMemsetD8Async"),
	MEMSET_D8_ASYNC("cuMemsetD8Async_ptsz"),
	MEMSET_D32_ASYNC("cuMemsetD32Async"),
	MEMSET_D32_ASYNC("cuMemsetD32Async_ptsz"),

	/* modules, libraries and the names of their kernels */
	/* A module is named by its file; cuModuleGetFunction shows it. */
	CT_API("cuModuleLoad", 0, CT_STR(1), OUT(0),
		CT_ARGS(CT_ARG("module", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_HANDLE_NEW),
		     CT_ARG("fname", CT_ARG_STRING, CT_IN_STR, 0, CT_ROLE_NONE))),
	CT_API("cuModuleLoadData", 0, OUT(0), CT_ARGS(NEW("module"), HPTR("image", 1))),
	/* The kernel's name is read here and remembered by the handle written to *hfunc. */
	CT_API("cuModuleGetFunction", 0, CT_STR(2), OUT(0),
		CT_ARGS(CT_ARG("hfunc", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_HANDLE_NEW),
		     CT_ARG("hmod", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_HANDLE_NAMED),
		     CT_ARG("name", CT_ARG_STRING, CT_IN_STR, 0, CT_ROLE_NONE))),
	/* cuLibraryLoadData(library, code, jitOptions, jitOptionsValues,
	 * numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions) */
	CT_API("cuLibraryLoadData", 0, OUT(0),
	    CT_ARGS(NEW("library"), HPTR("code", 1), UINT("numJitOptions", 4),
		 UINT("numLibraryOptions", 7))),
	CT_API("cuLibraryGetKernel", 0, CT_STR(2), OUT(0),
		CT_ARGS(CT_ARG("pKernel", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_HANDLE_NEW),
		     HANDLE("library", 1),
		     CT_ARG("name", CT_ARG_STRING, CT_IN_STR, 0, CT_ROLE_NONE))),
	/* No string: the new CUfunction takes the name of the CUkernel it came from. */
	CT_API("cuKernelGetFunction", 0, OUT(0),
	    CT_ARGS(CT_ARG("pFunc", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_HANDLE_NEW),
		 CT_ARG("kernel", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_HANDLE_NAMED))),

	/* launches */
	LAUNCH_KERNEL("cuLaunchKernel"),
	LAUNCH_KERNEL("cuLaunchKernel_ptsz"),
	LAUNCH_KERNEL_EX("cuLaunchKernelEx"),
	LAUNCH_KERNEL_EX("cuLaunchKernelEx_ptsz"),
	LAUNCH_COOPERATIVE("cuLaunchCooperativeKernel"),
	LAUNCH_COOPERATIVE("cuLaunchCooperativeKernel_ptsz"),
	/* One call for the whole graph: its kernels are not seen one by one. */
	CT_API("cuGraphLaunch", CT_API_LAUNCH, CT_ARGS(HANDLE("hGraphExec", 0), STREAM(1))),
	CT_API("cuGraphLaunch_ptsz", CT_API_LAUNCH, CT_ARGS(HANDLE("hGraphExec", 0), STREAM(1))),

	/* streams and events */
	CT_API("cuStreamCreate", 0, OUT(0), CT_ARGS(NEW("phStream"), FLAGS("Flags", 1))),
	CT_API("cuStreamDestroy", 0, CT_ARGS(STREAM(0))),
	CT_API("cuStreamDestroy_v2", 0, CT_ARGS(STREAM(0))),
	CT_API("cuStreamSynchronize", CT_API_SYNC, CT_ARGS(STREAM(0))),
	CT_API("cuStreamSynchronize_ptsz", CT_API_SYNC, CT_ARGS(STREAM(0))),
	CT_API("cuEventRecord", 0, CT_ARGS(HANDLE("hEvent", 0), STREAM(1))),
	CT_API("cuEventRecord_ptsz", 0, CT_ARGS(HANDLE("hEvent", 0), STREAM(1))),
	CT_API("cuEventSynchronize", CT_API_SYNC, CT_ARGS(HANDLE("hEvent", 0))),
};

static const struct ct_plugin cuda_plugin = {
	CT_PLUGIN_HEAD,
	.name = "cuda",
	.version = "1",
	.description = "CUDA driver API (libcuda)",
	CT_LIBRARIES("libcuda.so"),
	CT_APIS(cuda_apis),
	.errors = &cu_result,
	.success_name = "CUDA_SUCCESS",
};

CT_PLUGIN_DEFINE(cuda_plugin)
