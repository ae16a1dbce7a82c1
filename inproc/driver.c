// SPDX-License-Identifier: MIT
/*
 * The driver's entry points (the cuda plugin's stub library): libcudart
 * gets every driver function from cuGetProcAddress, which it finds with
 * dlsym in libcuda.so.1, and cudaGetDriverEntryPoint answers through it.
 * dlsym (tramp.S) hands out these wrappers for cuGetProcAddress and
 * cuGetProcAddress_v2; a program linked with libcuda calls them by name.
 * Each returns what the driver returned, with a traced function's pointer
 * replaced by its trampoline (pool.c).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include "inproc.h"

typedef int (*getproc1_fn)(const char *, void **, int, uint64_t);
typedef int (*getproc2_fn)(const char *, void **, int, uint64_t, void *);

static struct ct_slot real1 = { .name = "cuGetProcAddress" }, real2 = { .name = "cuGetProcAddress_v2" };

static void *real_of(struct ct_slot *s)
{
	uint64_t p = __atomic_load_n(&s->real, __ATOMIC_ACQUIRE);

	return (void *)(p ? p : ct_inproc_resolve(s));
}

CT_EXPORT int cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags)
{
	getproc1_fn f = (getproc1_fn)real_of(&real1);
	int err;

	if (!f)
		return 999; /* CUDA_ERROR_UNKNOWN: no driver defines it */
	err = f(symbol, pfn, version, flags);
	if (!err && pfn)
		*pfn = ct_inproc_bind(*pfn);
	return err;
}

CT_EXPORT int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags, void *status)
{
	getproc2_fn f = (getproc2_fn)real_of(&real2);
	int err;

	if (!f)
		return 999;
	err = f(symbol, pfn, version, flags, status);
	if (!err && pfn)
		*pfn = ct_inproc_bind(*pfn);
	return err;
}

/* dlsym(h, "cuGetProcAddress*"): the driver's own, kept, and ours handed out. */
static void *getproc_dlsym(void *handle, const char *name)
{
	struct ct_slot *s = !strcmp(name, "cuGetProcAddress") ? &real1 :
			    !strcmp(name, "cuGetProcAddress_v2") ? &real2 : NULL;
	void *p = ct_inproc_real_dlsym(handle, name);

	if (!s || !p)
		return p;
	if (!ct_inproc_is_own(p))
		__atomic_store_n(&s->real, (uint64_t)p, __ATOMIC_RELEASE);
	else if (!real_of(s))
		return p;
	return s == &real1 ? (void *)cuGetProcAddress : (void *)cuGetProcAddress_v2;
}

__attribute__((constructor)) static void ct_driver_register(void)
{
	ct_inproc_set_getproc(getproc_dlsym);
}
