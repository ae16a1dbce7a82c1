// SPDX-License-Identifier: MIT
/* Plugins the loader must refuse: built for another ABI version (BAD_ABI),
 * with a descriptor too small for this ABI (BAD_SIZE), or not exporting
 * the entry symbol at all (BAD_NONE). */
#include <cudatracer/plugin.h>

#ifndef BAD_NONE
static struct ct_plugin bad = {
#ifdef BAD_ABI
	.abi_version = 9999, /* no cudatracer speaks it */
	.sz = sizeof(struct ct_plugin),
#else
	.abi_version = CT_ABI_VERSION,
	.sz = 8,
#endif
	.name = "bad",
};

__attribute__((visibility("default"))) const struct ct_plugin *cudatracer_plugin_entry(void)
{
	return &bad;
}
#else
int not_a_plugin(void)
{
	return 0;
}
#endif
