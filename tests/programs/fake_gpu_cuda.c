// SPDX-License-Identifier: MIT
/*
 * A stand-in libcuda.so.1 for the device and kernel-name tests: contexts
 * that succeed, and a cuLibraryGetKernel whose name string is written by
 * the call itself into the caller's page (library 0x5157), so that the
 * page holds nothing, and is not even mapped in, when the call begins: the
 * engine's read at entry fails and its read at return finds the name.
 */
#include <string.h>

typedef void *CUcontext;
typedef void *CUkernel;
typedef void *CUlibrary;

#define LATE_LIBRARY ((CUlibrary)0x5157)

int cuDevicePrimaryCtxRetain(CUcontext *ctx, int dev)
{
	*ctx = (CUcontext)(0xc0000 + (unsigned long)dev);
	return 0;
}

int cuCtxSetCurrent(CUcontext ctx)
{
	return 0;
}

int cuCtxPushCurrent_v2(CUcontext ctx)
{
	return 0;
}

int cuCtxPopCurrent_v2(CUcontext *ctx)
{
	*ctx = (CUcontext)0xbad;
	return 0;
}

int cuLibraryGetKernel(CUkernel *k, CUlibrary lib, const char *name)
{
	if (lib == LATE_LIBRARY)
		strcpy((char *)name, "_Z9late_namev");
	*k = (CUkernel)(0x4b000 + (unsigned long)lib);
	return 0;
}

/* A grid of no blocks is refused, as the real driver refuses it. */
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
		   unsigned shared, void *stream, void **params, void **extra)
{
	return gx && gy && gz ? 0 : 1; /* CUDA_ERROR_INVALID_VALUE */
}
