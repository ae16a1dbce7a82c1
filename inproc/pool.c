// SPDX-License-Identifier: MIT
/*
 * Trampolines for function pointers: cuGetProcAddress hands out driver
 * functions, dlsym(handle, name) a runtime's, not symbols to interpose
 * (ours are already what a name resolves to), so a pointer whose symbol is traced
 * (named by dladdr, as the eBPF engine names the address it probes) is
 * given one of tramp.S's pool stubs, bound to it, in its place. The same
 * pointer gets the same stub every time.
 */
#include <dlfcn.h>
#include <stddef.h>
#include "inproc.h"

static unsigned n_pool;

/* The stub bound to `real`, among the first n; NULL if none. */
static void *bound(uint64_t real, unsigned n)
{
	for (unsigned i = 0; i < n && i < CT_POOL; i++)
		if (__atomic_load_n(&ct_pool_slots[i].real, __ATOMIC_ACQUIRE) == real)
			return ct_pool_stubs + i * CT_POOL_STUB;
	return NULL;
}

void *ct_inproc_bind(void *real)
{
	static int lock;
	unsigned n = __atomic_load_n(&n_pool, __ATOMIC_ACQUIRE), i;
	void *stub;
	Dl_info info;
	int k;

	if (!real || !ct_g.head || ct_inproc_is_own(real) || !dladdr(real, &info) || info.dli_saddr != real ||
	    !info.dli_sname)
		return real;
	k = ct_spec_find(info.dli_sname);
	if (k < 0)
		return real;
	if ((stub = bound((uint64_t)real, n)))
		return stub;
	/* A new one: under a spin lock (getprocs at start-up, from several
	 * threads at once), so that a pointer is bound once and the pool is
	 * not spent on copies. A slot is published (real last) before its stub
	 * is handed out. */
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		;
	i = __atomic_load_n(&n_pool, __ATOMIC_RELAXED);
	if (!(stub = bound((uint64_t)real, i)) && i < CT_POOL) {
		ct_pool_slots[i].name = info.dli_sname;
		ct_pool_slots[i].call1 = (uint32_t)k + 1;
		__atomic_store_n(&ct_pool_slots[i].real, (uint64_t)real, __ATOMIC_RELEASE);
		__atomic_store_n(&n_pool, i + 1, __ATOMIC_RELEASE);
		__atomic_fetch_add(&ct_g.head->stat[CT_SHM_BOUND], 1, __ATOMIC_RELAXED);
		stub = ct_pool_stubs + i * CT_POOL_STUB;
	}
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	if (!stub) {
		/* The pool is spent: the function itself, working, untraced, counted. */
		__atomic_fetch_add(&ct_g.head->stat[CT_SHM_POOL_FULL], 1, __ATOMIC_RELAXED);
		return real;
	}
	return stub;
}
