// SPDX-License-Identifier: MIT
/*
 * A stand-in libcuda.so.1 whose cuGetProcAddress answers as the real
 * driver's does (CUDA 13): by name, version and flags. "cuGetProcAddress"
 * below 12000 is the 4-argument one, from 12000 the _v2 (5th argument a
 * CUdriverProcAddressQueryResult *, may be NULL); "cuMemAlloc" from 3020 is
 * cuMemAlloc_v2 (the 3.x one has 32-bit pointers and sizes); with
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM "cuLaunchKernel" is
 * cuLaunchKernel_ptsz; "cuFlushGPUDirectRDMAWrites" is a function of no
 * exported name; an unknown name fails with CUDA_ERROR_NOT_FOUND. cuInit
 * says there is no device, as the CPU machine's driver would, so that the
 * real libcudart stops after its first driver calls. Linked -Bsymbolic, as
 * the real one: the pointers it hands out are its own functions, never
 * what the names resolve to in the process (a preloaded stub).
 */
#include <stdint.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define PER_THREAD 2 /* CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM */

EXPORT int cuInit(unsigned flags)
{
	return flags ? 1 : 100; /* CUDA_ERROR_NO_DEVICE */
}

EXPORT int cuDriverGetVersion(int *v)
{
	*v = 13000;
	return 0;
}

EXPORT int cuDeviceGet(int *dev, int ordinal)
{
	*dev = ordinal + 40;
	return 0;
}

EXPORT int cuCtxSetCurrent(void *ctx)
{
	return ctx ? 0 : 201; /* CUDA_ERROR_INVALID_CONTEXT */
}

EXPORT int cuMemAlloc(uint32_t *dptr, uint32_t bytes)
{
	*dptr = 0x1000 + bytes;
	return 0;
}

EXPORT int cuMemAlloc_v2(uint64_t *dptr, size_t bytes)
{
	*dptr = 0x7e0000000000ull + bytes;
	return 0;
}

#define LAUNCH_ARGS void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, \
	unsigned shared, void *stream, void **params, void **extra
EXPORT int cuLaunchKernel(LAUNCH_ARGS)
{
	return 300 + (int)bz; /* a stack argument, as the caller passed it */
}

EXPORT int cuLaunchKernel_ptsz(LAUNCH_ARGS)
{
	return 400 + (int)bz + (int)(uintptr_t)extra;
}

static int flush_rdma(int target, int scope)
{
	return target * 10 + scope;
}

EXPORT int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags, int *status);

EXPORT int cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags)
{
	return cuGetProcAddress_v2(symbol, pfn, version, flags, NULL);
}

EXPORT int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags, int *status)
{
	static const struct {
		const char *name;
		void *fn;
	} plain[] = {
		{ "cuInit", (void *)cuInit },
		{ "cuDriverGetVersion", (void *)cuDriverGetVersion },
		{ "cuDeviceGet", (void *)cuDeviceGet },
		{ "cuCtxSetCurrent", (void *)cuCtxSetCurrent },
		{ "cuFlushGPUDirectRDMAWrites", (void *)flush_rdma },
	};
	void *p = NULL;

	if (!strcmp(symbol, "cuGetProcAddress"))
		p = version >= 12000 ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;
	else if (!strcmp(symbol, "cuMemAlloc"))
		p = version >= 3020 ? (void *)cuMemAlloc_v2 : (void *)cuMemAlloc;
	else if (!strcmp(symbol, "cuLaunchKernel"))
		p = flags & PER_THREAD ? (void *)cuLaunchKernel_ptsz : (void *)cuLaunchKernel;
	for (unsigned i = 0; !p && i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!strcmp(symbol, plain[i].name))
			p = plain[i].fn;
	*pfn = p;
	if (status)
		*status = p ? 0 : 1; /* CU_GET_PROC_ADDRESS_SUCCESS, _SYMBOL_NOT_FOUND */
	return p ? 0 : 500;          /* CUDA_ERROR_NOT_FOUND */
}
