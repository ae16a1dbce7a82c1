// SPDX-License-Identifier: MIT
/*
 * An example cudatracer plugin, built out of tree (see docs/plugins.md): it
 * traces toyrt (toyrt/toyrt.h), a tiny stand-in for a GPU runtime.
 *
 * The plugin is a table: one row per function, saying where each argument is
 * found when the probe fires and how to show it. Slots are the x86-64 SysV
 * argument registers rdi, rsi, rdx, rcx, r8, r9 (0-5), then stack words (6-11).
 */
#include <cudatracer/plugin.h>

/* toyStatus names, generated from toyrt.h by gen_enum.py (see the Makefile). */
extern const struct ct_enum toy_errors;

static const struct ct_api toy_apis[] = {
	/* toyStatus toyMalloc(void **ptr, size_t size): after the call, copy the
	 * word that slot 0 points to into memory word 0 */
	CT_API("toyMalloc", CT_API_ALLOC | CT_API_DEVICE_MEM, CT_READS(CT_OUT_WORD(0, 0)),
	       CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		       CT_ARG("size", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES))),
	/* toyStatus toyFree(void *ptr) */
	CT_API("toyFree", CT_API_FREE | CT_API_DEVICE_MEM,
	       CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	/* toyStatus toyMemcpy(void *dst, const void *src, size_t size) */
	CT_API("toyMemcpy", CT_API_COPY,
	       CT_ARGS(CT_ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		       CT_ARG("src", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		       CT_ARG("size", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES))),
	/* toyStatus toyLaunch(const char *name, float *data, unsigned int n):
	 * the C string in slot 0 is read at entry */
	CT_API("toyLaunch", CT_API_LAUNCH, CT_STR(0),
	       CT_ARGS(CT_ARG("name", CT_ARG_STRING, CT_IN_STR, 0, CT_ROLE_KERNEL),
		       CT_ARG("data", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		       CT_ARG("n", CT_ARG_UINT, CT_SLOT(2), 4, CT_ROLE_NONE))),
};

static const struct ct_plugin toy_plugin = {
	CT_PLUGIN_HEAD,
	.name = "example",
	.version = CT_PLUGIN_VERSION, /* the cudatracer it was built against (Makefile) */
	.description = "example plugin: the toyrt library",
	CT_LIBRARIES("libtoyrt.so"),
	CT_APIS(toy_apis),
	.errors = &toy_errors,
	.success_name = "toySuccess",
};

CT_PLUGIN_DEFINE(toy_plugin)
