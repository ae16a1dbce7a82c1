// SPDX-License-Identifier: MIT
/*
 * The one plugin-table validator (core/plugin/validate.c): a good table
 * passes, and each defect, one broken field at a time, is refused with the
 * exact message that names the plugin, the row and the field. Wild pointers
 * (into a page that cannot be read) are refused, not followed. Also the
 * loader's view of variants (core/plugin/variants.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>
#include "plugin/validate.h"
#include "plugin/variants.h"

/* A table of four rows that uses every feature, in writable copies a case can break. */
struct fx {
	struct ct_plugin p;
	struct ct_api apis[4];
	struct ct_arg args[4][4];
	struct ct_read reads[4][1];
	const char *variants[4][1];
	const char *libs[1];
	struct ct_enum_entry err_v[2], kind_v[2];
	struct ct_enum errs, kinds;
};

static void fx_init(struct fx *f)
{
	static const struct ct_arg args[4][4] = {
		{ CT_ARG("ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		  CT_ARG("size", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES) },
		{ CT_ARG("dst", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_NONE),
		  CT_ARG("src", CT_ARG_PTR, CT_SLOT(1), 8, CT_ROLE_NONE),
		  CT_ARG("count", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_BYTES),
		  CT_ARG_NAMED("kind", CT_SLOT(3), 4, CT_ROLE_COPY_KIND, NULL) },
		{ CT_ARG("name", CT_ARG_STRING, CT_IN_STR, 0, CT_ROLE_KERNEL),
		  CT_ARG("grid", CT_ARG_DIM3, CT_SLOT(1), 12, CT_ROLE_NONE),
		  CT_ARG("n", CT_ARG_UINT, CT_SLOT(3), 4, CT_ROLE_NONE),
		  CT_ARG_SIZES3("sizes", CT_MEMW(0), 2) },
		{ CT_ARG("handle", CT_ARG_HANDLE, CT_IN_RET, 8, CT_ROLE_NONE),
		  CT_ARG_NAMED("err", CT_MEMW(0), 4, CT_ROLE_NONE, NULL) },
	};
	static const struct ct_read reads[4][1] = {
		{ CT_OUT_WORD(0, 0) }, { CT_OUT_WORD(0, 0) }, { CT_IN_WORDS(4, 3, 0) }, { CT_OUT_WORD(1, 0) },
	};

	memset(f, 0, sizeof(*f));
	memcpy(f->args, args, sizeof(args));
	memcpy(f->reads, reads, sizeof(reads));
	f->err_v[0] = (struct ct_enum_entry){ 0, "okSuccess" };
	f->err_v[1] = (struct ct_enum_entry){ 1, "okError" };
	f->kind_v[0] = (struct ct_enum_entry){ 0, "toHost" };
	f->kind_v[1] = (struct ct_enum_entry){ 1, "toDevice" };
	f->errs = (struct ct_enum){ f->err_v, 2 };
	f->kinds = (struct ct_enum){ f->kind_v, 2 };
	f->args[1][3].names = &f->kinds;
	f->args[3][1].names = &f->errs;
	f->variants[1][0] = "_ptds";
	f->libs[0] = "libtoy.so";
	f->apis[0] = (struct ct_api)CT_API("toyMalloc", CT_API_DEV_ALLOC);
	f->apis[1] = (struct ct_api)CT_API("toyMemcpy", CT_API_COPY);
	f->apis[2] = (struct ct_api)CT_API("toyLaunch", CT_API_LAUNCH, CT_STR(0));
	f->apis[3] = (struct ct_api)CT_API("toyCreate", 0, CT_RETURNS_HANDLE(1));
	for (int i = 0; i < 4; i++) {
		f->apis[i].args = f->args[i];
		f->apis[i].n_args = i == 0 || i == 3 ? 2 : 4;
		f->apis[i].reads = f->reads[i];
		f->apis[i].n_reads = i == 1 ? 0 : 1;
	}
	f->apis[1].variants = f->variants[1];
	f->apis[1].n_variants = 1;
	f->p = (struct ct_plugin){ CT_PLUGIN_HEAD, .name = "toy", .version = "1", .description = "toy",
				   .libraries = f->libs, .n_libraries = 1, .apis = f->apis, .n_apis = 4,
				   .errors = &f->errs, .success_name = "okSuccess" };
}

static void expect(const struct ct_plugin *p, int want_err, const char *want)
{
	char why[512];
	int err = ct_plugin_validate(p, why, sizeof(why));

	if (err != want_err || strcmp(why, want))
		fail_msg("got %d \"%s\"\nwant %d \"%s\"", err, why, want_err, want);
}

/* A page that cannot be read: where a wild pointer of a broken table points. */
static void *unreadable(void)
{
	static void *page;

	if (!page) {
		page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		assert_true(page != MAP_FAILED);
	}
	return page;
}

static void test_good_table(void **state)
{
	struct fx f;

	fx_init(&f);
	expect(&f.p, 0, "");
}

/* One test per defect: the field it breaks, the error and the exact message. */
#define DEFECT(id, want_err, want, ...)      \
	static void test_##id(void **state)  \
	{                                    \
		struct fx f;                 \
		fx_init(&f);                 \
		__VA_ARGS__;                 \
		expect(&f.p, want_err, want); \
	}

/* The descriptor */
DEFECT(name_null, -EINVAL, "its name is NULL", f.p.name = NULL)
DEFECT(name_chars, -EINVAL, "its name \"Toy-1\" has a character other than a-z, 0-9 and _",
       f.p.name = "Toy-1")
DEFECT(name_long, -EINVAL, "its name is longer than 32 bytes",
       f.p.name = "a_plugin_name_of_more_than_32_bytes")
DEFECT(name_wild, -EINVAL, "its name points to unreadable memory", f.p.name = unreadable())
DEFECT(version_empty, -EINVAL, "plugin toy: version is empty", f.p.version = "")
DEFECT(no_libraries, -EINVAL, "plugin toy: n_libraries is 0: a plugin names the libraries it traces",
       f.p.n_libraries = 0)
DEFECT(many_libraries, -EINVAL, "plugin toy: n_libraries is 1000, more than 16", f.p.n_libraries = 1000)
DEFECT(libraries_null, -EINVAL, "plugin toy: n_libraries is 1 and libraries is NULL", f.p.libraries = NULL)
DEFECT(library_null, -EINVAL, "plugin toy: libraries[0] is NULL", f.libs[0] = NULL)
DEFECT(library_path, -EINVAL,
       "plugin toy: libraries[0] \"/usr/lib/libtoy.so\" is a path, not the start of a file name",
       f.libs[0] = "/usr/lib/libtoy.so")
DEFECT(no_apis, -EINVAL, "plugin toy: n_apis is 0: a plugin traces at least one API", f.p.n_apis = 0)
DEFECT(many_apis, -EINVAL, "plugin toy: n_apis is 100000, more than 4096", f.p.n_apis = 100000)
DEFECT(apis_null, -EINVAL, "plugin toy: n_apis is 4 and apis is NULL", f.p.apis = NULL)
DEFECT(apis_wild, -EINVAL, "plugin toy: apis points to unreadable memory", f.p.apis = unreadable())
DEFECT(errors_count, -EINVAL, "plugin toy: errors has 1099511627776 entries, more than 65536",
       f.errs.n = 1ull << 40)
DEFECT(errors_wild, -EINVAL, "plugin toy: errors has 2 entries at unreadable memory",
       f.errs.v = unreadable())
DEFECT(errors_name, -EINVAL, "plugin toy: errors entry 1 (value 1) is NULL", f.err_v[1].name = NULL)
DEFECT(errors_unsorted, -EINVAL,
       "plugin toy: errors is not sorted: entry 1 (okError = 0) comes after okSuccess = 0",
       f.err_v[1].value = 0)
DEFECT(hook, -EINVAL, "plugin toy: bpf_hook and bpf_hook_sz disagree (an object, 0 bytes)",
       f.p.bpf_hook = "\177ELF")

/* A row */
DEFECT(symbol_null, -EINVAL, "plugin toy: row 0: symbol is NULL", f.apis[0].symbol = NULL)
DEFECT(symbol_chars, -EINVAL,
       "plugin toy: row 0: symbol \"toy Malloc\" has a character other than A-Z, a-z, 0-9 and _",
       f.apis[0].symbol = "toy Malloc")
DEFECT(symbol_wild, -EINVAL, "plugin toy: row 0: symbol points to unreadable memory",
       f.apis[0].symbol = unreadable())
DEFECT(flags, -EINVAL, "plugin toy: row 0 (toyMalloc): flags 0x200104 have unknown bits 0x200000",
       f.apis[0].flags |= 1u << 21)
DEFECT(result, -EINVAL, "plugin toy: row 0 (toyMalloc): result 7 is not a ct_result", f.apis[0].result = 7)
DEFECT(str_slot, -EINVAL, "plugin toy: row 2 (toyLaunch): str_slot 12 is past the 12 argument slots",
       f.apis[2].str_slot = 12)
DEFECT(n_args, -EINVAL, "plugin toy: row 1 (toyMemcpy): n_args is 17, more than 16", f.apis[1].n_args = 17)
DEFECT(args_null, -EINVAL, "plugin toy: row 1 (toyMemcpy): n_args is 4 and args is NULL",
       f.apis[1].args = NULL)
DEFECT(args_wild, -EINVAL, "plugin toy: row 1 (toyMemcpy): args points to unreadable memory",
       f.apis[1].args = unreadable())
DEFECT(n_reads, -EINVAL, "plugin toy: row 0 (toyMalloc): n_reads is 5, more than 4", f.apis[0].n_reads = 5)
DEFECT(n_variants, -EINVAL, "plugin toy: row 1 (toyMemcpy): n_variants is 5, more than 4",
       f.apis[1].n_variants = 5)
DEFECT(variant_null, -EINVAL, "plugin toy: row 1 (toyMemcpy): variant 0 is NULL", f.variants[1][0] = NULL)
DEFECT(variant_chars, -EINVAL,
       "plugin toy: row 1 (toyMemcpy): variant 0 \"@ptds\" has a character other than A-Z, a-z, 0-9 and _",
       f.variants[1][0] = "@ptds")
DEFECT(err_arg_range, -EINVAL, "plugin toy: row 3 (toyCreate): err_arg 2 is past its 2 arguments",
       f.apis[3].err_arg = 2)
DEFECT(err_arg_kind, -EINVAL, "plugin toy: row 3 (toyCreate): err_arg 0 (handle) is not an enum",
       f.apis[3].err_arg = 0)
DEFECT(err_arg_negative, -EINVAL, "plugin toy: row 3 (toyCreate): err_arg -5 is neither -1 nor an argument",
       f.apis[3].err_arg = -5)
DEFECT(duplicate, -EINVAL, "plugin toy: row 2 (toyMalloc): symbol toyMalloc is already traced by row 0",
       f.apis[2].symbol = "toyMalloc")
DEFECT(duplicate_variant, -EINVAL,
       "plugin toy: row 1 (toyMemcpy): variant 0 makes toyMemcpy_ptds, already traced by row 0",
       f.apis[0].symbol = "toyMemcpy_ptds")

/* An entry-only row: reads at entry only, nothing from the return value. */
DEFECT(entry_only_at_entry, 0, "", f.apis[2].flags |= CT_API_ENTRY_ONLY)
DEFECT(entry_only_exit_read, -EINVAL,
       "plugin toy: row 0 (toyMalloc): CT_API_ENTRY_ONLY with a read at exit (read 0): an entry-only call "
       "cannot show an out-parameter; leave the flag off",
       f.apis[0].flags |= CT_API_ENTRY_ONLY)
DEFECT(entry_only_ret, -EINVAL,
       "plugin toy: row 3 (toyCreate): CT_API_ENTRY_ONLY with handle read from the return value: an "
       "entry-only call has none; leave the flag off",
       f.apis[3].flags |= CT_API_ENTRY_ONLY; f.apis[3].n_args = 1; f.apis[3].n_reads = 0;
       f.apis[3].err_arg = -1)

/* A read */
DEFECT(read_slot, -EINVAL, "plugin toy: row 0 (toyMalloc): read 0: slot 12 is past the 12 argument slots",
       f.reads[0][0].slot = 12)
DEFECT(read_phase, -EINVAL,
       "plugin toy: row 0 (toyMalloc): read 0: phase 0 is neither CT_AT_ENTRY nor CT_AT_EXIT",
       f.reads[0][0].phase = 0)
DEFECT(read_words, -EINVAL, "plugin toy: row 0 (toyMalloc): read 0: copies no words", f.reads[0][0].words = 0)
DEFECT(read_past, -EINVAL,
       "plugin toy: row 2 (toyLaunch): read 0: memory words 6..8 are past the 8 there are",
       f.reads[2][0].dst = 6)

/* An argument */
DEFECT(arg_name, -EINVAL, "plugin toy: row 0 (toyMalloc): arg 1: name is NULL", f.args[0][1].name = NULL)
DEFECT(arg_twice, -EINVAL, "plugin toy: row 1 (toyMemcpy): arg 1 (dst): arg 0 has the same name",
       f.args[1][1].name = "dst")
DEFECT(kind, -EINVAL, "plugin toy: row 1 (toyMemcpy): arg 0 (dst): kind 99 is not a ct_arg_kind",
       f.args[1][0].kind = 99)
DEFECT(area, -EINVAL, "plugin toy: row 1 (toyMemcpy): arg 0 (dst): area 9 is not a ct_area",
       f.args[1][0].area = 9)
DEFECT(role, -EINVAL, "plugin toy: row 1 (toyMemcpy): arg 0 (dst): role 50 is not a ct_role",
       f.args[1][0].role = 50)
DEFECT(size, -EINVAL, "plugin toy: row 0 (toyMalloc): arg 1 (size): size 3, want 1, 2, 4 or 8",
       f.args[0][1].size = 3)
DEFECT(dim3_size, -EINVAL, "plugin toy: row 2 (toyLaunch): arg 1 (grid): size 8, want 12 for a dim3",
       f.args[2][1].size = 8)
DEFECT(sizes3_size, -EINVAL, "plugin toy: row 2 (toyLaunch): arg 3 (sizes): size 8, want 24 for three sizes",
       f.args[2][3].size = 8)
DEFECT(slot_past, -EINVAL,
       "plugin toy: row 1 (toyMemcpy): arg 3 (kind): bytes 96..99 are past the 12 argument slots",
       f.args[1][3].off = 12 * 8)
DEFECT(dim3_past, -EINVAL,
       "plugin toy: row 2 (toyLaunch): arg 1 (grid): bytes 88..99 are past the 12 argument slots",
       f.args[2][1].off = 11 * 8)
/* A field within one slot is at a multiple of its size (cudaMemLocation's id: bytes 4..7). */
DEFECT(slot_unaligned, -EINVAL,
       "plugin toy: row 1 (toyMemcpy): arg 3 (kind): offset 2 is neither a slot's (a multiple of 8) "
       "nor a field's within one slot",
       f.args[1][3].off = 2)
DEFECT(slot_straddled, -EINVAL,
       "plugin toy: row 1 (toyMemcpy): arg 2 (count): offset 4 is neither a slot's (a multiple of 8) "
       "nor a field's within one slot",
       f.args[1][2].off = 4)
DEFECT(slot_field, 0, "", f.args[1][3].off = 4)
DEFECT(mem_past, -EINVAL, "plugin toy: row 0 (toyMalloc): arg 0 (ptr): bytes 64..71 are past the 8 memory words",
       f.args[0][0].off = 64)
DEFECT(mem_unread, -EINVAL, "plugin toy: row 0 (toyMalloc): arg 0 (ptr): memory word 1 is filled by no read (and the plugin has no BPF hook to fill it)",
       f.args[0][0].off = 8)
DEFECT(ret_past, -EINVAL,
       "plugin toy: row 3 (toyCreate): arg 0 (handle): bytes 4..11 are past the 8-byte return value",
       f.args[3][0].off = 4)
DEFECT(string_area, -EINVAL,
       "plugin toy: row 2 (toyLaunch): arg 0 (name): a string is in CT_AREA_STR, and nothing else is",
       f.args[2][0].area = CT_AREA_ARGS)
DEFECT(string_slot, -EINVAL, "plugin toy: row 2 (toyLaunch): arg 0 (name): a string needs the row's str_slot",
       f.apis[2].str_slot = CT_NO_STR)
/* A datatype's element sizes (the nccl plugin's datatype argument) */
static const struct ct_elem_size sizes_unsorted_v[] = { { 1, 4 }, { 0, 2 } };
static const struct ct_elem_size sizes_zero_v[] = { { 0, 2 }, { 1, 0 } };
static const struct ct_elem_sizes sizes_unsorted = { sizes_unsorted_v, 2 }, sizes_zero = { sizes_zero_v, 2 };
static const struct ct_elem_sizes sizes_empty = { sizes_zero_v, 0 };
/* The size roles (ct_event_bytes()) and the memory flags hold together. */
DEFECT(size_role_twice, -EINVAL, "plugin toy: row 1 (toyMemcpy): 2 arguments with the role BYTES: a size has one",
       f.args[1][0].role = CT_ROLE_BYTES)
DEFECT(size_role_kind, -EINVAL,
       "plugin toy: row 1 (toyMemcpy): dst has the role HEIGHT and is not a number (INT, UINT or SIZE)",
       f.args[1][0].role = CT_ROLE_HEIGHT)
DEFECT(channels_untyped, -EINVAL,
       "plugin toy: row 0 (toyMalloc): CT_ROLE_CHANNELS multiplies an ELEM_TYPE's size: the row has none",
       f.args[0][1].role = CT_ROLE_CHANNELS)
DEFECT(elements_unsized, -EINVAL,
       "plugin toy: row 0 (toyMalloc): CT_ROLE_ELEMENTS without an element's size (ELEM_TYPE or ELEM_BITS)",
       f.args[0][1].role = CT_ROLE_ELEMENTS)
DEFECT(levels_without_elements, -EINVAL,
       "plugin toy: row 0 (toyMalloc): mipmap levels of no array: CT_ROLE_LEVELS without CT_ROLE_ELEMENTS",
       f.args[0][1].role = CT_ROLE_LEVELS)
DEFECT(bits_shown, 0, "", f.args[2][2].role = CT_ROLE_ELEM_BITS)
DEFECT(retain_alloc, -EINVAL, "plugin toy: row 0 (toyMalloc): CT_API_RETAIN is neither an allocation nor a free",
       f.apis[0].flags |= CT_API_RETAIN)
DEFECT(free_without_ptr, -EINVAL, "plugin toy: row 1 (toyMemcpy): a free or retain without CT_ROLE_FREE_PTR",
       f.apis[1].flags = CT_API_DEV_FREE)
DEFECT(elem_sizes_missing, -EINVAL,
       "plugin toy: row 1 (toyMemcpy): arg 3 (kind): a CT_ROLE_ELEM_TYPE argument without elem_sizes",
       f.args[1][3].role = CT_ROLE_ELEM_TYPE)
DEFECT(elem_sizes_role, -EINVAL,
       "plugin toy: row 1 (toyMemcpy): arg 3 (kind): elem_sizes belong to an enum argument of role CT_ROLE_ELEM_TYPE",
       f.args[1][3].elem_sizes = &sizes_zero)
DEFECT(elem_sizes_unsorted, -EINVAL,
       "plugin toy: row 1 (toyMemcpy): arg 3 (kind): elem_sizes is not sorted: entry 1 (value 0) comes after 1",
       f.args[1][3].role = CT_ROLE_ELEM_TYPE; f.args[1][3].elem_sizes = &sizes_unsorted)
DEFECT(elem_sizes_zero, -EINVAL,
       "plugin toy: row 1 (toyMemcpy): arg 3 (kind): elem_sizes entry 1 (value 1) has no size",
       f.args[1][3].role = CT_ROLE_ELEM_TYPE; f.args[1][3].elem_sizes = &sizes_zero)
DEFECT(elem_sizes_empty, -EINVAL,
       "plugin toy: row 1 (toyMemcpy): arg 3 (kind): elem_sizes has 0 entries (1 to 65536, readable)",
       f.args[1][3].role = CT_ROLE_ELEM_TYPE; f.args[1][3].elem_sizes = &sizes_empty)
DEFECT(enum_names, -EINVAL, "plugin toy: row 1 (toyMemcpy): arg 3 (kind): an enum without names",
       f.args[1][3].names = NULL)
DEFECT(enum_count, -EINVAL,
       "plugin toy: row 1 (toyMemcpy): arg 3 (kind): names has 1048576 entries, more than 65536",
       f.kinds.n = 1u << 20)
DEFECT(enum_unsorted, -EINVAL,
       "plugin toy: row 1 (toyMemcpy): arg 3 (kind): names is not sorted: entry 1 (toDevice = -1) "
       "comes after toHost = 0",
       f.kind_v[1].value = -1)
DEFECT(enum_name, -EINVAL, "plugin toy: row 1 (toyMemcpy): arg 3 (kind): names entry 0 (value 0) is empty",
       f.kind_v[0].name = "")
DEFECT(count_from, -EINVAL,
       "plugin toy: row 2 (toyLaunch): arg 3 (sizes): count_from 3 does not name an earlier argument",
       f.args[2][3].count_from = 3)

static void test_head(void **state)
{
	/* ABI 1 and 2 began with a 32-bit abi_version and a 32-bit sz. */
	static const uint32_t abi2[32] = { 2, 96 };
	char want[512];
	struct fx f;

	fx_init(&f);
	f.p.abi_version = 2;
	snprintf(want, sizeof(want), "it was built for plugin ABI 2, but this cudatracer (%s) speaks ABI 3: "
		 "rebuild the plugin against this cudatracer's headers (pkg-config --cflags cudatracer)",
		 CT_VERSION);
	expect(&f.p, -EPROTO, want);
	expect((const struct ct_plugin *)abi2, -EPROTO, want);
	fx_init(&f);
	f.p.sz = 16;
	snprintf(want, sizeof(want), "its descriptor is 16 bytes, smaller than the %zu this ABI requires: "
		 "rebuild the plugin against this cudatracer's headers", (size_t)CT_PLUGIN_MIN_SZ);
	expect(&f.p, -EPROTO, want);
	f.p.sz = 1u << 20;
	expect(&f.p, -EPROTO, "its descriptor says it is 1048576 bytes, which cannot be read");
	expect(unreadable(), -EPROTO, "its descriptor is at unreadable memory");
}

/* A descriptor from a newer cudatracer: its fields past ours must be zero. */
static void test_tail(void **state)
{
	struct {
		struct ct_plugin p;
		unsigned char newer[16];
	} big;
	char want[512];
	struct fx f;

	fx_init(&f);
	memset(&big, 0, sizeof(big));
	big.p = f.p;
	big.p.sz = sizeof(big);
	expect(&big.p, 0, "");
	big.newer[3] = 1;
	snprintf(want, sizeof(want), "its descriptor is %zu bytes, and byte %zu, past the %zu this "
		 "cudatracer (%s) knows, is not zero: it needs a newer cudatracer",
		 sizeof(big), sizeof(big.p) + 3, sizeof(big.p), CT_VERSION);
	expect(&big.p, -E2BIG, want);
}

/* An older descriptor, without the optional hook: accepted, the hook read as none. */
static void test_older_descriptor(void **state)
{
	struct fx f;
	struct ct_plugin *d;

	fx_init(&f);
	f.p.sz = CT_PLUGIN_MIN_SZ;
	f.p.bpf_hook = "garbage past the plugin's descriptor";
	expect(&f.p, 0, "");
	d = ct_plugin_expand(&f.p);
	assert_non_null(d);
	assert_null(d->bpf_hook);
	assert_int_equal(d->sz, sizeof(*d));
	free(d);
}

/* Variants become APIs of their own, right after their row, same layout. */
static void test_expand(void **state)
{
	static const char *const want[] = { "toyMalloc", "toyMemcpy", "toyMemcpy_ptds", "toyLaunch", "toyCreate" };
	struct ct_plugin *d;
	struct fx f;

	fx_init(&f);
	d = ct_plugin_expand(&f.p);
	assert_non_null(d);
	assert_int_equal(d->n_apis, 5);
	for (size_t i = 0; i < d->n_apis; i++) {
		assert_string_equal(d->apis[i].symbol, want[i]);
		assert_int_equal(d->apis[i].n_variants, 0);
	}
	assert_ptr_equal(d->apis[2].args, f.apis[1].args);
	assert_int_equal(d->apis[2].n_args, 4);
	assert_int_equal(d->apis[2].flags, CT_API_COPY);
	assert_string_equal(d->name, "toy");
	expect(d, 0, "");
	free(d);
}

/* Generated rows come after the hand-written ones; one whose symbol (or a
 * variant's) the hand-written table has is left out; a generated table
 * that names a symbol twice is refused. */
static void test_generated_rows(void **state)
{
	static const char *const want[] = { "toyMalloc", "toyMemcpy", "toyMemcpy_ptds", "toyLaunch", "toyCreate",
					    "toySync", "toyReset" };
	struct ct_api gen[4] = {
		CT_API("toySync", CT_API_GENERATED),
		CT_API("toyMemcpy_ptds", CT_API_GENERATED), /* the hand-written row's variant */
		CT_API("toyMalloc", CT_API_GENERATED),
		CT_API("toyReset", CT_API_GENERATED | CT_API_HOT),
	};
	struct ct_plugin *d;
	struct fx f;

	fx_init(&f);
	f.p.gen_apis = gen;
	f.p.n_gen_apis = 4;
	expect(&f.p, 0, "");
	d = ct_plugin_expand(&f.p);
	assert_non_null(d);
	assert_int_equal(d->n_apis, 7);
	for (size_t i = 0; i < d->n_apis; i++)
		assert_string_equal(d->apis[i].symbol, want[i]);
	assert_int_equal(d->apis[2].flags, CT_API_COPY); /* the hand-written variant stays */
	assert_int_equal(d->apis[6].flags, CT_API_GENERATED | CT_API_HOT);
	assert_null(d->gen_apis);
	expect(d, 0, "");
	free(d);
	gen[2] = (struct ct_api)CT_API("toySync", CT_API_GENERATED);
	expect(&f.p, -EINVAL, "plugin toy: generated row 2 (toySync): symbol toySync is already traced by generated row 0");
	f.p.n_gen_apis = 0;
	expect(&f.p, -EINVAL, "plugin toy: gen_apis and n_gen_apis disagree (a table, 0 rows)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_rows),
		cmocka_unit_test(test_good_table),
		cmocka_unit_test(test_name_null), cmocka_unit_test(test_name_chars),
		cmocka_unit_test(test_name_long), cmocka_unit_test(test_name_wild),
		cmocka_unit_test(test_version_empty), cmocka_unit_test(test_no_libraries),
		cmocka_unit_test(test_many_libraries), cmocka_unit_test(test_libraries_null),
		cmocka_unit_test(test_library_null), cmocka_unit_test(test_library_path),
		cmocka_unit_test(test_no_apis), cmocka_unit_test(test_many_apis),
		cmocka_unit_test(test_apis_null), cmocka_unit_test(test_apis_wild),
		cmocka_unit_test(test_errors_count), cmocka_unit_test(test_errors_wild),
		cmocka_unit_test(test_errors_name), cmocka_unit_test(test_errors_unsorted),
		cmocka_unit_test(test_hook),
		cmocka_unit_test(test_symbol_null), cmocka_unit_test(test_symbol_chars),
		cmocka_unit_test(test_symbol_wild), cmocka_unit_test(test_flags),
		cmocka_unit_test(test_entry_only_at_entry), cmocka_unit_test(test_entry_only_exit_read),
		cmocka_unit_test(test_entry_only_ret),
		cmocka_unit_test(test_result), cmocka_unit_test(test_str_slot),
		cmocka_unit_test(test_n_args), cmocka_unit_test(test_args_null),
		cmocka_unit_test(test_args_wild), cmocka_unit_test(test_n_reads),
		cmocka_unit_test(test_n_variants), cmocka_unit_test(test_variant_null),
		cmocka_unit_test(test_variant_chars), cmocka_unit_test(test_err_arg_range),
		cmocka_unit_test(test_err_arg_kind), cmocka_unit_test(test_err_arg_negative),
		cmocka_unit_test(test_duplicate), cmocka_unit_test(test_duplicate_variant),
		cmocka_unit_test(test_read_slot), cmocka_unit_test(test_read_phase),
		cmocka_unit_test(test_read_words), cmocka_unit_test(test_read_past),
		cmocka_unit_test(test_size_role_twice),
		cmocka_unit_test(test_size_role_kind),
		cmocka_unit_test(test_channels_untyped),
		cmocka_unit_test(test_elements_unsized),
		cmocka_unit_test(test_levels_without_elements),
		cmocka_unit_test(test_bits_shown),
		cmocka_unit_test(test_retain_alloc),
		cmocka_unit_test(test_free_without_ptr),
		cmocka_unit_test(test_elem_sizes_missing), cmocka_unit_test(test_elem_sizes_role),
		cmocka_unit_test(test_elem_sizes_unsorted), cmocka_unit_test(test_elem_sizes_zero),
		cmocka_unit_test(test_elem_sizes_empty),
		cmocka_unit_test(test_arg_name), cmocka_unit_test(test_arg_twice),
		cmocka_unit_test(test_kind), cmocka_unit_test(test_area), cmocka_unit_test(test_role),
		cmocka_unit_test(test_size), cmocka_unit_test(test_dim3_size),
		cmocka_unit_test(test_sizes3_size), cmocka_unit_test(test_slot_past),
		cmocka_unit_test(test_dim3_past), cmocka_unit_test(test_slot_unaligned),
		cmocka_unit_test(test_slot_straddled), cmocka_unit_test(test_slot_field),
		cmocka_unit_test(test_mem_past), cmocka_unit_test(test_mem_unread),
		cmocka_unit_test(test_ret_past), cmocka_unit_test(test_string_area),
		cmocka_unit_test(test_string_slot), cmocka_unit_test(test_enum_names),
		cmocka_unit_test(test_enum_count), cmocka_unit_test(test_enum_unsorted),
		cmocka_unit_test(test_enum_name), cmocka_unit_test(test_count_from),
		cmocka_unit_test(test_head), cmocka_unit_test(test_tail),
		cmocka_unit_test(test_older_descriptor), cmocka_unit_test(test_expand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
