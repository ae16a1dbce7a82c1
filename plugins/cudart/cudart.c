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

extern const struct ct_enum cudart_errors;
extern const struct ct_enum cudart_memcpy_kinds;

/* Argument shorthands: name, where, and what it means. */
#define A_SIZE(n, s, role)  { n, CT_ARG_SIZE, CT_SLOT(s), 8, role, -1, NULL }
#define A_PTR(n, s, role)   { n, CT_ARG_PTR, CT_SLOT(s), 8, role, -1, NULL }
#define A_HANDLE(n, s)      { n, CT_ARG_HANDLE, CT_SLOT(s), 8, CT_ROLE_NONE, -1, NULL }
#define A_STREAM(n, s)      { n, CT_ARG_HANDLE, CT_SLOT(s), 8, CT_ROLE_STREAM, -1, NULL }
#define A_INT(n, s)         { n, CT_ARG_INT, CT_SLOT(s), 4, CT_ROLE_NONE, -1, NULL }
#define A_DEVICE(n, s)      { n, CT_ARG_INT, CT_SLOT(s), 4, CT_ROLE_DEVICE, -1, NULL }
#define A_FLAGS(n, s)       { n, CT_ARG_HEX, CT_SLOT(s), 4, CT_ROLE_NONE, -1, NULL }
#define A_KIND(n, s)        { n, CT_ARG_ENUM, CT_SLOT(s), 4, CT_ROLE_COPY_KIND, -1, &cudart_memcpy_kinds }
#define A_DIM3(n, s)        { n, CT_ARG_DIM3, CT_SLOT(s), 12, CT_ROLE_NONE, -1, NULL }
/* Values the engine copied from user memory into mem[w]. */
#define M_PTR(n, w, role)   { n, CT_ARG_PTR, CT_MEMW(w), 8, role, -1, NULL }
#define M_HANDLE(n, w)      { n, CT_ARG_HANDLE, CT_MEMW(w), 8, CT_ROLE_NONE, -1, NULL }
#define M_INT(n, w)         { n, CT_ARG_INT, CT_MEMW(w), 4, CT_ROLE_NONE, -1, NULL }
#define M_SIZE(n, w)        { n, CT_ARG_SIZE, CT_MEMW(w), 8, CT_ROLE_NONE, -1, NULL }

#define NOSTR .str_slot = CT_NO_STR

/*
 * APIs that exist in a per-thread-default-stream variant (_ptds/_ptsz, used
 * by code built with --default-stream per-thread) get a second row with the
 * same layout.
 */
#define WITH_VARIANT(sfx, sym, ...) { sym, __VA_ARGS__ }, { sym sfx, __VA_ARGS__ }

static const struct ct_api apis[] = {
	/* memory */
	{ "cudaMalloc", CT_API_DEV_ALLOC, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS(M_PTR("devPtr", 0, CT_ROLE_ALLOC_PTR), A_SIZE("size", 1, CT_ROLE_BYTES)) },
	{ "cudaFree", CT_API_DEV_FREE, NOSTR,
	  CT_ARGS(A_PTR("devPtr", 0, CT_ROLE_FREE_PTR)) },
	{ "cudaMallocHost", CT_API_ALLOC | CT_API_HOST_MEM, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS(M_PTR("ptr", 0, CT_ROLE_ALLOC_PTR), A_SIZE("size", 1, CT_ROLE_BYTES)) },
	{ "cudaFreeHost", CT_API_FREE | CT_API_HOST_MEM, NOSTR,
	  CT_ARGS(A_PTR("ptr", 0, CT_ROLE_FREE_PTR)) },
	{ "cudaHostAlloc", CT_API_ALLOC | CT_API_HOST_MEM, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS(M_PTR("pHost", 0, CT_ROLE_ALLOC_PTR), A_SIZE("size", 1, CT_ROLE_BYTES), A_FLAGS("flags", 2)) },
	{ "cudaMallocManaged", CT_API_ALLOC | CT_API_MANAGED_MEM, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS(M_PTR("devPtr", 0, CT_ROLE_ALLOC_PTR), A_SIZE("size", 1, CT_ROLE_BYTES), A_FLAGS("flags", 2)) },
	WITH_VARIANT("_ptsz", "cudaMallocAsync", CT_API_DEV_ALLOC, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS(M_PTR("devPtr", 0, CT_ROLE_ALLOC_PTR), A_SIZE("size", 1, CT_ROLE_BYTES), A_STREAM("stream", 2))),
	WITH_VARIANT("_ptsz", "cudaFreeAsync", CT_API_DEV_FREE, NOSTR,
	  CT_ARGS(A_PTR("devPtr", 0, CT_ROLE_FREE_PTR), A_STREAM("stream", 1))),
	{ "cudaMemGetInfo", 0, NOSTR, CT_READS(CT_OUT_WORD(0, 0), CT_OUT_WORD(1, 1)),
	  CT_ARGS(M_SIZE("free", 0), M_SIZE("total", 1)) },

	/* copies and sets */
	WITH_VARIANT("_ptds", "cudaMemcpy", CT_API_COPY, NOSTR,
	  CT_ARGS(A_PTR("dst", 0, CT_ROLE_NONE), A_PTR("src", 1, CT_ROLE_NONE),
		    A_SIZE("count", 2, CT_ROLE_BYTES), A_KIND("kind", 3))),
	WITH_VARIANT("_ptsz", "cudaMemcpyAsync", CT_API_COPY, NOSTR,
	  CT_ARGS(A_PTR("dst", 0, CT_ROLE_NONE), A_PTR("src", 1, CT_ROLE_NONE),
		    A_SIZE("count", 2, CT_ROLE_BYTES), A_KIND("kind", 3), A_STREAM("stream", 4))),
	WITH_VARIANT("_ptds", "cudaMemcpy2D", CT_API_COPY, NOSTR,
	  CT_ARGS(A_PTR("dst", 0, CT_ROLE_NONE), A_SIZE("dpitch", 1, CT_ROLE_NONE),
		    A_PTR("src", 2, CT_ROLE_NONE), A_SIZE("spitch", 3, CT_ROLE_NONE),
		    A_SIZE("width", 4, CT_ROLE_BYTES), A_SIZE("height", 5, CT_ROLE_HEIGHT), A_KIND("kind", 6))),
	WITH_VARIANT("_ptsz", "cudaMemcpy2DAsync", CT_API_COPY, NOSTR,
	  CT_ARGS(A_PTR("dst", 0, CT_ROLE_NONE), A_SIZE("dpitch", 1, CT_ROLE_NONE),
		    A_PTR("src", 2, CT_ROLE_NONE), A_SIZE("spitch", 3, CT_ROLE_NONE),
		    A_SIZE("width", 4, CT_ROLE_BYTES), A_SIZE("height", 5, CT_ROLE_HEIGHT), A_KIND("kind", 6),
		    A_STREAM("stream", 7))),
	WITH_VARIANT("_ptds", "cudaMemset", CT_API_SET, NOSTR,
	  CT_ARGS(A_PTR("devPtr", 0, CT_ROLE_NONE), A_INT("value", 1), A_SIZE("count", 2, CT_ROLE_BYTES))),
	WITH_VARIANT("_ptsz", "cudaMemsetAsync", CT_API_SET, NOSTR,
	  CT_ARGS(A_PTR("devPtr", 0, CT_ROLE_NONE), A_INT("value", 1), A_SIZE("count", 2, CT_ROLE_BYTES),
		    A_STREAM("stream", 3))),

	/* launches: cudaLaunchKernel(func, dim3 grid, dim3 block, args, sharedMem, stream) */
	WITH_VARIANT("_ptsz", "cudaLaunchKernel", CT_API_LAUNCH, NOSTR,
	  CT_ARGS(A_PTR("func", 0, CT_ROLE_KERNEL), A_DIM3("grid", 1), A_DIM3("block", 3),
		    A_PTR("args", 5, CT_ROLE_NONE), A_SIZE("sharedMem", 6, CT_ROLE_NONE), A_STREAM("stream", 7))),
	/* cudaLaunchKernelExC(config, func, args); config is copied at entry:
	 * dim3 gridDim @0, dim3 blockDim @12, size_t dynamicSmemBytes @24, stream @32 */
	WITH_VARIANT("_ptsz", "cudaLaunchKernelExC", CT_API_LAUNCH, NOSTR,
	  CT_READS(CT_IN_WORDS(0, 5, 0)),
	  CT_ARGS(A_PTR("func", 1, CT_ROLE_KERNEL),
		    { "grid", CT_ARG_DIM3, .area = CT_AREA_MEM, .off = 0, .size = 12, .count_from = -1 },
		    { "block", CT_ARG_DIM3, .area = CT_AREA_MEM, .off = 12, .size = 12, .count_from = -1 },
		    M_SIZE("sharedMem", 3), A_PTR("args", 2, CT_ROLE_NONE),
		    { "stream", CT_ARG_HANDLE, CT_MEMW(4), 8, CT_ROLE_STREAM, -1, NULL } )),
	/* nvcc 13's <<<>>> asks __cudaGetKernel for a kernel handle once per kernel and
	 * launches with it: the handle is named after the stub it came from. */
	{ "__cudaGetKernel", 0, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS({ "kernel", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_HANDLE_NEW, -1, NULL },
		    A_PTR("entryFuncAddr", 1, CT_ROLE_KERNEL)) },
	{ "cudaGetKernel", 0, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS({ "kernel", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_HANDLE_NEW, -1, NULL },
		    A_PTR("entryFuncAddr", 1, CT_ROLE_KERNEL)) },
	WITH_VARIANT("_ptsz", "cudaGraphLaunch", CT_API_LAUNCH, NOSTR,
	  CT_ARGS(A_HANDLE("graphExec", 0), A_STREAM("stream", 1))),

	/* streams */
	{ "cudaStreamCreate", 0, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS(M_HANDLE("pStream", 0)) },
	{ "cudaStreamCreateWithFlags", 0, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS(M_HANDLE("pStream", 0), A_FLAGS("flags", 1)) },
	{ "cudaStreamDestroy", 0, NOSTR, CT_ARGS(A_STREAM("stream", 0)) },
	WITH_VARIANT("_ptsz", "cudaStreamSynchronize", CT_API_SYNC, NOSTR,
	  CT_ARGS(A_STREAM("stream", 0))),
	WITH_VARIANT("_ptsz", "cudaStreamWaitEvent", 0, NOSTR,
	  CT_ARGS(A_STREAM("stream", 0), A_HANDLE("event", 1), A_FLAGS("flags", 2))),
	WITH_VARIANT("_ptsz", "cudaStreamQuery", CT_API_HOT, NOSTR,
	  CT_ARGS(A_STREAM("stream", 0))),
	{ "cudaDeviceSynchronize", CT_API_SYNC, NOSTR },

	/* events */
	{ "cudaEventCreate", 0, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS(M_HANDLE("event", 0)) },
	{ "cudaEventCreateWithFlags", 0, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS(M_HANDLE("event", 0), A_FLAGS("flags", 1)) },
	WITH_VARIANT("_ptsz", "cudaEventRecord", 0, NOSTR,
	  CT_ARGS(A_HANDLE("event", 0), A_STREAM("stream", 1))),
	{ "cudaEventSynchronize", CT_API_SYNC, NOSTR, CT_ARGS(A_HANDLE("event", 0)) },
	{ "cudaEventQuery", CT_API_HOT, NOSTR, CT_ARGS(A_HANDLE("event", 0)) },
	{ "cudaEventElapsedTime", 0, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS({ "ms", CT_ARG_FLOAT, CT_MEMW(0), 4, CT_ROLE_NONE, -1, NULL },
		    A_HANDLE("start", 1), A_HANDLE("end", 2)) },
	{ "cudaEventDestroy", 0, NOSTR, CT_ARGS(A_HANDLE("event", 0)) },

	/* devices */
	{ "cudaGetDevice", CT_API_HOT, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS(M_INT("device", 0)) },
	{ "cudaSetDevice", 0, NOSTR, CT_ARGS(A_DEVICE("device", 0)) },
	{ "cudaGetDeviceCount", 0, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS(M_INT("count", 0)) },
	{ "cudaDeviceGetAttribute", CT_API_HOT, NOSTR, CT_READS(CT_OUT_WORD(0, 0)),
	  CT_ARGS(M_INT("value", 0), A_INT("attr", 1), A_DEVICE("device", 2)) },
	{ "cudaGetDeviceProperties", 0, NOSTR,
	  CT_ARGS(A_PTR("prop", 0, CT_ROLE_NONE), A_DEVICE("device", 1)) },
	{ "cudaDeviceReset", 0, NOSTR },
	{ "cudaGetLastError", CT_API_HOT, NOSTR },
	{ "cudaPeekAtLastError", CT_API_HOT, NOSTR },
};

static const struct ct_plugin cudart_plugin = {
	CT_PLUGIN_HEAD,
	.name = "cudart",
	.version = "1.0",
	.description = "CUDA runtime API (libcudart)",
	CT_LIBRARIES("libcudart.so"),
	CT_APIS(apis),
	.errors = &cudart_errors,
	.success_name = "cudaSuccess",
};

CT_PLUGIN_DEFINE(cudart_plugin)
