// SPDX-License-Identifier: MIT
/*
 * The CUDA driver API plugin (libcuda.so.1): one row per signature.
 *
 * cuda.h renames most calls with macros (cuMemAlloc -> cuMemAlloc_v2, with
 * -default-stream per-thread cuMemcpyHtoD -> cuMemcpyHtoD_v2_ptds and
 * cuLaunchKernel -> cuLaunchKernel_ptsz), so the table traces every symbol
 * libcuda exports under each name, and the event shows the symbol that was
 * really called. Names that share a layout are one row with CT_VARIANTS.
 * The unsuffixed names of renamed calls are the CUDA 3.x ABI, kept for old
 * binaries and for code that dlsym()s plain names: there device pointers and
 * sizes are 32 bits wide, so they are rows of their own.
 *
 * Slots follow the x86-64 SysV ABI: registers rdi, rsi, rdx, rcx, r8, r9 are
 * slots 0-5, stack words slots 6-11; an `unsigned int` argument fills only
 * the low half of its slot, so it is read with size 4. Every signature was
 * checked against cuda.h of CUDA 13.0 (the legacy ones against its
 * __CUDA_API_VERSION_INTERNAL section), every symbol against `nm -D` of
 * libcuda.
 */
#include <cudatracer/plugin.h>
#include "cuda_apis.h" /* generated: every other API (apis.ini) */

extern const struct ct_enum cu_result; /* generated from cuda.h: enum cudaError_enum */
extern const struct ct_enum cu_array_formats; /* generated from cuda.h: enum CUarray_format_enum */

/*
 * Bytes of one channel of an array element, by CUarray_format (the header
 * says them only in comments). The packed, video and block-compressed
 * formats are left out: an array of one counts 0 bytes, not a guess.
 */
static const struct ct_elem_size channel_bytes_v[] = {
	{ 0x01, 1 }, { 0x02, 2 }, { 0x03, 4 }, /* CU_AD_FORMAT_UNSIGNED_INT8, 16, 32 */
	{ 0x08, 1 }, { 0x09, 2 }, { 0x0a, 4 }, /* CU_AD_FORMAT_SIGNED_INT8, 16, 32 */
	{ 0x10, 2 }, { 0x20, 4 },              /* CU_AD_FORMAT_HALF, FLOAT */
};
static const struct ct_elem_sizes channel_bytes = {
	channel_bytes_v, sizeof(channel_bytes_v) / sizeof(channel_bytes_v[0])
};

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
#define DIM(n, s, r) CT_ARG(n, CT_ARG_UINT, CT_SLOT(s), 4, r)
#define FLAGS(n, s) CT_ARG(n, CT_ARG_HEX, CT_SLOT(s), 4, CT_ROLE_NONE)
#define DEVICE(s) CT_ARG("dev", CT_ARG_INT, CT_SLOT(s), 4, CT_ROLE_DEVICE)
#define STRING(n) CT_ARG(n, CT_ARG_STRING, CT_IN_STR, 0, CT_ROLE_NONE)
/* The handle a create call wrote through its first argument. */
#define NEW(n) CT_ARG(n, CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_NONE)
/* ... a handle that the call names (from its string or the handle it came from). */
#define NEW_NAMED(n) CT_ARG(n, CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_HANDLE_NEW)
/* Contexts, for the device of every call: one the call created or retained
 * (its device is the call's DEVICE argument), one it uses or makes current. */
#define NEW_CTX CT_ARG("pctx", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_CONTEXT_NEW)
#define CTX(s) CT_ARG("ctx", CT_ARG_HANDLE, CT_SLOT(s), 8, CT_ROLE_CONTEXT)
#define OUT_CTX CT_ARG("pctx", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_CONTEXT)

/* Argument lists that several calls of a family share, by pointer width. */
/* cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) */
#define ALLOC_ARGS(w) CT_ARG("dptr", CT_ARG_PTR, CT_MEMW(0), w, CT_ROLE_ALLOC_PTR), BYTES("bytesize", 1, w)
#define ALLOC_HOST_ARGS(w) CT_ARG("pp", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR), BYTES("bytesize", 1, w)
#define FREE_ARG(w) CT_ARG("dptr", CT_ARG_PTR, CT_SLOT(0), w, CT_ROLE_FREE_PTR)
/* A size that is not a row's bytes; 64-bit flags; flags in copied memory. */
#define FLAGS_AT(n, at) CT_ARG(n, CT_ARG_HEX, CT_IN_MEM(at), 4, CT_ROLE_NONE)
#define SIZE_ARG(n, s) CT_ARG(n, CT_ARG_SIZE, CT_SLOT(s), 8, CT_ROLE_NONE)
#define FLAGS64(n, s) CT_ARG(n, CT_ARG_HEX, CT_SLOT(s), 8, CT_ROLE_NONE)
/* cuMemAllocPitch(dptr, size_t *pPitch, WidthInBytes, Height, ElementSizeBytes):
 * the pitch, read after the call into memory word 1, times Height rows. */
#define PITCH_READS CT_READS(CT_OUT_WORD(0, 0), CT_OUT_WORD(1, 1))
#define PITCH_ARGS(w) CT_ARG("dptr", CT_ARG_PTR, CT_MEMW(0), w, CT_ROLE_ALLOC_PTR), \
	CT_ARG("pPitch", CT_ARG_SIZE, CT_MEMW(1), w, CT_ROLE_BYTES), \
	CT_ARG("WidthInBytes", CT_ARG_SIZE, CT_SLOT(2), w, CT_ROLE_NONE), \
	CT_ARG("Height", CT_ARG_SIZE, CT_SLOT(3), w, CT_ROLE_HEIGHT), UINT("ElementSizeBytes", 4)
/* cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags): the program's
 * own memory, pinned; the pointer is an in-parameter. */
#define REGISTER_ARGS CT_ARG("p", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_ALLOC_PTR), BYTES("bytesize", 1, 8), \
	FLAGS("Flags", 2)
/*
 * Arrays: cuArrayCreate(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *),
 * cuArray3DCreate(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *). The
 * handle is read after the call into memory word 0, the descriptor at entry
 * from word 1 on: Width, Height (and Depth), each `w` bytes (8, or 4 in the
 * CUDA 3.x ABI), then Format and NumChannels. Width elements (times Height,
 * times Depth; 0 is 1) of NumChannels channels of the format's size.
 */
#define ARRAY_HANDLE CT_ARG("pHandle", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR)
#define ARRAY_READS(words) CT_READS(CT_OUT_WORD(0, 0), CT_IN_WORDS(1, words, 1))
#define ARRAY_FORMAT(at) \
	CT_ARG_ELEM_TYPE("Format", CT_IN_MEM(at), 4, &cu_array_formats, &channel_bytes), \
	CT_ARG("NumChannels", CT_ARG_UINT, CT_IN_MEM((at) + 4), 4, CT_ROLE_CHANNELS)
#define ARRAY_ARGS(w) ARRAY_HANDLE, \
	CT_ARG("Width", CT_ARG_SIZE, CT_IN_MEM(8), w, CT_ROLE_ELEMENTS), \
	CT_ARG("Height", CT_ARG_SIZE, CT_IN_MEM(8 + (w)), w, CT_ROLE_HEIGHT), ARRAY_FORMAT(8 + 2 * (w))
#define ARRAY3D_ARGS(w) ARRAY_HANDLE, \
	CT_ARG("Width", CT_ARG_SIZE, CT_IN_MEM(8), w, CT_ROLE_ELEMENTS), \
	CT_ARG("Height", CT_ARG_SIZE, CT_IN_MEM(8 + (w)), w, CT_ROLE_HEIGHT), \
	CT_ARG("Depth", CT_ARG_SIZE, CT_IN_MEM(8 + 2 * (w)), w, CT_ROLE_DEPTH), ARRAY_FORMAT(8 + 3 * (w)), \
	FLAGS_AT("Flags", 16 + 3 * (w))
/*
 * Copies. The direction is in the symbol's name (HtoD, DtoH, DtoD) or,
 * for cuMemcpy, in the unified address space, not in an argument.
 */
#define HTOD_ARGS(w) DPTR("dstDevice", 0, w), HPTR("srcHost", 1), BYTES("ByteCount", 2, w)
#define DTOH_ARGS(w) HPTR("dstHost", 0), DPTR("srcDevice", 1, w), BYTES("ByteCount", 2, w)
#define DTOD_ARGS(w) DPTR("dstDevice", 0, w), DPTR("srcDevice", 1, w), BYTES("ByteCount", 2, w)
/* cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N): N bytes. */
#define D8_ARGS(w) DPTR("dstDevice", 0, w), CT_ARG("uc", CT_ARG_HEX, CT_SLOT(1), 1, CT_ROLE_NONE), \
	BYTES("N", 2, w)
/* cuMemsetD32's N counts 32-bit words, not bytes: no BYTES role. */
#define D32_ARGS(w) DPTR("dstDevice", 0, w), FLAGS("ui", 1), \
	CT_ARG("N", CT_ARG_UINT, CT_SLOT(2), w, CT_ROLE_NONE)
/*
 * cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
 * blockDimZ, sharedMemBytes, hStream, kernelParams, extra): eleven
 * arguments, blockDimZ onwards on the stack. `f` is a CUfunction, or a
 * CUkernel cast to one; either was named when it was created.
 */
#define LAUNCH_DIMS \
	CT_ARG("f", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_KERNEL), \
	DIM("gridDimX", 1, CT_ROLE_GRID), DIM("gridDimY", 2, CT_ROLE_GRID), DIM("gridDimZ", 3, CT_ROLE_GRID), \
	DIM("blockDimX", 4, CT_ROLE_BLOCK), DIM("blockDimY", 5, CT_ROLE_BLOCK), DIM("blockDimZ", 6, CT_ROLE_BLOCK), \
	UINT("sharedMemBytes", 7), STREAM(8), HPTR("kernelParams", 9)
/* A field of the CUlaunchConfig that cuLaunchKernelEx's row copies. */
#define CFG_UINT(n, byte) CT_ARG(n, CT_ARG_UINT, CT_IN_MEM(byte), 4, CT_ROLE_NONE)
#define CFG_DIM(n, byte, r) CT_ARG(n, CT_ARG_UINT, CT_IN_MEM(byte), 4, r)
/* cuGetProcAddress(symbol, pfn, cudaVersion, flags, ...) */
#define PROC_ADDRESS_ARGS STRING("symbol"), CT_ARG("pfn", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_NONE), \
	CT_ARG("cudaVersion", CT_ARG_INT, CT_SLOT(2), 4, CT_ROLE_NONE), \
	CT_ARG("flags", CT_ARG_HEX, CT_SLOT(3), 8, CT_ROLE_NONE)

static const struct ct_api cuda_apis[] = {
	/* initialisation and contexts */
	CT_API("cuInit", 0, CT_ARGS(FLAGS("Flags", 0))),
	/* Not in the brief's list, but the first calls libcudart makes into the
	 * driver: they show where the runtime's own driver calls nest. */
	CT_API("cuDriverGetVersion", 0, OUT(0),
	       CT_ARGS(CT_ARG("driverVersion", CT_ARG_INT, CT_MEMW(0), 4, CT_ROLE_NONE))),
	/* How libcudart, PyTorch and Triton find driver functions; hundreds at start-up. */
	CT_API("cuGetProcAddress", CT_API_HOT, CT_STR(0), OUT(1), CT_ARGS(PROC_ADDRESS_ARGS),
	       CT_VARIANTS("_v2")),
	/* cuCtxCreate: the CUDA 3.x and 3.2 forms share one signature. A new
	 * context is pushed on the calling thread's stack: current. */
	CT_API("cuCtxCreate", CT_API_PUSH_CONTEXT, OUT(0), CT_ARGS(NEW_CTX, FLAGS("flags", 1), DEVICE(2)),
	       CT_VARIANTS("_v2")),
	CT_API("cuCtxCreate_v3", CT_API_PUSH_CONTEXT, OUT(0),
	       CT_ARGS(NEW_CTX, HPTR("paramsArray", 1),
		       CT_ARG("numParams", CT_ARG_INT, CT_SLOT(2), 4, CT_ROLE_NONE),
		       FLAGS("flags", 3), DEVICE(4))),
	CT_API("cuCtxCreate_v4", CT_API_PUSH_CONTEXT, OUT(0),
	       CT_ARGS(NEW_CTX, HPTR("ctxCreateParams", 1), FLAGS("flags", 2), DEVICE(3))),
	CT_API("cuCtxDestroy", 0, CT_ARGS(HANDLE("ctx", 0)), CT_VARIANTS("_v2")),
	CT_API("cuCtxSetCurrent", CT_API_SET_CONTEXT, CT_ARGS(CTX(0))),
	CT_API("cuCtxPushCurrent", CT_API_PUSH_CONTEXT, CT_ARGS(CTX(0)), CT_VARIANTS("_v2")),
	CT_API("cuCtxPopCurrent", CT_API_POP_CONTEXT, OUT(0), CT_ARGS(OUT_CTX), CT_VARIANTS("_v2")),
	/* It tells: the thread's current context, and the device of its current context. */
	CT_API("cuCtxGetCurrent", CT_API_HOT | CT_API_SET_CONTEXT, OUT(0), CT_ARGS(OUT_CTX)),
	CT_API("cuCtxGetDevice", CT_API_HOT | CT_API_SET_DEVICE, OUT(0),
	       CT_ARGS(CT_ARG("device", CT_ARG_INT, CT_MEMW(0), 4, CT_ROLE_DEVICE))),
	/* The device of a context the call names, current or not. */
	CT_API("cuCtxGetDevice_v2", CT_API_HOT, OUT(0),
	       CT_ARGS(CT_ARG("device", CT_ARG_INT, CT_MEMW(0), 4, CT_ROLE_DEVICE),
		       CT_ARG("ctx", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_CONTEXT_NEW))),
	/* How the runtime gets each device's context: named by its device, not made current. */
	CT_API("cuDevicePrimaryCtxRetain", 0, OUT(0), CT_ARGS(NEW_CTX, DEVICE(1))),
	CT_API("cuCtxSynchronize", CT_API_SYNC),
	CT_API("cuCtxSynchronize_v2", CT_API_SYNC, CT_ARGS(HANDLE("ctx", 0))),

	/* memory */
	CT_API("cuMemAlloc", CT_API_DEV_ALLOC, OUT(0), CT_ARGS(ALLOC_ARGS(4))),
	CT_API("cuMemAlloc_v2", CT_API_DEV_ALLOC, OUT(0), CT_ARGS(ALLOC_ARGS(8))),
	CT_API("cuMemFree", CT_API_DEV_FREE, CT_ARGS(FREE_ARG(4))),
	CT_API("cuMemFree_v2", CT_API_DEV_FREE, CT_ARGS(FREE_ARG(8))),
	CT_API("cuMemAllocHost", CT_API_ALLOC | CT_API_HOST_MEM, OUT(0), CT_ARGS(ALLOC_HOST_ARGS(4))),
	CT_API("cuMemAllocHost_v2", CT_API_ALLOC | CT_API_HOST_MEM, OUT(0), CT_ARGS(ALLOC_HOST_ARGS(8))),
	CT_API("cuMemFreeHost", CT_API_FREE | CT_API_HOST_MEM,
	       CT_ARGS(CT_ARG("p", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	CT_API("cuMemAllocManaged", CT_API_ALLOC | CT_API_MANAGED_MEM, OUT(0),
	       CT_ARGS(ALLOC_ARGS(8), FLAGS("flags", 2))),
	/* cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) */
	CT_API("cuMemAllocAsync", CT_API_DEV_ALLOC, OUT(0), CT_ARGS(ALLOC_ARGS(8), STREAM(2)),
	       CT_VARIANTS("_ptsz")),
	CT_API("cuMemFreeAsync", CT_API_DEV_FREE, CT_ARGS(FREE_ARG(8), STREAM(1)), CT_VARIANTS("_ptsz")),
	CT_API("cuMemAllocFromPoolAsync", CT_API_DEV_ALLOC, OUT(0),
	       CT_ARGS(ALLOC_ARGS(8), HANDLE("pool", 2), STREAM(3)), CT_VARIANTS("_ptsz")),
	CT_API("cuMemAllocPitch", CT_API_DEV_ALLOC, PITCH_READS, CT_ARGS(PITCH_ARGS(4))),
	CT_API("cuMemAllocPitch_v2", CT_API_DEV_ALLOC, PITCH_READS, CT_ARGS(PITCH_ARGS(8))),
	CT_API("cuMemHostAlloc", CT_API_ALLOC | CT_API_HOST_MEM, OUT(0),
	       CT_ARGS(ALLOC_HOST_ARGS(8), FLAGS("Flags", 2))),
	/* The same signature in both forms (the _v2 takes more flags). */
	CT_API("cuMemHostRegister", CT_API_ALLOC | CT_API_HOST_MEM, CT_ARGS(REGISTER_ARGS), CT_VARIANTS("_v2")),
	CT_API("cuMemHostUnregister", CT_API_FREE | CT_API_HOST_MEM,
	       CT_ARGS(CT_ARG("p", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	/* CUDA_ARRAY_DESCRIPTOR: 24 bytes, 16 in the CUDA 3.x ABI; the 3D one 40, or 24. */
	CT_API("cuArrayCreate", CT_API_DEV_ALLOC, ARRAY_READS(2), CT_ARGS(ARRAY_ARGS(4))),
	CT_API("cuArrayCreate_v2", CT_API_DEV_ALLOC, ARRAY_READS(3), CT_ARGS(ARRAY_ARGS(8))),
	CT_API("cuArray3DCreate", CT_API_DEV_ALLOC, ARRAY_READS(3), CT_ARGS(ARRAY3D_ARGS(4))),
	CT_API("cuArray3DCreate_v2", CT_API_DEV_ALLOC, ARRAY_READS(5), CT_ARGS(ARRAY3D_ARGS(8))),
	CT_API("cuArrayDestroy", CT_API_DEV_FREE,
	       CT_ARGS(CT_ARG("hArray", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	/* Every level, each dimension halved from the last (docs/plugins.md). */
	CT_API("cuMipmappedArrayCreate", CT_API_DEV_ALLOC, ARRAY_READS(5),
	       CT_ARGS(ARRAY3D_ARGS(8), CT_ARG("numMipmapLevels", CT_ARG_UINT, CT_SLOT(2), 4, CT_ROLE_LEVELS))),
	CT_API("cuMipmappedArrayDestroy", CT_API_DEV_FREE,
	       CT_ARGS(CT_ARG("hMipmappedArray", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	/*
	 * Virtual memory management, as PyTorch's expandable segments use it:
	 * cuMemCreate makes physical memory, a handle, which holds the bytes
	 * until cuMemRelease; address ranges are reserved, mapped onto it and
	 * unmapped, and those calls hold nothing of their own (a mapping is the
	 * handle's memory seen at an address: counting it would count it twice).
	 */
	CT_API("cuMemCreate", CT_API_DEV_ALLOC, OUT(0),
	       CT_ARGS(CT_ARG("handle", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR), BYTES("size", 1, 8),
		       HPTR("prop", 2), FLAGS64("flags", 3))),
	CT_API("cuMemRelease", CT_API_DEV_FREE,
	       CT_ARGS(CT_ARG("handle", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	/* cuMemAddressReserve(CUdeviceptr *ptr, size, alignment, CUdeviceptr addr, flags) */
	CT_API("cuMemAddressReserve", 0, OUT(0),
	       CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_NONE), SIZE_ARG("size", 1),
		       SIZE_ARG("alignment", 2), DPTR("addr", 3, 8), FLAGS64("flags", 4))),
	CT_API("cuMemAddressFree", 0, CT_ARGS(DPTR("ptr", 0, 8), SIZE_ARG("size", 1))),
	/* cuMemMap(CUdeviceptr ptr, size, offset, handle, flags) */
	CT_API("cuMemMap", 0,
	       CT_ARGS(DPTR("ptr", 0, 8), SIZE_ARG("size", 1), SIZE_ARG("offset", 2), HANDLE("handle", 3),
		       FLAGS64("flags", 4))),
	CT_API("cuMemUnmap", 0, CT_ARGS(DPTR("ptr", 0, 8), SIZE_ARG("size", 1))),

	/* copies */
	CT_API("cuMemcpy", CT_API_COPY,
	       CT_ARGS(DPTR("dst", 0, 8), DPTR("src", 1, 8), BYTES("ByteCount", 2, 8)),
	       CT_VARIANTS("_ptds")),
	CT_API("cuMemcpyAsync", CT_API_COPY,
	       CT_ARGS(DPTR("dst", 0, 8), DPTR("src", 1, 8), BYTES("ByteCount", 2, 8), STREAM(3)),
	       CT_VARIANTS("_ptsz")),
	CT_API("cuMemcpyHtoD", CT_API_COPY, CT_ARGS(HTOD_ARGS(4))),
	CT_API("cuMemcpyHtoD_v2", CT_API_COPY, CT_ARGS(HTOD_ARGS(8)), CT_VARIANTS("_ptds")),
	CT_API("cuMemcpyDtoH", CT_API_COPY, CT_ARGS(DTOH_ARGS(4))),
	CT_API("cuMemcpyDtoH_v2", CT_API_COPY, CT_ARGS(DTOH_ARGS(8)), CT_VARIANTS("_ptds")),
	CT_API("cuMemcpyDtoD", CT_API_COPY, CT_ARGS(DTOD_ARGS(4))),
	CT_API("cuMemcpyDtoD_v2", CT_API_COPY, CT_ARGS(DTOD_ARGS(8)), CT_VARIANTS("_ptds")),
	CT_API("cuMemcpyHtoDAsync", CT_API_COPY, CT_ARGS(HTOD_ARGS(4), STREAM(3))),
	CT_API("cuMemcpyHtoDAsync_v2", CT_API_COPY, CT_ARGS(HTOD_ARGS(8), STREAM(3)), CT_VARIANTS("_ptsz")),
	CT_API("cuMemcpyDtoHAsync", CT_API_COPY, CT_ARGS(DTOH_ARGS(4), STREAM(3))),
	CT_API("cuMemcpyDtoHAsync_v2", CT_API_COPY, CT_ARGS(DTOH_ARGS(8), STREAM(3)), CT_VARIANTS("_ptsz")),
	CT_API("cuMemcpyDtoDAsync", CT_API_COPY, CT_ARGS(DTOD_ARGS(4), STREAM(3))),
	CT_API("cuMemcpyDtoDAsync_v2", CT_API_COPY, CT_ARGS(DTOD_ARGS(8), STREAM(3)), CT_VARIANTS("_ptsz")),
	/*
	 * The 2D copy's sizes (WidthInBytes, Height) sit at bytes 112 and 120 of
	 * CUDA_MEMCPY2D, past what a read can reach (it copies from the start of
	 * the struct, 64 bytes at most), so only the descriptor's address shows:
	 * the same in every form.
	 */
	CT_API("cuMemcpy2D", CT_API_COPY, CT_ARGS(HPTR("pCopy", 0)), CT_VARIANTS("_v2", "_v2_ptds")),
	CT_API("cuMemcpy2DAsync", CT_API_COPY, CT_ARGS(HPTR("pCopy", 0), STREAM(1)),
	       CT_VARIANTS("_v2", "_v2_ptsz")),

	/* sets */
	CT_API("cuMemsetD8", CT_API_SET, CT_ARGS(D8_ARGS(4))),
	CT_API("cuMemsetD8_v2", CT_API_SET, CT_ARGS(D8_ARGS(8)), CT_VARIANTS("_ptds")),
	CT_API("cuMemsetD32", CT_API_SET, CT_ARGS(D32_ARGS(4))),
	CT_API("cuMemsetD32_v2", CT_API_SET, CT_ARGS(D32_ARGS(8)), CT_VARIANTS("_ptds")),
	CT_API("cuMemsetD8Async", CT_API_SET, CT_ARGS(D8_ARGS(8), STREAM(3)), CT_VARIANTS("_ptsz")),
	CT_API("cuMemsetD32Async", CT_API_SET, CT_ARGS(D32_ARGS(8), STREAM(3)), CT_VARIANTS("_ptsz")),

	/* modules, libraries and the names of their kernels */
	/* A module is named by its file; cuModuleGetFunction shows it. */
	CT_API("cuModuleLoad", 0, CT_STR(1), OUT(0), CT_ARGS(NEW_NAMED("module"), STRING("fname"))),
	CT_API("cuModuleLoadData", 0, OUT(0), CT_ARGS(NEW("module"), HPTR("image", 1))),
	/* The kernel's name is read here and remembered by the handle written to *hfunc. */
	CT_API("cuModuleGetFunction", 0, CT_STR(2), OUT(0),
	       CT_ARGS(NEW_NAMED("hfunc"),
		       CT_ARG("hmod", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_HANDLE_NAMED),
		       STRING("name"))),
	/* cuLibraryLoadData(library, code, jitOptions, jitOptionsValues,
	 * numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions) */
	CT_API("cuLibraryLoadData", 0, OUT(0),
	       CT_ARGS(NEW("library"), HPTR("code", 1), UINT("numJitOptions", 4),
		       UINT("numLibraryOptions", 7))),
	CT_API("cuLibraryGetKernel", 0, CT_STR(2), OUT(0),
	       CT_ARGS(NEW_NAMED("pKernel"), HANDLE("library", 1), STRING("name"))),
	/* No string: the new CUfunction takes the name of the CUkernel it came from. */
	CT_API("cuKernelGetFunction", 0, OUT(0),
	       CT_ARGS(NEW_NAMED("pFunc"),
		       CT_ARG("kernel", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_HANDLE_NAMED))),

	/* launches */
	CT_API("cuLaunchKernel", CT_API_LAUNCH, CT_ARGS(LAUNCH_DIMS, HPTR("extra", 10)),
	       CT_VARIANTS("_ptsz")),
	/*
	 * cuLaunchKernelEx(const CUlaunchConfig *config, f, kernelParams, extra):
	 * the configuration is copied at entry. CUlaunchConfig is seven unsigned
	 * ints (grid, block, sharedMemBytes), padding, hStream at byte 32, attrs at
	 * 40, numAttrs at 48: 56 bytes, seven words.
	 */
	CT_API("cuLaunchKernelEx", CT_API_LAUNCH, CT_READS(CT_IN_WORDS(0, 7, 0)),
	       CT_ARGS(CT_ARG("f", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_KERNEL),
		       CFG_DIM("gridDimX", 0, CT_ROLE_GRID), CFG_DIM("gridDimY", 4, CT_ROLE_GRID),
		       CFG_DIM("gridDimZ", 8, CT_ROLE_GRID), CFG_DIM("blockDimX", 12, CT_ROLE_BLOCK),
		       CFG_DIM("blockDimY", 16, CT_ROLE_BLOCK), CFG_DIM("blockDimZ", 20, CT_ROLE_BLOCK),
		       CFG_UINT("sharedMemBytes", 24),
		       CT_ARG("hStream", CT_ARG_HANDLE, CT_IN_MEM(32), 8, CT_ROLE_STREAM),
		       CFG_UINT("numAttrs", 48),
		       HPTR("kernelParams", 2), HPTR("extra", 3)),
	       CT_VARIANTS("_ptsz")),
	CT_API("cuLaunchCooperativeKernel", CT_API_LAUNCH, CT_ARGS(LAUNCH_DIMS), CT_VARIANTS("_ptsz")),
	/* One call for the whole graph: its kernels are not seen one by one. */
	CT_API("cuGraphLaunch", CT_API_LAUNCH, CT_ARGS(HANDLE("hGraphExec", 0), STREAM(1)),
	       CT_VARIANTS("_ptsz")),

	/* streams and events */
	CT_API("cuStreamCreate", 0, OUT(0), CT_ARGS(NEW("phStream"), FLAGS("Flags", 1))),
	CT_API("cuStreamDestroy", 0, CT_ARGS(STREAM(0)), CT_VARIANTS("_v2")),
	CT_API("cuStreamSynchronize", CT_API_SYNC, CT_ARGS(STREAM(0)), CT_VARIANTS("_ptsz")),
	/* Recorded at entry by default (tracer.timed times them again): they only
	 * put a marker, a dependency or a host function on a stream; the return
	 * carries the submit time and, past a bad handle, an earlier asynchronous
	 * error that the next timed call returns too. No out-parameters. */
	CT_API("cuEventRecord", CT_API_ENTRY_ONLY, CT_ARGS(HANDLE("hEvent", 0), STREAM(1)), CT_VARIANTS("_ptsz")),
	CT_API("cuEventRecordWithFlags", CT_API_ENTRY_ONLY,
	       CT_ARGS(HANDLE("hEvent", 0), STREAM(1), FLAGS("flags", 2)), CT_VARIANTS("_ptsz")),
	CT_API("cuStreamWaitEvent", CT_API_ENTRY_ONLY,
	       CT_ARGS(STREAM(0), HANDLE("hEvent", 1), FLAGS("Flags", 2)), CT_VARIANTS("_ptsz")),
	/* cuLaunchHostFunc(hStream, fn, userData) */
	CT_API("cuLaunchHostFunc", CT_API_ENTRY_ONLY, CT_ARGS(STREAM(0), HPTR("fn", 1), HPTR("userData", 2)),
	       CT_VARIANTS("_ptsz")),
	CT_API("cuEventSynchronize", CT_API_SYNC, CT_ARGS(HANDLE("hEvent", 0))),
};

static const struct ct_plugin cuda_plugin = {
	CT_PLUGIN_HEAD,
	.name = "cuda",
	.version = CT_PLUGIN_VERSION,
	.description = "CUDA driver API (libcuda)",
	CT_LIBRARIES("libcuda.so"),
	CT_APIS(cuda_apis),
	CT_GEN_APIS(cuda_gen_apis),
	.errors = &cu_result,
	.success_name = "CUDA_SUCCESS",
};

CT_PLUGIN_DEFINE(cuda_plugin)
