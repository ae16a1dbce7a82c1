// SPDX-License-Identifier: MIT
/*
 * Calls every driver API the cuda plugin traces, once each, in a fixed order
 * and with distinctive argument values, so that a test can check each
 * event's decoded fields. Built against the toolkit's stub libcuda, where
 * every call returns CUDA_ERROR_STUB_LIBRARY (34) without touching its
 * arguments: out-parameters keep the values set here, and the tracer reads
 * them back at exit.
 *
 *   driver_calls api     the calls as cuda.h names them (_v2; _ptds and _ptsz
 *                        when built with -DCUDA_API_PER_THREAD_DEFAULT_STREAM)
 *   driver_calls legacy  the unsuffixed CUDA 3.x symbols, found with dlsym
 *   driver_calls wide    32-bit arguments passed with garbage in the upper
 *                        half of their register or stack word
 *
 * Exits 0 when every call returned what the stub returns, 1 otherwise.
 */
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define EXPECT CUDA_ERROR_STUB_LIBRARY
#define H(v) ((void *)(uintptr_t)(v)) /* a made-up handle or pointer */

static int failures;

static void check(const char *what, CUresult r)
{
	if (r != EXPECT) {
		fprintf(stderr, "driver_calls: %s returned %d, expected %d\n", what, (int)r, EXPECT);
		failures++;
	}
}

#define CALL(expr) check(#expr, expr)

static void api_calls(void)
{
	CUcontext ctx = H(0xc0c0);
	CUdeviceptr dptr = 0xd0d0d000;
	void *host = H(0x4000);
	CUstream stream = H(0x5555);
	CUmodule mod = H(0x3d3d);
	CUfunction func = H(0xf00d);
	CUlibrary lib = H(0x1b1b);
	CUkernel kern = H(0x4e4e);
	CUevent event = H(0xe7e7);
	int version = -7;
	void *fnptr = H(0xf7f7);
	CUdriverProcAddressQueryResult status;
	char buf[64] = "host buffer";
	CUDA_MEMCPY2D copy2d;
	CUlaunchConfig cfg;
	CUctxCreateParams cparams;
	void *params[1] = { &dptr };

	memset(&copy2d, 0, sizeof(copy2d));
	copy2d.WidthInBytes = 256;
	copy2d.Height = 4;
	memset(&cparams, 0, sizeof(cparams));

	CALL(cuInit(0));
	CALL(cuDriverGetVersion(&version));
	CALL(cuGetProcAddress("cuMemAlloc", &fnptr, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
	CALL(cuCtxCreate(&ctx, &cparams, 0x4, 3));
	CALL(cuCtxSetCurrent(ctx));
	CALL(cuCtxSynchronize());
	CALL(cuMemAlloc(&dptr, 4096));
	CALL(cuMemAllocHost(&host, 8192));
	CALL(cuMemAllocManaged(&dptr, 12288, CU_MEM_ATTACH_GLOBAL));
	CALL(cuMemAllocAsync(&dptr, 16384, stream));
	CALL(cuMemcpy(0xd1000, 0xd2000, 100));
	CALL(cuMemcpyAsync(0xd1000, 0xd2000, 101, stream));
	CALL(cuMemcpyHtoD(0xd1000, buf, 102));
	CALL(cuMemcpyDtoH(buf, 0xd2000, 103));
	CALL(cuMemcpyDtoD(0xd1000, 0xd2000, 104));
	CALL(cuMemcpyHtoDAsync(0xd1000, buf, 105, stream));
	CALL(cuMemcpyDtoHAsync(buf, 0xd2000, 106, stream));
	CALL(cuMemcpyDtoDAsync(0xd1000, 0xd2000, 107, stream));
	CALL(cuMemcpy2D(&copy2d));
	CALL(cuMemcpy2DAsync(&copy2d, stream));
	CALL(cuMemsetD8(0xd3000, 0xab, 200));
	CALL(cuMemsetD32(0xd3000, 0xcafef00d, 201));
	CALL(cuMemsetD8Async(0xd3000, 0xcd, 202, stream));
	CALL(cuMemsetD32Async(0xd3000, 0x12345678, 203, stream));
	CALL(cuModuleLoad(&mod, "/nonexistent/kernels.cubin"));
	CALL(cuModuleLoadData(&mod, buf));
	CALL(cuModuleGetFunction(&func, mod, "_Z6kernelPf"));
	CALL(cuLibraryLoadData(&lib, buf, NULL, NULL, 0, NULL, NULL, 0));
	CALL(cuLibraryGetKernel(&kern, lib, "saxpy"));
	CALL(cuKernelGetFunction(&func, kern));
	CALL(cuLaunchKernel(func, 1, 2, 3, 4, 5, 6, 128, stream, params, NULL));
	cfg = (CUlaunchConfig){ .gridDimX = 7, .gridDimY = 8, .gridDimZ = 9,
				.blockDimX = 10, .blockDimY = 11, .blockDimZ = 12,
				.sharedMemBytes = 256, .hStream = H(0x6666),
				.attrs = NULL, .numAttrs = 0 };
	CALL(cuLaunchKernelEx(&cfg, func, params, NULL));
	CALL(cuLaunchCooperativeKernel(func, 13, 14, 15, 16, 17, 18, 512, stream, params));
	CALL(cuGraphLaunch(H(0x9a9a), stream));
	CALL(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
	CALL(cuEventRecord(event, stream));
	CALL(cuEventRecordWithFlags(event, stream, 0x1));
	CALL(cuStreamWaitEvent(stream, event, 0x0));
	CALL(cuLaunchHostFunc(stream, (CUhostFn)H(0x4f4f), H(0x4e4e)));
	CALL(cuEventSynchronize(event));
	CALL(cuStreamSynchronize(stream));
	CALL(cuStreamDestroy(stream));
	CALL(cuMemFreeAsync(0xd0d0d000, stream));
	CALL(cuMemFreeHost(H(0x4000)));
	CALL(cuMemFree(0xd0d0d000));
	CALL(cuCtxDestroy(ctx));

	/* The stub wrote nothing: the tracer must read back these values. */
	if (dptr != 0xd0d0d000 || func != H(0xf00d) || kern != H(0x4e4e) || version != -7) {
		fprintf(stderr, "driver_calls: the stub wrote an out-parameter\n");
		failures++;
	}
}

/* The CUDA 3.x ABI: 32-bit device pointers and sizes. */
typedef unsigned int dptr32;
struct memcpy2d_v1; /* only its address is passed */

#define LEGACY(name, args, call)                                               \
	do {                                                                   \
		CUresult(*fn) args;                                            \
		*(void **)&fn = dlsym(RTLD_DEFAULT, name);                     \
		if (!fn) {                                                     \
			fprintf(stderr, "driver_calls: no symbol %s\n", name); \
			failures++;                                            \
		} else {                                                       \
			check(name, fn call);                                  \
		}                                                              \
	} while (0)

static void legacy_calls(void)
{
	CUcontext ctx = H(0xc1c1);
	dptr32 d32 = 0xd32000;
	void *host = H(0x4100);
	char buf[16];
	CUstream stream = H(0x5656);
	void *fn2d = H(0x2d2d);

	LEGACY("cuCtxCreate", (CUcontext *, unsigned int, int), (&ctx, 0x1, 2));
	LEGACY("cuCtxCreate_v2", (CUcontext *, unsigned int, int), (&ctx, 0x2, 1));
	LEGACY("cuCtxCreate_v3", (CUcontext *, void *, int, unsigned int, int),
	       (&ctx, H(0xa0a0), 2, 0x3, 1));
	LEGACY("cuCtxSynchronize_v2", (CUcontext), (ctx));
	LEGACY("cuMemAlloc", (dptr32 *, unsigned int), (&d32, 1000));
	LEGACY("cuMemAllocHost", (void **, unsigned int), (&host, 1001));
	LEGACY("cuMemcpyHtoD", (dptr32, const void *, unsigned int), (0xd32100, buf, 1002));
	LEGACY("cuMemcpyDtoH", (void *, dptr32, unsigned int), (buf, 0xd32200, 1003));
	LEGACY("cuMemcpyDtoD", (dptr32, dptr32, unsigned int), (0xd32100, 0xd32200, 1004));
	LEGACY("cuMemcpyHtoDAsync", (dptr32, const void *, unsigned int, CUstream),
	       (0xd32100, buf, 1005, stream));
	LEGACY("cuMemcpyDtoHAsync", (void *, dptr32, unsigned int, CUstream),
	       (buf, 0xd32200, 1006, stream));
	LEGACY("cuMemcpyDtoDAsync", (dptr32, dptr32, unsigned int, CUstream),
	       (0xd32100, 0xd32200, 1007, stream));
	LEGACY("cuMemcpy2D", (const struct memcpy2d_v1 *), (fn2d));
	LEGACY("cuMemcpy2DAsync", (const struct memcpy2d_v1 *, CUstream), (fn2d, stream));
	LEGACY("cuMemsetD8", (dptr32, unsigned char, unsigned int), (0xd32300, 0x5a, 1008));
	LEGACY("cuMemsetD32", (dptr32, unsigned int, unsigned int), (0xd32300, 0xa5a5a5a5, 1009));
	LEGACY("cuMemFree", (dptr32), (0xd32000));
	LEGACY("cuStreamDestroy", (CUstream), (stream));
	LEGACY("cuCtxDestroy", (CUcontext), (ctx));
	LEGACY("cuGetProcAddress", (const char *, void **, int, cuuint64_t),
	       ("cuMemAlloc", &host, 12000, 0));
}

/*
 * The ABI leaves the upper half of a register or stack word that carries a
 * 32-bit argument undefined; pass garbage there on purpose, through
 * pointers typed with 64-bit parameters, and the decoded values must not
 * change. Same callee, same registers: only the upper halves differ.
 */
#define JUNK 0xbadbad0000000000ull

static void wide_calls(void)
{
	CUresult (*launch)(CUfunction, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
			   uint64_t, uint64_t, CUstream, void **, void **);
	CUresult (*memset32)(CUdeviceptr, uint64_t, size_t);
	CUresult (*init)(uint64_t);

	*(void **)&init = dlsym(RTLD_DEFAULT, "cuInit");
	*(void **)&memset32 = dlsym(RTLD_DEFAULT, "cuMemsetD32_v2");
	*(void **)&launch = dlsym(RTLD_DEFAULT, "cuLaunchKernel");
	if (!init || !memset32 || !launch) {
		fprintf(stderr, "driver_calls: dlsym failed\n");
		failures++;
		return;
	}
	check("cuInit", init(JUNK | 0));
	check("cuMemsetD32_v2", memset32(0xd4000, JUNK | 0x11223344, 300));
	check("cuLaunchKernel", launch(H(0xf1f1), JUNK | 21, JUNK | 22, JUNK | 23, JUNK | 24,
				       JUNK | 25, JUNK | 26, JUNK | 1024, H(0x7777), NULL, NULL));
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "api";

	if (!strcmp(mode, "api"))
		api_calls();
	else if (!strcmp(mode, "legacy"))
		legacy_calls();
	else if (!strcmp(mode, "wide"))
		wide_calls();
	else {
		fprintf(stderr, "usage: driver_calls [api|legacy|wide]\n");
		return 2;
	}
	return failures ? 1 : 0;
}
