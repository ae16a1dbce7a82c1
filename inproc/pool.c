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
#include "inproc.h"

static unsigned n_pool;

void *ct_inproc_bind(void *real)
{
	unsigned n = __atomic_load_n(&n_pool, __ATOMIC_ACQUIRE), i;
	Dl_info info;
	int k;

	if (!real || !ct_g.head || ct_inproc_is_own(real) || !dladdr(real, &info) || info.dli_saddr != real ||
	    !info.dli_sname)
		return real;
	k = ct_spec_find(info.dli_sname);
	if (k < 0)
		return real;
	for (i = 0; i < n && i < CT_POOL; i++)
		if (__atomic_load_n(&ct_pool_slots[i].real, __ATOMIC_ACQUIRE) == (uint64_t)real)
			return ct_pool_stubs + i * CT_POOL_STUB;
	i = __atomic_fetch_add(&n_pool, 1, __ATOMIC_ACQ_REL);
	if (i >= CT_POOL) {
		__atomic_fetch_add(&ct_g.head->stat[CT_SHM_POOL_FULL], 1, __ATOMIC_RELAXED);
		return real;
	}
	ct_pool_slots[i].name = info.dli_sname;
	ct_pool_slots[i].call1 = (uint32_t)k + 1;
	__atomic_store_n(&ct_pool_slots[i].real, (uint64_t)real, __ATOMIC_RELEASE);
	__atomic_fetch_add(&ct_g.head->stat[CT_SHM_BOUND], 1, __ATOMIC_RELAXED);
	return ct_pool_stubs + i * CT_POOL_STUB;
}
