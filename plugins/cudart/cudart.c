// SPDX-License-Identifier: MIT
/*
 * The CUDA runtime (libcudart) plugin: a table. Each row says where the
 * x86-64 SysV ABI puts each argument (registers rdi, rsi, rdx, rcx, r8, r9
 * are slots 0-5, stack words are slots 6+; a dim3 passed by value takes two
 * registers, x|y<<32 then z), what the BPF engine must copy from user memory
 * (the pointer cudaMalloc wrote back), and what each argument means to the
 * sinks. Signatures follow cuda_runtime_api.h of CUDA 13.
 */
#include <cudatracer/plugin.h>
#include "cudart_apis.h" /* generated: every other API (apis.ini) */

extern const struct ct_enum cudart_errors;
extern const struct ct_enum cudart_memcpy_kinds;

/* Argument shapes that recur: name, slot (or memory word), meaning. */
#define SIZE(n, s, role)  CT_ARG(n, CT_ARG_SIZE, CT_SLOT(s), 8, role)
#define PTR(n, s, role)   CT_ARG(n, CT_ARG_PTR, CT_SLOT(s), 8, role)
#define HANDLE(n, s)      CT_ARG(n, CT_ARG_HANDLE, CT_SLOT(s), 8, CT_ROLE_NONE)
#define STREAM(n, s)      CT_ARG(n, CT_ARG_HANDLE, CT_SLOT(s), 8, CT_ROLE_STREAM)
#define INT(n, s)         CT_ARG(n, CT_ARG_INT, CT_SLOT(s), 4, CT_ROLE_NONE)
#define DEVICE(n, s)      CT_ARG(n, CT_ARG_INT, CT_SLOT(s), 4, CT_ROLE_DEVICE)
#define FLAGS(n, s)       CT_ARG(n, CT_ARG_HEX, CT_SLOT(s), 4, CT_ROLE_NONE)
#define KIND(n, s)        CT_ARG_NAMED(n, CT_SLOT(s), 4, CT_ROLE_COPY_KIND, &cudart_memcpy_kinds)
#define DIM3(n, s, r)     CT_ARG(n, CT_ARG_DIM3, CT_SLOT(s), 12, r)
/* What an out-parameter in slot 0 pointed to, copied after the call into memory word 0. */
#define OUT0              CT_READS(CT_OUT_WORD(0, 0))
#define OUT_PTR(n, role)  CT_ARG(n, CT_ARG_PTR, CT_MEMW(0), 8, role)
#define OUT_HANDLE(n)     CT_ARG(n, CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_NONE)
#define OUT_INT(n)        CT_ARG(n, CT_ARG_INT, CT_MEMW(0), 4, CT_ROLE_NONE)
/* An array the call created, a handle written through slot 0: the allocation. */
#define OUT_ARRAY(n)      CT_ARG(n, CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR)
/* A pitch written through slot 1 (cudaMallocPitch) or in the cudaPitchedPtr
 * (cudaMalloc3D), read after the call into memory word 1: a row's bytes. */
#define OUT_PITCH         CT_ARG("pitch", CT_ARG_SIZE, CT_MEMW(1), 8, CT_ROLE_BYTES)
/* A cudaExtent by value is 24 bytes, class MEMORY: it travels on the stack,
 * slots 6-8, and the arguments after it take the registers it did not. */
#define EXTENT(role_w)    SIZE("width", 6, role_w), SIZE("height", 7, CT_ROLE_HEIGHT), \
			  SIZE("depth", 8, CT_ROLE_DEPTH)
/* The bits of each channel of the cudaChannelFormatDesc in slot 1 (x, y, z,
 * w: the first two words, copied at entry into memory words 1-2; not its
 * kind, which would be a read past the 20-byte struct): an element's size. */
#define DESC_READ         CT_IN_WORDS(1, 2, 1)
#define DESC_BITS         CT_ARG("desc_x", CT_ARG_INT, CT_IN_MEM(8), 4, CT_ROLE_ELEM_BITS), \
			  CT_ARG("desc_y", CT_ARG_INT, CT_IN_MEM(12), 4, CT_ROLE_ELEM_BITS), \
			  CT_ARG("desc_z", CT_ARG_INT, CT_IN_MEM(16), 4, CT_ROLE_ELEM_BITS), \
			  CT_ARG("desc_w", CT_ARG_INT, CT_IN_MEM(20), 4, CT_ROLE_ELEM_BITS)
/*
 * Recorded at entry by default (tracer.timed times them again): calls that
 * only put a marker or a dependency on a stream. Their return carries the
 * submit time and a result that is cudaSuccess unless a handle is bad or an
 * earlier asynchronous error is sticky, which the next timed call returns
 * too; none has an out-parameter. Launches, copies and sets stay timed: their
 * errors and durations (a pageable copy waits) are what users read.
 */
#define ASYNC_ENTRY       CT_API_ENTRY_ONLY

/*
 * APIs that exist in a per-thread-default-stream variant (_ptds/_ptsz, what
 * code built with --default-stream per-thread calls) say so with
 * CT_VARIANTS: the variant has the same layout.
 */
static const struct ct_api apis[] = {
	/* memory */
	CT_API("cudaMalloc", CT_API_DEV_ALLOC, OUT0,
	       CT_ARGS(OUT_PTR("devPtr", CT_ROLE_ALLOC_PTR), SIZE("size", 1, CT_ROLE_BYTES))),
	CT_API("cudaFree", CT_API_DEV_FREE, CT_ARGS(PTR("devPtr", 0, CT_ROLE_FREE_PTR))),
	CT_API("cudaMallocHost", CT_API_ALLOC | CT_API_HOST_MEM, OUT0,
	       CT_ARGS(OUT_PTR("ptr", CT_ROLE_ALLOC_PTR), SIZE("size", 1, CT_ROLE_BYTES))),
	CT_API("cudaFreeHost", CT_API_FREE | CT_API_HOST_MEM, CT_ARGS(PTR("ptr", 0, CT_ROLE_FREE_PTR))),
	CT_API("cudaHostAlloc", CT_API_ALLOC | CT_API_HOST_MEM, OUT0,
	       CT_ARGS(OUT_PTR("pHost", CT_ROLE_ALLOC_PTR), SIZE("size", 1, CT_ROLE_BYTES), FLAGS("flags", 2))),
	CT_API("cudaMallocManaged", CT_API_ALLOC | CT_API_MANAGED_MEM, OUT0,
	       CT_ARGS(OUT_PTR("devPtr", CT_ROLE_ALLOC_PTR), SIZE("size", 1, CT_ROLE_BYTES), FLAGS("flags", 2))),
	CT_API("cudaMallocAsync", CT_API_DEV_ALLOC, OUT0,
	       CT_ARGS(OUT_PTR("devPtr", CT_ROLE_ALLOC_PTR), SIZE("size", 1, CT_ROLE_BYTES), STREAM("stream", 2)),
	       CT_VARIANTS("_ptsz")),
	CT_API("cudaFreeAsync", CT_API_DEV_FREE,
	       CT_ARGS(PTR("devPtr", 0, CT_ROLE_FREE_PTR), STREAM("stream", 1)), CT_VARIANTS("_ptsz")),
	CT_API("cudaMallocFromPoolAsync", CT_API_DEV_ALLOC, OUT0,
	       CT_ARGS(OUT_PTR("ptr", CT_ROLE_ALLOC_PTR), SIZE("size", 1, CT_ROLE_BYTES), HANDLE("memPool", 2),
		       STREAM("stream", 3)),
	       CT_VARIANTS("_ptsz")),
	/* Pitched: pitch (written by the call) times height rows. */
	CT_API("cudaMallocPitch", CT_API_DEV_ALLOC, CT_READS(CT_OUT_WORD(0, 0), CT_OUT_WORD(1, 1)),
	       CT_ARGS(OUT_PTR("devPtr", CT_ROLE_ALLOC_PTR), OUT_PITCH, SIZE("width", 2, CT_ROLE_NONE),
		       SIZE("height", 3, CT_ROLE_HEIGHT))),
	/* cudaMalloc3D(cudaPitchedPtr *pitchedDevPtr, cudaExtent extent): ptr and
	 * pitch, the pitched pointer's first two words, read after the call;
	 * pitch times height times depth. */
	CT_API("cudaMalloc3D", CT_API_DEV_ALLOC, CT_READS(CT_OUT_WORDS(0, 2, 0)),
	       CT_ARGS(OUT_PTR("ptr", CT_ROLE_ALLOC_PTR), OUT_PITCH, EXTENT(CT_ROLE_NONE))),
	/* Arrays: width (times height, times depth; 0 is 1) elements of the
	 * channel format's bits. */
	CT_API("cudaMallocArray", CT_API_DEV_ALLOC, CT_READS(CT_OUT_WORD(0, 0), DESC_READ),
	       CT_ARGS(OUT_ARRAY("array"), DESC_BITS, SIZE("width", 2, CT_ROLE_ELEMENTS),
		       SIZE("height", 3, CT_ROLE_HEIGHT), FLAGS("flags", 4))),
	CT_API("cudaMalloc3DArray", CT_API_DEV_ALLOC, CT_READS(CT_OUT_WORD(0, 0), DESC_READ),
	       CT_ARGS(OUT_ARRAY("array"), DESC_BITS, EXTENT(CT_ROLE_ELEMENTS), FLAGS("flags", 2))),
	/* Every level, each dimension halved from the last (docs/plugins.md). */
	CT_API("cudaMallocMipmappedArray", CT_API_DEV_ALLOC, CT_READS(CT_OUT_WORD(0, 0), DESC_READ),
	       CT_ARGS(OUT_ARRAY("mipmappedArray"), DESC_BITS, EXTENT(CT_ROLE_ELEMENTS),
		       CT_ARG("numLevels", CT_ARG_UINT, CT_SLOT(2), 4, CT_ROLE_LEVELS), FLAGS("flags", 3))),
	CT_API("cudaFreeArray", CT_API_DEV_FREE,
	       CT_ARGS(CT_ARG("array", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	CT_API("cudaFreeMipmappedArray", CT_API_DEV_FREE,
	       CT_ARGS(CT_ARG("mipmappedArray", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	/* Host memory the program allocated, pinned: pinned host memory until unregistered. */
	CT_API("cudaHostRegister", CT_API_ALLOC | CT_API_HOST_MEM,
	       CT_ARGS(PTR("ptr", 0, CT_ROLE_ALLOC_PTR), SIZE("size", 1, CT_ROLE_BYTES), FLAGS("flags", 2))),
	CT_API("cudaHostUnregister", CT_API_FREE | CT_API_HOST_MEM, CT_ARGS(PTR("ptr", 0, CT_ROLE_FREE_PTR))),
	CT_API("cudaMemGetInfo", 0, CT_READS(CT_OUT_WORD(0, 0), CT_OUT_WORD(1, 1)),
	       CT_ARGS(CT_ARG("free", CT_ARG_SIZE, CT_MEMW(0), 8, CT_ROLE_NONE),
		       CT_ARG("total", CT_ARG_SIZE, CT_MEMW(1), 8, CT_ROLE_NONE))),

	/* copies and sets */
	CT_API("cudaMemcpy", CT_API_COPY,
	       CT_ARGS(PTR("dst", 0, CT_ROLE_NONE), PTR("src", 1, CT_ROLE_NONE),
		       SIZE("count", 2, CT_ROLE_BYTES), KIND("kind", 3)),
	       CT_VARIANTS("_ptds")),
	CT_API("cudaMemcpyAsync", CT_API_COPY,
	       CT_ARGS(PTR("dst", 0, CT_ROLE_NONE), PTR("src", 1, CT_ROLE_NONE),
		       SIZE("count", 2, CT_ROLE_BYTES), KIND("kind", 3), STREAM("stream", 4)),
	       CT_VARIANTS("_ptsz")),
	CT_API("cudaMemcpy2D", CT_API_COPY,
	       CT_ARGS(PTR("dst", 0, CT_ROLE_NONE), SIZE("dpitch", 1, CT_ROLE_NONE),
		       PTR("src", 2, CT_ROLE_NONE), SIZE("spitch", 3, CT_ROLE_NONE),
		       SIZE("width", 4, CT_ROLE_BYTES), SIZE("height", 5, CT_ROLE_HEIGHT), KIND("kind", 6)),
	       CT_VARIANTS("_ptds")),
	CT_API("cudaMemcpy2DAsync", CT_API_COPY,
	       CT_ARGS(PTR("dst", 0, CT_ROLE_NONE), SIZE("dpitch", 1, CT_ROLE_NONE),
		       PTR("src", 2, CT_ROLE_NONE), SIZE("spitch", 3, CT_ROLE_NONE),
		       SIZE("width", 4, CT_ROLE_BYTES), SIZE("height", 5, CT_ROLE_HEIGHT), KIND("kind", 6),
		       STREAM("stream", 7)),
	       CT_VARIANTS("_ptsz")),
	CT_API("cudaMemset", CT_API_SET,
	       CT_ARGS(PTR("devPtr", 0, CT_ROLE_NONE), INT("value", 1), SIZE("count", 2, CT_ROLE_BYTES)),
	       CT_VARIANTS("_ptds")),
	CT_API("cudaMemsetAsync", CT_API_SET,
	       CT_ARGS(PTR("devPtr", 0, CT_ROLE_NONE), INT("value", 1), SIZE("count", 2, CT_ROLE_BYTES),
		       STREAM("stream", 3)),
	       CT_VARIANTS("_ptsz")),
	/* Between two devices: no kind, the direction is device to device. */
	CT_API("cudaMemcpyPeer", CT_API_COPY,
	       CT_ARGS(PTR("dst", 0, CT_ROLE_NONE), INT("dstDevice", 1), PTR("src", 2, CT_ROLE_NONE),
		       INT("srcDevice", 3), SIZE("count", 4, CT_ROLE_BYTES))),
	CT_API("cudaMemcpyPeerAsync", CT_API_COPY,
	       CT_ARGS(PTR("dst", 0, CT_ROLE_NONE), INT("dstDevice", 1), PTR("src", 2, CT_ROLE_NONE),
		       INT("srcDevice", 3), SIZE("count", 4, CT_ROLE_BYTES), STREAM("stream", 5))),
	/* To and from a __device__ variable, named by its host shadow. */
	CT_API("cudaMemcpyToSymbol", CT_API_COPY,
	       CT_ARGS(PTR("symbol", 0, CT_ROLE_NONE), PTR("src", 1, CT_ROLE_NONE), SIZE("count", 2, CT_ROLE_BYTES),
		       SIZE("offset", 3, CT_ROLE_NONE), KIND("kind", 4)),
	       CT_VARIANTS("_ptds")),
	CT_API("cudaMemcpyToSymbolAsync", CT_API_COPY,
	       CT_ARGS(PTR("symbol", 0, CT_ROLE_NONE), PTR("src", 1, CT_ROLE_NONE), SIZE("count", 2, CT_ROLE_BYTES),
		       SIZE("offset", 3, CT_ROLE_NONE), KIND("kind", 4), STREAM("stream", 5)),
	       CT_VARIANTS("_ptsz")),
	CT_API("cudaMemcpyFromSymbol", CT_API_COPY,
	       CT_ARGS(PTR("dst", 0, CT_ROLE_NONE), PTR("symbol", 1, CT_ROLE_NONE), SIZE("count", 2, CT_ROLE_BYTES),
		       SIZE("offset", 3, CT_ROLE_NONE), KIND("kind", 4)),
	       CT_VARIANTS("_ptds")),
	CT_API("cudaMemcpyFromSymbolAsync", CT_API_COPY,
	       CT_ARGS(PTR("dst", 0, CT_ROLE_NONE), PTR("symbol", 1, CT_ROLE_NONE), SIZE("count", 2, CT_ROLE_BYTES),
		       SIZE("offset", 3, CT_ROLE_NONE), KIND("kind", 4), STREAM("stream", 5)),
	       CT_VARIANTS("_ptsz")),
	CT_API("cudaMemset2D", CT_API_SET,
	       CT_ARGS(PTR("devPtr", 0, CT_ROLE_NONE), SIZE("pitch", 1, CT_ROLE_NONE), INT("value", 2),
		       SIZE("width", 3, CT_ROLE_BYTES), SIZE("height", 4, CT_ROLE_HEIGHT)),
	       CT_VARIANTS("_ptds")),
	CT_API("cudaMemset2DAsync", CT_API_SET,
	       CT_ARGS(PTR("devPtr", 0, CT_ROLE_NONE), SIZE("pitch", 1, CT_ROLE_NONE), INT("value", 2),
		       SIZE("width", 3, CT_ROLE_BYTES), SIZE("height", 4, CT_ROLE_HEIGHT), STREAM("stream", 5)),
	       CT_VARIANTS("_ptsz")),

	/* launches: cudaLaunchKernel(func, dim3 grid, dim3 block, args, sharedMem, stream) */
	CT_API("cudaLaunchKernel", CT_API_LAUNCH,
	       CT_ARGS(PTR("func", 0, CT_ROLE_KERNEL), DIM3("grid", 1, CT_ROLE_GRID), DIM3("block", 3, CT_ROLE_BLOCK),
		       PTR("args", 5, CT_ROLE_NONE), SIZE("sharedMem", 6, CT_ROLE_NONE), STREAM("stream", 7)),
	       CT_VARIANTS("_ptsz")),
	CT_API("cudaLaunchCooperativeKernel", CT_API_LAUNCH,
	       CT_ARGS(PTR("func", 0, CT_ROLE_KERNEL), DIM3("grid", 1, CT_ROLE_GRID), DIM3("block", 3, CT_ROLE_BLOCK),
		       PTR("args", 5, CT_ROLE_NONE), SIZE("sharedMem", 6, CT_ROLE_NONE), STREAM("stream", 7)),
	       CT_VARIANTS("_ptsz")),
	/* cudaLaunchKernelExC(config, func, args); config is copied at entry:
	 * dim3 gridDim @0, dim3 blockDim @12, size_t dynamicSmemBytes @24, stream @32 */
	CT_API("cudaLaunchKernelExC", CT_API_LAUNCH, CT_READS(CT_IN_WORDS(0, 5, 0)),
	       CT_ARGS(PTR("func", 1, CT_ROLE_KERNEL),
		       CT_ARG("grid", CT_ARG_DIM3, CT_IN_MEM(0), 12, CT_ROLE_GRID),
		       CT_ARG("block", CT_ARG_DIM3, CT_IN_MEM(12), 12, CT_ROLE_BLOCK),
		       CT_ARG("sharedMem", CT_ARG_SIZE, CT_MEMW(3), 8, CT_ROLE_NONE),
		       PTR("args", 2, CT_ROLE_NONE),
		       CT_ARG("stream", CT_ARG_HANDLE, CT_MEMW(4), 8, CT_ROLE_STREAM)),
	       CT_VARIANTS("_ptsz")),
	/* nvcc 13's <<<>>> asks __cudaGetKernel for a kernel handle once per kernel and
	 * launches with it: the handle is named after the stub it came from. */
	CT_API("__cudaGetKernel", 0, OUT0,
	       CT_ARGS(CT_ARG("kernel", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_HANDLE_NEW),
		       PTR("entryFuncAddr", 1, CT_ROLE_KERNEL))),
	CT_API("cudaGetKernel", 0, OUT0,
	       CT_ARGS(CT_ARG("kernel", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_HANDLE_NEW),
		       PTR("entryFuncAddr", 1, CT_ROLE_KERNEL))),
	CT_API("cudaGraphLaunch", CT_API_LAUNCH,
	       CT_ARGS(HANDLE("graphExec", 0), STREAM("stream", 1)), CT_VARIANTS("_ptsz")),

	/* streams */
	CT_API("cudaStreamCreate", 0, OUT0, CT_ARGS(OUT_HANDLE("pStream"))),
	CT_API("cudaStreamCreateWithFlags", 0, OUT0, CT_ARGS(OUT_HANDLE("pStream"), FLAGS("flags", 1))),
	CT_API("cudaStreamDestroy", 0, CT_ARGS(STREAM("stream", 0))),
	CT_API("cudaStreamSynchronize", CT_API_SYNC, CT_ARGS(STREAM("stream", 0)), CT_VARIANTS("_ptsz")),
	CT_API("cudaStreamWaitEvent", ASYNC_ENTRY,
	       CT_ARGS(STREAM("stream", 0), HANDLE("event", 1), FLAGS("flags", 2)), CT_VARIANTS("_ptsz")),
	/* cudaLaunchHostFunc(stream, fn, userData): fn runs later, on a driver thread. */
	CT_API("cudaLaunchHostFunc", ASYNC_ENTRY,
	       CT_ARGS(STREAM("stream", 0), PTR("fn", 1, CT_ROLE_NONE), PTR("userData", 2, CT_ROLE_NONE)),
	       CT_VARIANTS("_ptsz")),
	CT_API("cudaStreamQuery", CT_API_HOT, CT_ARGS(STREAM("stream", 0)), CT_VARIANTS("_ptsz")),
	CT_API("cudaDeviceSynchronize", CT_API_SYNC),

	/* events */
	CT_API("cudaEventCreate", 0, OUT0, CT_ARGS(OUT_HANDLE("event"))),
	CT_API("cudaEventCreateWithFlags", 0, OUT0, CT_ARGS(OUT_HANDLE("event"), FLAGS("flags", 1))),
	CT_API("cudaEventRecord", ASYNC_ENTRY, CT_ARGS(HANDLE("event", 0), STREAM("stream", 1)), CT_VARIANTS("_ptsz")),
	CT_API("cudaEventRecordWithFlags", ASYNC_ENTRY,
	       CT_ARGS(HANDLE("event", 0), STREAM("stream", 1), FLAGS("flags", 2)), CT_VARIANTS("_ptsz")),
	CT_API("cudaEventSynchronize", CT_API_SYNC, CT_ARGS(HANDLE("event", 0))),
	CT_API("cudaEventQuery", CT_API_HOT, CT_ARGS(HANDLE("event", 0))),
	CT_API("cudaEventElapsedTime", 0, OUT0,
	       CT_ARGS(CT_ARG("ms", CT_ARG_FLOAT, CT_MEMW(0), 4, CT_ROLE_NONE),
		       HANDLE("start", 1), HANDLE("end", 2))),
	CT_API("cudaEventDestroy", 0, CT_ARGS(HANDLE("event", 0))),

	/* devices */
	/* The thread's current device: set, or told (docs/plugins.md, CT_API_SET_DEVICE). */
	CT_API("cudaGetDevice", CT_API_HOT | CT_API_SET_DEVICE, OUT0,
	       CT_ARGS(CT_ARG("device", CT_ARG_INT, CT_MEMW(0), 4, CT_ROLE_DEVICE))),
	CT_API("cudaSetDevice", CT_API_SET_DEVICE, CT_ARGS(DEVICE("device", 0))),
	CT_API("cudaGetDeviceCount", 0, OUT0, CT_ARGS(OUT_INT("count"))),
	CT_API("cudaDeviceGetAttribute", CT_API_HOT, OUT0,
	       CT_ARGS(OUT_INT("value"), INT("attr", 1), DEVICE("device", 2))),
	CT_API("cudaGetDeviceProperties", 0, CT_ARGS(PTR("prop", 0, CT_ROLE_NONE), DEVICE("device", 1))),
	CT_API("cudaDeviceReset", 0),
	CT_API("cudaGetLastError", CT_API_HOT),
	CT_API("cudaPeekAtLastError", CT_API_HOT),
};

static const struct ct_plugin cudart_plugin = {
	CT_PLUGIN_HEAD,
	.name = "cudart",
	.version = CT_PLUGIN_VERSION,
	.description = "CUDA runtime API (libcudart)",
	CT_LIBRARIES("libcudart.so"),
	CT_APIS(apis),
	CT_GEN_APIS(cudart_gen_apis),
	.errors = &cudart_errors,
	.success_name = "cudaSuccess",
};

CT_PLUGIN_DEFINE(cudart_plugin)
