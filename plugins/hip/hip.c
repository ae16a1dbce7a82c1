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
#include "hip_apis.h" /* generated: every other API (apis.ini) */

extern const struct ct_enum hip_errors;       /* generated: hipError_t */
extern const struct ct_enum hip_memcpy_kinds; /* generated: hipMemcpyKind */
extern const struct ct_enum hip_array_formats; /* generated: hipArray_Format */

/*
 * Bytes of one channel of an array element, by hipArray_Format (the header
 * says them only in its names).
 */
static const struct ct_elem_size channel_bytes_v[] = {
	{ 0x01, 1 }, { 0x02, 2 }, { 0x03, 4 }, /* HIP_AD_FORMAT_UNSIGNED_INT8, 16, 32 */
	{ 0x08, 1 }, { 0x09, 2 }, { 0x0a, 4 }, /* HIP_AD_FORMAT_SIGNED_INT8, 16, 32 */
	{ 0x10, 2 }, { 0x20, 4 },              /* HIP_AD_FORMAT_HALF, FLOAT */
};
static const struct ct_elem_sizes channel_bytes = {
	channel_bytes_v, sizeof(channel_bytes_v) / sizeof(channel_bytes_v[0])
};

#define KIND(n, s) CT_ARG_NAMED(n, CT_SLOT(s), 4, CT_ROLE_COPY_KIND, &hip_memcpy_kinds)
/* The word an out-pointer argument points to, copied after the call. */
#define OUT(slot, word) CT_READS(CT_OUT_WORD(slot, word))
/* hipMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height, ...):
 * the pitch, read after the call into memory word 1, times height rows. */
#define PITCH_READS CT_READS(CT_OUT_WORD(0, 0), CT_OUT_WORD(1, 1))
#define PITCH_ARGS(p) CT_ARG(p, CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR), \
	CT_ARG("pitch", CT_ARG_SIZE, CT_MEMW(1), 8, CT_ROLE_BYTES), \
	CT_ARG("width", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_NONE), \
	CT_ARG("height", CT_ARG_SIZE, CT_SLOT(3), 8, CT_ROLE_HEIGHT)
/* The bits of each channel of the hipChannelFormatDesc in slot 1 (its first
 * two words, copied at entry into memory words 1-2): an element's size. */
#define DESC_BITS CT_ARG("desc_x", CT_ARG_INT, CT_IN_MEM(8), 4, CT_ROLE_ELEM_BITS), \
	CT_ARG("desc_y", CT_ARG_INT, CT_IN_MEM(12), 4, CT_ROLE_ELEM_BITS), \
	CT_ARG("desc_z", CT_ARG_INT, CT_IN_MEM(16), 4, CT_ROLE_ELEM_BITS), \
	CT_ARG("desc_w", CT_ARG_INT, CT_IN_MEM(20), 4, CT_ROLE_ELEM_BITS)
/* A hipExtent by value (24 bytes, class MEMORY): stack words, slots 6-8. */
#define EXTENT(role_w) CT_ARG("width", CT_ARG_SIZE, CT_SLOT(6), 8, role_w), \
	CT_ARG("height", CT_ARG_SIZE, CT_SLOT(7), 8, CT_ROLE_HEIGHT), \
	CT_ARG("depth", CT_ARG_SIZE, CT_SLOT(8), 8, CT_ROLE_DEPTH)
/* hipArrayCreate's and hipArray3DCreate's descriptor, copied at entry from
 * memory word 1 on: Width, Height (and Depth), then Format and NumChannels. */
#define ARRAY_FORMAT(at) \
	CT_ARG_ELEM_TYPE("Format", CT_IN_MEM(at), 4, &hip_array_formats, &channel_bytes), \
	CT_ARG("NumChannels", CT_ARG_UINT, CT_IN_MEM((at) + 4), 4, CT_ROLE_CHANNELS)
#define ARRAY_HANDLE(n) CT_ARG(n, CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR)
/* The pointer to host memory the call allocated, written through slot 0. */
#define HOST_PTR(n) CT_ARG(n, CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR)
#define SIZE_BYTES(n, s) CT_ARG(n, CT_ARG_SIZE, CT_SLOT(s), 8, CT_ROLE_BYTES)
#define FREE_PTR(n) CT_ARG(n, CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_FREE_PTR)


static const struct ct_api hip_apis[] = {
	/* memory */
	CT_API("hipMalloc", CT_API_DEV_ALLOC, OUT(0, 0),
	    CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		 CT_ARG("size", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES))),
	CT_API("hipFree", CT_API_DEV_FREE,
	    CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	CT_API("hipHostMalloc", CT_API_ALLOC | CT_API_HOST_MEM, OUT(0, 0),
	    CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		 CT_ARG("size", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES),
		 CT_ARG("flags", CT_ARG_HEX, CT_SLOT(2), 4, CT_ROLE_NONE))),
	CT_API("hipHostFree", CT_API_FREE | CT_API_HOST_MEM,
	    CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	CT_API("hipMallocManaged", CT_API_ALLOC | CT_API_MANAGED_MEM, OUT(0, 0),
	    CT_ARGS(CT_ARG("dev_ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		 CT_ARG("size", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES),
		 CT_ARG("flags", CT_ARG_HEX, CT_SLOT(2), 4, CT_ROLE_NONE))),
	CT_API("hipMallocAsync", CT_API_DEV_ALLOC, OUT(0, 0),
	    CT_ARGS(CT_ARG("dev_ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		 CT_ARG("size", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES),
		 CT_ARG("stream", CT_ARG_HANDLE, CT_SLOT(2), 8, CT_ROLE_STREAM))),
	CT_API("hipFreeAsync", CT_API_DEV_FREE,
	    CT_ARGS(CT_ARG("dev_ptr", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_FREE_PTR),
		 CT_ARG("stream", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_STREAM))),
	CT_API("hipMallocFromPoolAsync", CT_API_DEV_ALLOC, OUT(0, 0),
	    CT_ARGS(CT_ARG("dev_ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR), SIZE_BYTES("size", 1),
		 CT_ARG("mem_pool", CT_ARG_HANDLE, CT_SLOT(2), 8, CT_ROLE_NONE),
		 CT_ARG("stream", CT_ARG_HANDLE, CT_SLOT(3), 8, CT_ROLE_STREAM))),
	CT_API("hipExtMallocWithFlags", CT_API_DEV_ALLOC, OUT(0, 0),
	    CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR), SIZE_BYTES("sizeBytes", 1),
		 CT_ARG("flags", CT_ARG_HEX, CT_SLOT(2), 4, CT_ROLE_NONE))),
	CT_API("hipMallocPitch", CT_API_DEV_ALLOC, PITCH_READS, CT_ARGS(PITCH_ARGS("ptr"))),
	CT_API("hipMemAllocPitch", CT_API_DEV_ALLOC, PITCH_READS,
	    CT_ARGS(PITCH_ARGS("dptr"), CT_ARG("elementSizeBytes", CT_ARG_UINT, CT_SLOT(4), 4, CT_ROLE_NONE))),
	/* hipMallocArray(array, desc, width, height, flags): width (times
	 * height; 0 is 1) elements of the channel format's bits. */
	CT_API("hipMallocArray", CT_API_DEV_ALLOC, CT_READS(CT_OUT_WORD(0, 0), CT_IN_WORDS(1, 2, 1)),
	    CT_ARGS(CT_ARG("array", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR), DESC_BITS,
		 CT_ARG("width", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_ELEMENTS),
		 CT_ARG("height", CT_ARG_SIZE, CT_SLOT(3), 8, CT_ROLE_HEIGHT),
		 CT_ARG("flags", CT_ARG_HEX, CT_SLOT(4), 4, CT_ROLE_NONE))),
	CT_API("hipFreeArray", CT_API_DEV_FREE,
	    CT_ARGS(CT_ARG("array", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	/* hipMalloc3D(hipPitchedPtr *, hipExtent): the pitched pointer's ptr and
	 * pitch read after the call; pitch times height times depth. */
	CT_API("hipMalloc3D", CT_API_DEV_ALLOC, CT_READS(CT_OUT_WORDS(0, 2, 0)),
	    CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		 CT_ARG("pitch", CT_ARG_SIZE, CT_MEMW(1), 8, CT_ROLE_BYTES), EXTENT(CT_ROLE_NONE))),
	CT_API("hipMalloc3DArray", CT_API_DEV_ALLOC, CT_READS(CT_OUT_WORD(0, 0), CT_IN_WORDS(1, 2, 1)),
	    CT_ARGS(ARRAY_HANDLE("array"), DESC_BITS, EXTENT(CT_ROLE_ELEMENTS),
		 CT_ARG("flags", CT_ARG_HEX, CT_SLOT(2), 4, CT_ROLE_NONE))),
	/* Every level, each dimension halved from the last (docs/plugins.md). */
	CT_API("hipMallocMipmappedArray", CT_API_DEV_ALLOC, CT_READS(CT_OUT_WORD(0, 0), CT_IN_WORDS(1, 2, 1)),
	    CT_ARGS(ARRAY_HANDLE("mipmappedArray"), DESC_BITS, EXTENT(CT_ROLE_ELEMENTS),
		 CT_ARG("numLevels", CT_ARG_UINT, CT_SLOT(2), 4, CT_ROLE_LEVELS),
		 CT_ARG("flags", CT_ARG_HEX, CT_SLOT(3), 4, CT_ROLE_NONE))),
	CT_API("hipFreeMipmappedArray", CT_API_DEV_FREE,
	    CT_ARGS(CT_ARG("mipmappedArray", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	CT_API("hipArrayCreate", CT_API_DEV_ALLOC, CT_READS(CT_OUT_WORD(0, 0), CT_IN_WORDS(1, 3, 1)),
	    CT_ARGS(ARRAY_HANDLE("pHandle"), CT_ARG("Width", CT_ARG_SIZE, CT_IN_MEM(8), 8, CT_ROLE_ELEMENTS),
		 CT_ARG("Height", CT_ARG_SIZE, CT_IN_MEM(16), 8, CT_ROLE_HEIGHT), ARRAY_FORMAT(24))),
	CT_API("hipArray3DCreate", CT_API_DEV_ALLOC, CT_READS(CT_OUT_WORD(0, 0), CT_IN_WORDS(1, 5, 1)),
	    CT_ARGS(ARRAY_HANDLE("array"), CT_ARG("Width", CT_ARG_SIZE, CT_IN_MEM(8), 8, CT_ROLE_ELEMENTS),
		 CT_ARG("Height", CT_ARG_SIZE, CT_IN_MEM(16), 8, CT_ROLE_HEIGHT),
		 CT_ARG("Depth", CT_ARG_SIZE, CT_IN_MEM(24), 8, CT_ROLE_DEPTH), ARRAY_FORMAT(32),
		 CT_ARG("Flags", CT_ARG_HEX, CT_IN_MEM(40), 4, CT_ROLE_NONE))),
	CT_API("hipArrayDestroy", CT_API_DEV_FREE,
	    CT_ARGS(CT_ARG("array", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	/* Virtual memory management, as for the driver (cuMemCreate): physical
	 * memory by handle until hipMemRelease; reserving, mapping, unmapping
	 * hold nothing of their own (their rows are generated from the header). */
	CT_API("hipMemCreate", CT_API_DEV_ALLOC, OUT(0, 0),
	    CT_ARGS(CT_ARG("handle", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR), SIZE_BYTES("size", 1),
		 CT_ARG("prop", CT_ARG_PTR, CT_SLOT(2), 8, CT_ROLE_NONE),
		 CT_ARG("flags", CT_ARG_HEX, CT_SLOT(3), 8, CT_ROLE_NONE))),
	CT_API("hipMemRelease", CT_API_DEV_FREE,
	    CT_ARGS(CT_ARG("handle", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	/* The deprecated names of hipHostMalloc and hipHostFree. */
	CT_API("hipMallocHost", CT_API_ALLOC | CT_API_HOST_MEM, OUT(0, 0),
	    CT_ARGS(HOST_PTR("ptr"), SIZE_BYTES("size", 1))),
	CT_API("hipMemAllocHost", CT_API_ALLOC | CT_API_HOST_MEM, OUT(0, 0),
	    CT_ARGS(HOST_PTR("ptr"), SIZE_BYTES("size", 1))),
	CT_API("hipFreeHost", CT_API_FREE | CT_API_HOST_MEM, CT_ARGS(FREE_PTR("ptr"))),
	/* The program's own memory, pinned until unregistered. */
	CT_API("hipHostRegister", CT_API_ALLOC | CT_API_HOST_MEM,
	    CT_ARGS(CT_ARG("hostPtr", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_ALLOC_PTR), SIZE_BYTES("sizeBytes", 1),
		 CT_ARG("flags", CT_ARG_HEX, CT_SLOT(2), 4, CT_ROLE_NONE))),
	CT_API("hipHostUnregister", CT_API_FREE | CT_API_HOST_MEM, CT_ARGS(FREE_PTR("hostPtr"))),

	/* copies and sets */
	CT_API("hipMemcpy", CT_API_COPY,
	    CT_ARGS(CT_ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		 CT_ARG("src", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		 CT_ARG("sizeBytes", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES),
		 KIND("kind", 3))),
	CT_API("hipMemcpyAsync", CT_API_COPY,
	    CT_ARGS(CT_ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		 CT_ARG("src", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		 CT_ARG("sizeBytes", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES),
		 KIND("kind", 3),
		 CT_ARG("stream", CT_ARG_HANDLE, CT_SLOT(4), 8, CT_ROLE_STREAM))),
	/* The direction is in the name; the API row in the summary tells them apart. */
	CT_API("hipMemcpyHtoD", CT_API_COPY,
	    CT_ARGS(CT_ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		 CT_ARG("src", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		 CT_ARG("sizeBytes", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES))),
	CT_API("hipMemcpyDtoH", CT_API_COPY,
	    CT_ARGS(CT_ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		 CT_ARG("src", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		 CT_ARG("sizeBytes", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES))),
	CT_API("hipMemcpyDtoD", CT_API_COPY,
	    CT_ARGS(CT_ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		 CT_ARG("src", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		 CT_ARG("sizeBytes", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES))),
	CT_API("hipMemset", CT_API_SET,
	    CT_ARGS(CT_ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		 CT_ARG("value", CT_ARG_INT, CT_SLOT(1), 4, CT_ROLE_NONE),
		 CT_ARG("sizeBytes", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES))),
	CT_API("hipMemsetAsync", CT_API_SET,
	    CT_ARGS(CT_ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		 CT_ARG("value", CT_ARG_INT, CT_SLOT(1), 4, CT_ROLE_NONE),
		 CT_ARG("sizeBytes", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES),
		 CT_ARG("stream", CT_ARG_HANDLE, CT_SLOT(3), 8, CT_ROLE_STREAM))),

	/* launches */
	CT_API("hipLaunchKernel", CT_API_LAUNCH,
	    CT_ARGS(CT_ARG("function_address", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_KERNEL),
		 CT_ARG("numBlocks", CT_ARG_DIM3, CT_SLOT(1), 12, CT_ROLE_GRID),
		 CT_ARG("dimBlocks", CT_ARG_DIM3, CT_SLOT(3), 12, CT_ROLE_BLOCK),
		 CT_ARG("args", CT_ARG_PTR, CT_SLOT(5), 8, CT_ROLE_NONE),
		 CT_ARG("sharedMemBytes", CT_ARG_SIZE, CT_SLOT(6), 8, CT_ROLE_NONE),
		 CT_ARG("stream", CT_ARG_HANDLE, CT_SLOT(7), 8, CT_ROLE_STREAM))),
	CT_API("hipExtLaunchKernel", CT_API_LAUNCH,
	    CT_ARGS(CT_ARG("function_address", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_KERNEL),
		 CT_ARG("numBlocks", CT_ARG_DIM3, CT_SLOT(1), 12, CT_ROLE_GRID),
		 CT_ARG("dimBlocks", CT_ARG_DIM3, CT_SLOT(3), 12, CT_ROLE_BLOCK),
		 CT_ARG("args", CT_ARG_PTR, CT_SLOT(5), 8, CT_ROLE_NONE),
		 CT_ARG("sharedMemBytes", CT_ARG_SIZE, CT_SLOT(6), 8, CT_ROLE_NONE),
		 CT_ARG("stream", CT_ARG_HANDLE, CT_SLOT(7), 8, CT_ROLE_STREAM),
		 CT_ARG("startEvent", CT_ARG_HANDLE, CT_SLOT(8), 8, CT_ROLE_NONE),
		 CT_ARG("stopEvent", CT_ARG_HANDLE, CT_SLOT(9), 8, CT_ROLE_NONE),
		 CT_ARG("flags", CT_ARG_INT, CT_SLOT(10), 4, CT_ROLE_NONE))),
	/* The kernel name is read here and remembered by the handle written to *function. */
	CT_API("hipModuleGetFunction", 0, CT_STR(2), OUT(0, 0),
		CT_ARGS(CT_ARG("function", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_HANDLE_NEW),
		     CT_ARG("module", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_NONE),
		     CT_ARG("kname", CT_ARG_STRING, CT_IN_STR, 0, CT_ROLE_NONE))),
	/* Eleven arguments: gridDimX..blockDimY in registers, the rest on the stack. */
	CT_API("hipModuleLaunchKernel", CT_API_LAUNCH,
	    CT_ARGS(CT_ARG("f", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_KERNEL),
		 CT_ARG("gridDimX", CT_ARG_UINT, CT_SLOT(1), 4, CT_ROLE_GRID),
		 CT_ARG("gridDimY", CT_ARG_UINT, CT_SLOT(2), 4, CT_ROLE_GRID),
		 CT_ARG("gridDimZ", CT_ARG_UINT, CT_SLOT(3), 4, CT_ROLE_GRID),
		 CT_ARG("blockDimX", CT_ARG_UINT, CT_SLOT(4), 4, CT_ROLE_BLOCK),
		 CT_ARG("blockDimY", CT_ARG_UINT, CT_SLOT(5), 4, CT_ROLE_BLOCK),
		 CT_ARG("blockDimZ", CT_ARG_UINT, CT_SLOT(6), 4, CT_ROLE_BLOCK),
		 CT_ARG("sharedMemBytes", CT_ARG_UINT, CT_SLOT(7), 4, CT_ROLE_NONE),
		 CT_ARG("stream", CT_ARG_HANDLE, CT_SLOT(8), 8, CT_ROLE_STREAM),
		 CT_ARG("kernelParams", CT_ARG_PTR, CT_SLOT(9), 8, CT_ROLE_NONE),
		 CT_ARG("extra", CT_ARG_PTR, CT_SLOT(10), 8, CT_ROLE_NONE))),
	CT_API("hipGraphLaunch", CT_API_LAUNCH,
	    CT_ARGS(CT_ARG("graphExec", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE),
		 CT_ARG("stream", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_STREAM))),

	/* streams and events */
	CT_API("hipStreamCreate", 0, OUT(0, 0),
	    CT_ARGS(CT_ARG("stream", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_STREAM))),
	CT_API("hipStreamCreateWithFlags", 0, OUT(0, 0),
	    CT_ARGS(CT_ARG("stream", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_STREAM),
		 CT_ARG("flags", CT_ARG_HEX, CT_SLOT(1), 4, CT_ROLE_NONE))),
	CT_API("hipStreamDestroy", 0,
	    CT_ARGS(CT_ARG("stream", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_STREAM))),
	CT_API("hipStreamSynchronize", CT_API_SYNC,
	    CT_ARGS(CT_ARG("stream", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_STREAM))),
	CT_API("hipDeviceSynchronize", CT_API_SYNC),
	CT_API("hipEventCreate", 0, OUT(0, 0),
	    CT_ARGS(CT_ARG("event", CT_ARG_HANDLE, CT_MEMW(0), 8, CT_ROLE_NONE))),
	/* Recorded at entry by default (tracer.timed times them again): a marker
	 * or a dependency put on a stream; the return carries the
	 * submit time only. No out-parameters. */
	CT_API("hipEventRecord", CT_API_ENTRY_ONLY,
	    CT_ARGS(CT_ARG("event", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE),
		 CT_ARG("stream", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_STREAM))),
	CT_API("hipStreamWaitEvent", CT_API_ENTRY_ONLY,
	    CT_ARGS(CT_ARG("stream", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_STREAM),
		 CT_ARG("event", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_NONE),
		 CT_ARG("flags", CT_ARG_HEX, CT_SLOT(2), 4, CT_ROLE_NONE))),
	CT_API("hipEventSynchronize", CT_API_SYNC,
	    CT_ARGS(CT_ARG("event", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE))),
	CT_API("hipEventElapsedTime", 0, OUT(0, 0),
	    CT_ARGS(CT_ARG("ms", CT_ARG_FLOAT, CT_MEMW(0), 4, CT_ROLE_NONE),
		 CT_ARG("start", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_NONE),
		 CT_ARG("stop", CT_ARG_HANDLE, CT_SLOT(2), 8, CT_ROLE_NONE))),
	CT_API("hipEventDestroy", 0,
	    CT_ARGS(CT_ARG("event", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE))),

	/* devices */
	CT_API("hipSetDevice", CT_API_SET_DEVICE,
	    CT_ARGS(CT_ARG("deviceId", CT_ARG_INT, CT_SLOT(0), 4, CT_ROLE_DEVICE))),
	/* Frameworks ask for the current device around nearly every call. */
	CT_API("hipGetDevice", CT_API_HOT | CT_API_SET_DEVICE, OUT(0, 0),
	    CT_ARGS(CT_ARG("deviceId", CT_ARG_INT, CT_MEMW(0), 4, CT_ROLE_DEVICE))),
	CT_API("hipGetDeviceCount", 0, OUT(0, 0),
	    CT_ARGS(CT_ARG("count", CT_ARG_INT, CT_MEMW(0), 4, CT_ROLE_NONE))),
};

static const struct ct_plugin hip_plugin = {
	CT_PLUGIN_HEAD,
	.name = "hip",
	.version = CT_PLUGIN_VERSION,
	.description = "AMD HIP runtime (libamdhip64)",
	CT_LIBRARIES("libamdhip64.so"),
	CT_APIS(hip_apis),
	CT_GEN_APIS(hip_gen_apis),
	.errors = &hip_errors,
	.success_name = "hipSuccess",
};

CT_PLUGIN_DEFINE(hip_plugin)
