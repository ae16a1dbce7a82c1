// SPDX-License-Identifier: MIT
/*
 * The driver's entry points (the cuda plugin's stub library): libcudart
 * gets every driver function from cuGetProcAddress, and cudaGetDriverEntryPoint
 * answers through it. libcudart 13 finds cuGetProcAddress_v2 with dlsym in
 * libcuda.so.1, asks it for cuInit, then asks it for "cuGetProcAddress"
 * itself (at version 11030: the 4-argument one; at 12000: the _v2, whose
 * 5th argument is a CUdriverProcAddressQueryResult *, NULL from libcudart)
 * and gets everything else through what that returned. So every getproc
 * the driver hands out, by dlsym or by getproc, is replaced by a wrapper of
 * ours bound to that very pointer (a few of each arity: the driver has one
 * of each); a program linked with libcuda calls the exported ones by name.
 * Each wrapper returns what the driver returned, with a traced function's
 * pointer replaced by its trampoline (pool.c, named by dladdr of the
 * pointer returned: "cuMemAlloc" at 3020 comes back as cuMemAlloc_v2, a
 * PER_THREAD request as its _ptsz/_ptds) and every other pointer as it was.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include "inproc.h"

typedef int (*getproc1_fn)(const char *, void **, int, uint64_t);
typedef int (*getproc2_fn)(const char *, void **, int, uint64_t, void *);

/* The getprocs handed out, by arity (0: cuGetProcAddress, 1: _v2) and
 * pointer; a wrapper's real function, once set, never changes. */
#define GETPROCS 4
static uint64_t getproc_real[2][GETPROCS];
static int getproc_lock;

static struct ct_slot by_name[2] = { { .name = "cuGetProcAddress" }, { .name = "cuGetProcAddress_v2" } };

/* The driver's pointer a call goes through: its trampoline where
 * cuGetProcAddress itself is traced (--profile full), as eBPF probes it. */
static uint64_t via(uint64_t real)
{
	return (uint64_t)ct_inproc_bind((void *)real);
}

static void *wrap_getproc(void *real, int v2);

/* What the driver returned for `symbol`, as the caller is to get it. */
static void *result(const char *symbol, void *p, int version)
{
	Dl_info info;
	const char *name = NULL;

	if (!p || ct_inproc_is_own(p))
		return p;
	if (dladdr(p, &info) && info.dli_saddr == p && info.dli_sname)
		name = info.dli_sname;
	if (name && !strcmp(name, "cuGetProcAddress"))
		return wrap_getproc(p, 0);
	if (name && !strcmp(name, "cuGetProcAddress_v2"))
		return wrap_getproc(p, 1);
	/* An unexported getproc: the request says which. */
	if (!name && symbol && !strncmp(symbol, "cuGetProcAddress", 16))
		return wrap_getproc(p, !strcmp(symbol, "cuGetProcAddress_v2") || version >= 12000);
	return ct_inproc_bind(p);
}

static int getproc1(uint64_t real, const char *symbol, void **pfn, int version, uint64_t flags)
{
	int err = ((getproc1_fn)via(real))(symbol, pfn, version, flags);

	if (!err && pfn)
		*pfn = result(symbol, *pfn, version);
	return err;
}

static int getproc2(uint64_t real, const char *symbol, void **pfn, int version, uint64_t flags, void *status)
{
	int err = ((getproc2_fn)via(real))(symbol, pfn, version, flags, status);

	if (!err && pfn)
		*pfn = result(symbol, *pfn, version);
	return err;
}

#define WRAPPERS(k) \
	static int wrap1_##k(const char *s, void **pfn, int v, uint64_t fl) \
	{ \
		return getproc1(__atomic_load_n(&getproc_real[0][k], __ATOMIC_ACQUIRE), s, pfn, v, fl); \
	} \
	static int wrap2_##k(const char *s, void **pfn, int v, uint64_t fl, void *st) \
	{ \
		return getproc2(__atomic_load_n(&getproc_real[1][k], __ATOMIC_ACQUIRE), s, pfn, v, fl, st); \
	}
WRAPPERS(0)
WRAPPERS(1)
WRAPPERS(2)
WRAPPERS(3)
static void *const wrappers[2][GETPROCS] = {
	{ (void *)wrap1_0, (void *)wrap1_1, (void *)wrap1_2, (void *)wrap1_3 },
	{ (void *)wrap2_0, (void *)wrap2_1, (void *)wrap2_2, (void *)wrap2_3 },
};
_Static_assert(GETPROCS == 4, "one WRAPPERS() line per getproc");

/* Our wrapper bound to the driver's getproc `real`; the pointer itself
 * where all are taken (it works, what it hands out is not traced). Rare
 * (a few times per process): a spin lock keeps two threads from binding
 * the same pointer twice. */
static void *wrap_getproc(void *real, int v2)
{
	void *out = real;

	while (__atomic_exchange_n(&getproc_lock, 1, __ATOMIC_ACQUIRE))
		;
	for (int k = 0; k < GETPROCS; k++) {
		uint64_t p = __atomic_load_n(&getproc_real[v2][k], __ATOMIC_RELAXED);

		if (!p)
			__atomic_store_n(&getproc_real[v2][k], p = (uint64_t)real, __ATOMIC_RELEASE);
		if (p == (uint64_t)real) {
			out = wrappers[v2][k];
			break;
		}
	}
	__atomic_store_n(&getproc_lock, 0, __ATOMIC_RELEASE);
	return out;
}

static uint64_t real_of(struct ct_slot *s)
{
	uint64_t p = __atomic_load_n(&s->real, __ATOMIC_ACQUIRE);

	return p ? p : ct_inproc_resolve(s);
}

CT_EXPORT int cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags)
{
	uint64_t f = real_of(&by_name[0]);

	return f ? getproc1(f, symbol, pfn, version, flags) : 999; /* CUDA_ERROR_UNKNOWN: no driver */
}

CT_EXPORT int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags, void *status)
{
	uint64_t f = real_of(&by_name[1]);

	return f ? getproc2(f, symbol, pfn, version, flags, status) : 999;
}

/* dlsym(h, "cuGetProcAddress*"): the driver's own, wrapped. */
static void *getproc_dlsym(void *handle, const char *name)
{
	int v2 = !strcmp(name, "cuGetProcAddress_v2");
	void *p = ct_inproc_real_dlsym(handle, name);

	if ((!v2 && strcmp(name, "cuGetProcAddress")) || !p)
		return p;
	if (ct_inproc_is_own(p)) /* our exported one (RTLD_DEFAULT): it finds the driver's */
		return p;
	return wrap_getproc(p, v2);
}

__attribute__((constructor)) static void ct_driver_register(void)
{
	ct_inproc_set_getproc(getproc_dlsym);
}
