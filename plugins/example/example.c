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
	{
		/* toyStatus toyMalloc(void **ptr, size_t size) */
		.symbol = "toyMalloc",
		.flags = CT_API_ALLOC | CT_API_DEVICE_MEM,
		.result = CT_RES_ERROR,
		.err_arg = -1,
		.str_slot = CT_NO_STR,
		/* after the call, copy the word that slot 0 points to into mem[0] */
		.reads = { { .slot = 0, .phase = CT_AT_EXIT, .words = 1, .dst = 0 } },
		.n_args = 2,
		.args = {
			{ .name = "ptr", .kind = CT_ARG_PTR, CT_MEMW(0), .size = 8,
			  .role = CT_ROLE_ALLOC_PTR },
			{ .name = "size", .kind = CT_ARG_SIZE, CT_SLOT(1), .size = 8,
			  .role = CT_ROLE_BYTES },
		},
	},
	{
		/* toyStatus toyFree(void *ptr) */
		.symbol = "toyFree",
		.flags = CT_API_FREE | CT_API_DEVICE_MEM,
		.result = CT_RES_ERROR,
		.err_arg = -1,
		.str_slot = CT_NO_STR,
		.n_args = 1,
		.args = {
			{ .name = "ptr", .kind = CT_ARG_PTR, CT_SLOT(0), .size = 8,
			  .role = CT_ROLE_FREE_PTR },
		},
	},
	{
		/* toyStatus toyMemcpy(void *dst, const void *src, size_t size) */
		.symbol = "toyMemcpy",
		.flags = CT_API_COPY,
		.result = CT_RES_ERROR,
		.err_arg = -1,
		.str_slot = CT_NO_STR,
		.n_args = 3,
		.args = {
			{ .name = "dst", .kind = CT_ARG_PTR, CT_SLOT(0), .size = 8 },
			{ .name = "src", .kind = CT_ARG_PTR, CT_SLOT(1), .size = 8 },
			{ .name = "size", .kind = CT_ARG_SIZE, CT_SLOT(2), .size = 8,
			  .role = CT_ROLE_BYTES },
		},
	},
	{
		/* toyStatus toyLaunch(const char *name, float *data, unsigned int n) */
		.symbol = "toyLaunch",
		.flags = CT_API_LAUNCH,
		.result = CT_RES_ERROR,
		.err_arg = -1,
		.str_slot = 0, /* read the C string in slot 0 at entry */
		.n_args = 3,
		.args = {
			{ .name = "name", .kind = CT_ARG_STRING, .area = CT_AREA_STR,
			  .role = CT_ROLE_KERNEL },
			{ .name = "data", .kind = CT_ARG_PTR, CT_SLOT(1), .size = 8 },
			{ .name = "n", .kind = CT_ARG_UINT, CT_SLOT(2), .size = 4 },
		},
	},
};

static const char *const toy_libraries[] = { "libtoyrt.so", NULL };

static struct ct_plugin toy_plugin = {
	.abi_version = CT_ABI_VERSION,
	.sz = sizeof(struct ct_plugin),
	.name = "example",
	.version = "1",
	.description = "example plugin: the toyrt library",
	.libraries = toy_libraries,
	.apis = toy_apis,
	.n_apis = sizeof(toy_apis) / sizeof(toy_apis[0]),
	.errors = &toy_errors,
	.success_name = "toySuccess",
};

/* The entry point; embed.S provides ct_bpf_example_start/_end. */
CT_PLUGIN_DEFINE(toy_plugin, ct_bpf_example)
