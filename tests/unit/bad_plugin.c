// SPDX-License-Identifier: MIT
/* Plugins the loader must refuse: built for another ABI version (BAD_ABI),
 * with a descriptor too small for this ABI (BAD_SIZE), not exporting the
 * entry symbol at all (BAD_NONE), with a broken row (BAD_ROW: an argument
 * of 3 bytes), a descriptor from a "newer" cudatracer whose unknown tail is
 * not zero (BAD_TAIL), or a row whose symbol is a wild pointer (BAD_WILD). */
#include <cudatracer/plugin.h>

#ifndef BAD_NONE
static const struct ct_api apis[] = {
	CT_API("badMalloc", CT_API_DEV_ALLOC, CT_READS(CT_OUT_WORD(0, 0)),
	       CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		       CT_ARG("size", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES))),
#ifdef BAD_ROW
	CT_API("badFree", CT_API_DEV_FREE, CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_SLOT(0), 3, CT_ROLE_FREE_PTR))),
#elif defined(BAD_WILD)
	CT_API((const char *)16, CT_API_DEV_FREE),
#endif
};

static const struct {
	struct ct_plugin p;
	unsigned char newer[8];
} bad = {
	{
#ifdef BAD_ABI
		.abi_version = 9999, /* no cudatracer speaks it */
		.sz = sizeof(struct ct_plugin),
#elif defined(BAD_SIZE)
		.abi_version = CT_ABI_VERSION,
		.sz = 8,
#elif defined(BAD_TAIL)
		.abi_version = CT_ABI_VERSION,
		.sz = sizeof(struct ct_plugin) + 8,
#else
		CT_PLUGIN_HEAD,
#endif
		.name = "bad",
		CT_LIBRARIES("libbad.so"),
		CT_APIS(apis),
	},
#ifdef BAD_TAIL
	.newer = { 0, 0, 1 }, /* a field this cudatracer does not know, in use */
#endif
};

CT_PLUGIN_DEFINE(bad.p)
#else
int not_a_plugin(void)
{
	return 0;
}
#endif
