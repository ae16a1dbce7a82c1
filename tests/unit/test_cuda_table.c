// SPDX-License-Identifier: MIT
/*
 * The cuda plugin's table against libcuda itself (the toolkit's stub, which
 * exports the same symbols as the real driver): every row names a symbol
 * libcuda exports, every exported variant (_v2, _v3, _ptds, _ptsz ...) of a
 * traced API has a row, and every argument can be found in the record.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <cudatracer/plugin.h>
#include "plugin/loader.h"
#include "plugin/validate.h"

#ifndef CUDA_PLUGIN
#error "CUDA_PLUGIN (path of libct-cuda.so) must be defined"
#endif
#ifndef CUDA_STUB
#error "CUDA_STUB (path of the toolkit's stub libcuda.so) must be defined"
#endif

/* The APIs the plugin promises (issue 4), before version suffixes. */
static const char *const traced[] = {
	"cuInit", "cuCtxCreate", "cuCtxDestroy", "cuCtxSynchronize", "cuCtxSetCurrent",
	"cuMemAlloc", "cuMemFree", "cuMemAllocHost", "cuMemFreeHost", "cuMemAllocManaged",
	"cuMemAllocAsync", "cuMemFreeAsync", "cuMemcpy", "cuMemcpyHtoD", "cuMemcpyDtoH",
	"cuMemcpyDtoD", "cuMemcpyAsync", "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync",
	"cuMemcpyDtoDAsync", "cuMemcpy2D", "cuMemcpy2DAsync", "cuMemsetD8", "cuMemsetD32",
	"cuMemsetD8Async", "cuMemsetD32Async", "cuModuleLoad", "cuModuleLoadData",
	"cuModuleGetFunction", "cuLibraryLoadData", "cuLibraryGetKernel", "cuKernelGetFunction",
	"cuLaunchKernel", "cuLaunchKernelEx", "cuLaunchCooperativeKernel", "cuStreamCreate",
	"cuStreamDestroy", "cuStreamSynchronize", "cuEventRecord", "cuEventRecordWithFlags",
	"cuStreamWaitEvent", "cuLaunchHostFunc", "cuEventSynchronize",
	"cuGraphLaunch", "cuDriverGetVersion", "cuGetProcAddress", "cuCtxPushCurrent",
	"cuCtxPopCurrent", "cuCtxGetCurrent", "cuCtxGetDevice", "cuDevicePrimaryCtxRetain",
	/* every allocation family (issue 30) */
	"cuMemAllocPitch", "cuMemHostAlloc", "cuMemAllocFromPoolAsync", "cuMemHostRegister",
	"cuMemHostUnregister", "cuArrayCreate", "cuArray3DCreate", "cuArrayDestroy", "cuMipmappedArrayCreate",
	"cuMipmappedArrayDestroy", "cuMemCreate",
	"cuMemRelease", "cuMemAddressReserve", "cuMemAddressFree", "cuMemMap", "cuMemUnmap",
};

/* As the core sees the table: loaded, validated, one API per symbol. */
static const struct ct_plugin *plugin;
static struct ct_loaded_plugin loaded;

static int setup(void **state)
{
	if (ct_plugin_load(CUDA_PLUGIN, NULL, &loaded))
		return -1;
	plugin = loaded.p;
	return 0;
}

static int teardown(void **state)
{
	ct_plugin_unload(&loaded);
	return 0;
}

static const struct ct_api *row(const char *symbol)
{
	for (size_t i = 0; i < plugin->n_apis; i++)
		if (!strcmp(plugin->apis[i].symbol, symbol))
			return &plugin->apis[i];
	return NULL;
}

static void test_descriptor(void **state)
{
	char why[512];

	assert_int_equal(ct_plugin_validate(loaded.raw, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(loaded.raw->abi_version, CT_ABI_VERSION);
	assert_int_equal(loaded.raw->sz, sizeof(struct ct_plugin));
	assert_string_equal(plugin->name, "cuda");
	assert_string_equal(plugin->libraries[0], "libcuda.so");
	assert_int_equal(plugin->n_libraries, 1);
	assert_string_equal(plugin->success_name, "CUDA_SUCCESS");
	/* Tables only: the capture engine is the core's. */
	assert_null(loaded.raw->bpf_hook);
}

static void test_errors_generated_from_cuda_h(void **state)
{
	const struct ct_enum *e = plugin->errors;
	bool stub = false, unknown = false;

	assert_true(e->n > 90); /* CUDA 13 has about a hundred */
	assert_int_equal(e->v[0].value, 0);
	assert_string_equal(e->v[0].name, "CUDA_SUCCESS");
	for (size_t i = 0; i < e->n; i++) {
		if (i)
			assert_true(e->v[i - 1].value < e->v[i].value); /* sorted, no aliases */
		if (e->v[i].value == 34)
			stub = !strcmp(e->v[i].name, "CUDA_ERROR_STUB_LIBRARY");
		if (e->v[i].value == 999)
			unknown = !strcmp(e->v[i].name, "CUDA_ERROR_UNKNOWN");
	}
	assert_true(stub);
	assert_true(unknown);
}

static void test_every_row_is_exported_once(void **state)
{
	void *stub = dlopen(CUDA_STUB, RTLD_NOW | RTLD_LOCAL);

	assert_non_null(stub);
	for (size_t i = 0; i < plugin->n_apis; i++) {
		const char *sym = plugin->apis[i].symbol;

		/* Twice is the validator's to refuse (test_validate.c). */
		if (!dlsym(stub, sym))
			fail_msg("%s is not exported by %s", sym, CUDA_STUB);
	}
	dlclose(stub);
}

/* The names of the functions libcuda defines, each given to `fn`. */
static void each_export(void (*fn)(const char *name, void *ctx), void *ctx)
{
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd;

	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	fd = open(CUDA_STUB, O_RDONLY);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(data, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			assert_non_null(name);
			fn(name, ctx);
		}
	}
	elf_end(elf);
	close(fd);
}

struct variants {
	regex_t re;
	int n, missing;
};

static void variant_has_row(const char *name, void *ctx)
{
	struct variants *v = ctx;

	if (regexec(&v->re, name, 0, NULL, 0))
		return;
	v->n++;
	/* A hand-written row: roles and out-parameters, not only C types. */
	if (!row(name) || (row(name)->flags & CT_API_GENERATED)) {
		fprintf(stderr, "no hand-written row for %s\n", name);
		v->missing++;
	}
}

/* Every dynamic symbol of libcuda that is a variant of a traced API has a hand-written row. */
static void test_every_variant_has_a_row(void **state)
{
	char pattern[4096] = "^(";
	struct variants v = { .n = 0 };
	size_t hand = 0;

	for (size_t i = 0; i < sizeof(traced) / sizeof(traced[0]); i++) {
		strcat(pattern, i ? "|" : "");
		strcat(pattern, traced[i]);
	}
	strcat(pattern, ")(_v[0-9]+)?(_ptds|_ptsz)?$");
	assert_int_equal(regcomp(&v.re, pattern, REG_EXTENDED | REG_NOSUB), 0);
	each_export(variant_has_row, &v);
	regfree(&v.re);
	assert_int_equal(v.missing, 0);
	for (size_t i = 0; i < plugin->n_apis; i++)
		hand += !(plugin->apis[i].flags & CT_API_GENERATED);
	assert_int_equal((size_t)v.n, hand);
}

static void export_has_row(const char *name, void *ctx)
{
	(*(size_t *)ctx)++;
	if (!row(name))
		fail_msg("%s has no row", name);
}

/* Every function libcuda exports has a row: written by hand or generated from cuda.h. */
static void test_every_export_has_a_row(void **state)
{
	size_t exported = 0;

	each_export(export_has_row, &exported);
	assert_int_equal(exported, plugin->n_apis);
}

static bool read_covers(const struct ct_api *a, uint8_t phase_mask, unsigned off, unsigned size)
{
	for (size_t i = 0; i < a->n_reads; i++) {
		const struct ct_read *r = &a->reads[i];

		if (r->phase && (phase_mask & r->phase) && r->dst * 8u <= off &&
		    off + size <= (r->dst + r->words) * 8u)
			return true;
	}
	return false;
}

static void test_every_argument_is_reachable(void **state)
{
	for (size_t i = 0; i < plugin->n_apis; i++) {
		const struct ct_api *a = &plugin->apis[i];
		bool named = false, has_new = false;

		/* Bounds, sizes, areas and reads are the validator's (the loader ran it);
		 * this is what the driver's calls mean. */
		assert_int_equal(a->result, CT_RES_ERROR);
		for (size_t j = 0; j < a->n_args; j++) {
			const struct ct_arg *g = &a->args[j];

			if (g->area == CT_AREA_RET)
				fail_msg("%s.%s: a driver call returns a CUresult", a->symbol, g->name);
			switch (g->role) {
			case CT_ROLE_ALLOC_PTR:
				assert_true(a->flags & CT_API_ALLOC);
				/* What an allocation returned exists only after the call;
				 * memory registered (cuMemHostRegister) is the caller's. */
				assert_true((g->area == CT_AREA_MEM &&
					     read_covers(a, CT_AT_EXIT, g->off, g->size)) ||
					    (g->area == CT_AREA_ARGS && (a->flags & CT_API_HOST_MEM)));
				break;
			case CT_ROLE_FREE_PTR:
				assert_true(a->flags & CT_API_FREE);
				break;
			case CT_ROLE_KERNEL:
				assert_true(a->flags & CT_API_LAUNCH);
				assert_int_equal(g->kind, CT_ARG_HANDLE);
				break;
			case CT_ROLE_HANDLE_NEW:
				has_new = true;
				assert_true(g->area == CT_AREA_MEM &&
					    read_covers(a, CT_AT_EXIT, g->off, g->size));
				break;
			case CT_ROLE_HANDLE_NAMED:
				named = true;
				break;
			}
		}
		/* A new handle's name comes from the string read, or from the handle it was made from. */
		if (has_new && a->str_slot == CT_NO_STR && !named)
			fail_msg("%s: a new handle with no name to take", a->symbol);
		if ((a->flags & (CT_API_ALLOC | CT_API_FREE)) &&
		    !(a->flags & (CT_API_DEVICE_MEM | CT_API_HOST_MEM | CT_API_MANAGED_MEM)))
			fail_msg("%s: alloc or free without a memory kind", a->symbol);
	}
}

/* Spot checks of slots that the x86-64 ABI puts on the stack. */
static void test_stack_arguments(void **state)
{
	const struct ct_api *a = row("cuLaunchKernel");

	assert_non_null(a);
	assert_int_equal(a->n_args, 11);
	assert_string_equal(a->args[6].name, "blockDimZ");
	assert_int_equal(a->args[6].off, 6 * 8); /* seventh argument: first stack word */
	assert_int_equal(a->args[6].size, 4);
	assert_string_equal(a->args[8].name, "hStream");
	assert_int_equal(a->args[8].off, 8 * 8);
	assert_int_equal(a->args[8].role, CT_ROLE_STREAM);
	a = row("cuLibraryLoadData");
	assert_non_null(a);
	assert_string_equal(a->args[a->n_args - 1].name, "numLibraryOptions");
	assert_int_equal(a->args[a->n_args - 1].off, 7 * 8);
}

static void test_legacy_rows_are_32_bit(void **state)
{
	const struct ct_api *v1 = row("cuMemAlloc"), *v2 = row("cuMemAlloc_v2");

	assert_non_null(v1);
	assert_non_null(v2);
	assert_int_equal(v1->args[0].size, 4);
	assert_int_equal(v1->args[1].size, 4);
	assert_int_equal(v2->args[0].size, 8);
	assert_int_equal(v2->args[1].size, 8);
	assert_int_equal(row("cuMemcpyHtoD")->args[2].size, 4);
	assert_int_equal(row("cuMemcpyHtoD_v2_ptds")->args[2].size, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptor),
		cmocka_unit_test(test_errors_generated_from_cuda_h),
		cmocka_unit_test(test_every_row_is_exported_once),
		cmocka_unit_test(test_every_export_has_a_row),
		cmocka_unit_test(test_every_variant_has_a_row),
		cmocka_unit_test(test_every_argument_is_reachable),
		cmocka_unit_test(test_stack_arguments),
		cmocka_unit_test(test_legacy_rows_are_32_bit),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
