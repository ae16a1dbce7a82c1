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
#include "toy_apis.h"

/* toyStatus names, generated from toyrt.h by gen_enum.py (see the Makefile). */
extern const struct ct_enum toy_errors;

#ifdef EXAMPLE_WITH_HOOK
/* n * 4: derived by the BPF hook (hook.bpf.c), which fills the memory word;
 * a table alone cannot say it, so without the hook the row has no such field. */
#define TOY_LAUNCH_BYTES , CT_ARG("bytes", CT_ARG_SIZE, CT_MEMW(TOY_LAUNCH_BYTES_WORD), 8, CT_ROLE_NONE)
#else
#define TOY_LAUNCH_BYTES
#endif

static const struct ct_api toy_apis[] = {
	/* toyStatus toyMalloc(void **ptr, size_t size): after the call, copy the
	 * word that slot 0 points to into memory word 0 */
	[TOY_MALLOC] = CT_API("toyMalloc", CT_API_ALLOC | CT_API_DEVICE_MEM, CT_READS(CT_OUT_WORD(0, 0)),
	       CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		       CT_ARG("size", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES))),
	/* toyStatus toyFree(void *ptr) */
	[TOY_FREE] = CT_API("toyFree", CT_API_FREE | CT_API_DEVICE_MEM,
	       CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	/* toyStatus toyMemcpy(void *dst, const void *src, size_t size) */
	[TOY_MEMCPY] = CT_API("toyMemcpy", CT_API_COPY,
	       CT_ARGS(CT_ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		       CT_ARG("src", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		       CT_ARG("size", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES))),
	/* toyStatus toyLaunch(const char *name, float *data, unsigned int n):
	 * the C string in slot 0 is read at entry */
	[TOY_LAUNCH] = CT_API("toyLaunch", CT_API_LAUNCH, CT_STR(0),
	       CT_ARGS(CT_ARG("name", CT_ARG_STRING, CT_IN_STR, 0, CT_ROLE_KERNEL),
		       CT_ARG("data", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		       CT_ARG("n", CT_ARG_UINT, CT_SLOT(2), 4, CT_ROLE_NONE)
		       TOY_LAUNCH_BYTES)),
};


#ifdef EXAMPLE_WITH_HOOK
/* hook.bpf.o as a byte array (example_hook), made by the Makefile. */
#include "hook_obj.h"
#define EXAMPLE_HOOK .bpf_hook = example_hook, .bpf_hook_sz = sizeof(example_hook),
#else
#define EXAMPLE_HOOK
#endif

static const struct ct_plugin toy_plugin = {
	CT_PLUGIN_HEAD,
	.name = "example",
	.version = CT_PLUGIN_VERSION, /* the cudatracer it was built against (Makefile) */
	.description = "example plugin: the toyrt library",
	CT_LIBRARIES("libtoyrt.so"),
	CT_APIS(toy_apis),
	.errors = &toy_errors,
	.success_name = "toySuccess",
	EXAMPLE_HOOK
};

CT_PLUGIN_DEFINE(toy_plugin)
