/* SPDX-License-Identifier: MIT */
/*
 * Checks that hold for any runtime plugin's table, for the plugin unit tests:
 * load the built plugin as the core does, then hold every row against the
 * record layout and against the runtime library it claims to trace.
 * Included by one test file each (static functions, cmocka asserts).
 */
#ifndef CT_TEST_PLUGIN_CHECK_H
#define CT_TEST_PLUGIN_CHECK_H

#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <cudatracer/plugin.h>
#include "decode/decode.h"

struct loaded_plugin {
	void *so;
	void *runtime;
	const struct ct_plugin *p;
};

static void plugin_load(struct loaded_plugin *lp, const char *path, const char *runtime)
{
	ct_plugin_entry_fn entry;

	lp->so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lp->so)
		fail_msg("dlopen %s: %s", path, dlerror());
	entry = (ct_plugin_entry_fn)dlsym(lp->so, CT_PLUGIN_ENTRY_SYMBOL);
	assert_non_null(entry);
	lp->p = entry();
	assert_non_null(lp->p);
	/* Lazy: only the symbols' presence is asked for, nothing is called. */
	lp->runtime = dlopen(runtime, RTLD_LAZY | RTLD_LOCAL);
	if (!lp->runtime)
		fail_msg("dlopen %s: %s", runtime, dlerror());
}

static void plugin_unload(struct loaded_plugin *lp)
{
	if (lp->runtime)
		dlclose(lp->runtime);
	if (lp->so)
		dlclose(lp->so);
}

/* Which mem words the API's reads fill. */
static uint32_t mem_words_read(const struct ct_api *a)
{
	uint32_t m = 0;

	for (size_t i = 0; i < a->n_reads; i++) {
		const struct ct_read *r = &a->reads[i];

		for (int w = r->dst; w < r->dst + r->words && w < CT_REC_MEM; w++)
			m |= 1u << w;
	}
	return m;
}

static bool has_role(const struct ct_api *a, enum ct_role role)
{
	for (size_t i = 0; i < a->n_args; i++)
		if (a->args[i].role == role)
			return true;
	return false;
}

static void check_arg(const struct ct_api *a, int i, uint32_t mem)
{
	const struct ct_arg *g = &a->args[i];
	size_t size = g->kind == CT_ARG_DIM3 ? 12 : g->size;

	if (!g->name || !g->kind || g->kind > CT_ARG_SIZES3)
		fail_msg("%s arg %d: no name or bad kind", a->symbol, i);
	switch (g->area) {
	case CT_AREA_ARGS:
		if (g->off % 8 || g->off + size > CT_REC_ARGS * 8 || !size)
			fail_msg("%s.%s: slot outside the record", a->symbol, g->name);
		if (g->kind == CT_ARG_DIM3 && g->size != 12)
			fail_msg("%s.%s: a dim3 is 12 bytes", a->symbol, g->name);
		break;
	case CT_AREA_MEM: {
		size_t n = g->kind == CT_ARG_SIZES3 ? 24 : size;

		if (g->off + n > CT_REC_MEM * 8 || !n)
			fail_msg("%s.%s: outside rec->mem", a->symbol, g->name);
		for (size_t w = g->off / 8; w < (g->off + n + 7) / 8; w++)
			if (!(mem & (1u << w)))
				fail_msg("%s.%s: mem word %zu is not read", a->symbol, g->name, w);
		break;
	}
	case CT_AREA_STR:
		if (g->kind != CT_ARG_STRING || a->str_slot == CT_NO_STR)
			fail_msg("%s.%s: a string needs str_slot", a->symbol, g->name);
		break;
	case CT_AREA_RET:
		if (a->result != CT_RES_HANDLE || g->size != 8)
			fail_msg("%s.%s: only a handle-returning API has a returned value",
				 a->symbol, g->name);
		break;
	default:
		fail_msg("%s.%s: bad area %d", a->symbol, g->name, g->area);
	}
	if (g->kind == CT_ARG_ENUM && !g->names)
		fail_msg("%s.%s: enum without names", a->symbol, g->name);
	if (g->kind == CT_ARG_SIZES3 && (g->count_from < 0 || g->count_from >= i))
		fail_msg("%s.%s: count_from must name an earlier argument", a->symbol, g->name);
	if (g->role == CT_ROLE_HANDLE_NEW && a->str_slot == CT_NO_STR)
		fail_msg("%s.%s: a named handle needs the name read (str_slot)", a->symbol, g->name);
	for (int j = 0; j < i; j++)
		if (!strcmp(a->args[j].name, g->name))
			fail_msg("%s: two arguments named %s", a->symbol, g->name);
}

static void check_api(const struct loaded_plugin *lp, const struct ct_api *a)
{
	uint32_t mem = mem_words_read(a);

	if (!dlsym(lp->runtime, a->symbol))
		fail_msg("%s is not exported by the runtime library", a->symbol);
	assert_true(a->n_args <= CT_MAX_ARGS);
	assert_true(a->result <= CT_RES_HANDLE);
	if (a->str_slot != CT_NO_STR && a->str_slot >= CT_REC_ARGS)
		fail_msg("%s: str_slot %d out of range", a->symbol, a->str_slot);
	assert_true(a->n_reads <= CT_MAX_READS);
	for (size_t i = 0; i < a->n_reads; i++) {
		const struct ct_read *r = &a->reads[i];

		if (r->slot >= CT_REC_ARGS || !r->words || r->dst + r->words > CT_REC_MEM ||
		    r->phase > CT_AT_EXIT)
			fail_msg("%s: read %zu out of range", a->symbol, i);
	}
	for (size_t i = 0; i < a->n_args; i++)
		check_arg(a, (int)i, mem);
	if (a->result == CT_RES_HANDLE && a->err_arg >= 0) {
		const struct ct_arg *e;

		assert_true((size_t)a->err_arg < a->n_args);
		e = &a->args[a->err_arg];
		if (e->kind != CT_ARG_ENUM || e->names != lp->p->errors || e->area != CT_AREA_MEM)
			fail_msg("%s: err_arg must be an error enum read from memory", a->symbol);
	}
	/* What the runtime-agnostic sinks rely on. */
	if ((a->flags & CT_API_ALLOC) && (!has_role(a, CT_ROLE_ALLOC_PTR) || !has_role(a, CT_ROLE_BYTES)))
		fail_msg("%s: an allocation needs ALLOC_PTR and BYTES", a->symbol);
	if ((a->flags & CT_API_FREE) && !has_role(a, CT_ROLE_FREE_PTR))
		fail_msg("%s: a free needs FREE_PTR", a->symbol);
	if ((a->flags & (CT_API_COPY | CT_API_SET)) && !has_role(a, CT_ROLE_BYTES))
		fail_msg("%s: a copy or set needs BYTES", a->symbol);
}

/* The whole table: descriptor, BPF object, errors, every row. */
static void check_plugin(const struct loaded_plugin *lp, const char *name, size_t n_apis)
{
	const struct ct_plugin *p = lp->p;

	assert_int_equal(p->abi_version, CT_ABI_VERSION);
	assert_int_equal(p->sz, sizeof(struct ct_plugin));
	assert_string_equal(p->name, name);
	assert_non_null(p->libraries);
	assert_int_equal(p->n_libraries, 1);
	assert_non_null(p->libraries[0]);
	assert_int_equal(p->n_apis, n_apis);

	assert_non_null(p->errors);
	assert_true(p->errors->n > 1);
	for (size_t i = 1; i < p->errors->n; i++)
		if (p->errors->v[i - 1].value >= p->errors->v[i].value)
			fail_msg("errors not sorted at %s", p->errors->v[i].name);
	assert_string_equal(ct_enum_name(p->errors, 0), p->success_name);

	for (size_t i = 0; i < p->n_apis; i++) {
		check_api(lp, &p->apis[i]);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(p->apis[i].symbol, p->apis[j].symbol))
				fail_msg("%s listed twice", p->apis[i].symbol);
	}
}

static const struct ct_api *find_api(const struct ct_plugin *p, const char *symbol)
{
	for (size_t i = 0; i < p->n_apis; i++)
		if (!strcmp(p->apis[i].symbol, symbol))
			return &p->apis[i];
	fail_msg("%s is not in the table", symbol);
	return NULL;
}

static __attribute__((unused)) const struct ct_arg *find_arg(const struct ct_api *a, const char *name)
{
	for (size_t i = 0; i < a->n_args; i++)
		if (!strcmp(a->args[i].name, name))
			return &a->args[i];
	fail_msg("%s has no argument %s", a->symbol, name);
	return NULL;
}

/*
 * Calling convention check without BPF: ct_test_capture stands in for a
 * runtime function. A test calls it through a pointer of the real function's
 * type, so the compiler lays the arguments out as the ABI says; it stores the
 * six argument registers and six stack words as the capture engine does, and
 * capture_record() then makes the record the engine would have sent, reads
 * included, for ct_decode().
 */
__attribute__((visibility("hidden"))) uint64_t ct_test_regs[CT_REC_ARGS];
__attribute__((visibility("hidden"))) uint64_t ct_test_ret;
extern const char ct_test_capture[]; /* code, declared as bytes: only ever cast */
__asm__(".text\n"
	".globl ct_test_capture\n"
	".hidden ct_test_capture\n"
	".type ct_test_capture, @function\n"
	"ct_test_capture:\n"
	"	movq %rdi, ct_test_regs+0(%rip)\n"
	"	movq %rsi, ct_test_regs+8(%rip)\n"
	"	movq %rdx, ct_test_regs+16(%rip)\n"
	"	movq %rcx, ct_test_regs+24(%rip)\n"
	"	movq %r8, ct_test_regs+32(%rip)\n"
	"	movq %r9, ct_test_regs+40(%rip)\n"
	"	movq 8(%rsp), %rax\n	movq %rax, ct_test_regs+48(%rip)\n"
	"	movq 16(%rsp), %rax\n	movq %rax, ct_test_regs+56(%rip)\n"
	"	movq 24(%rsp), %rax\n	movq %rax, ct_test_regs+64(%rip)\n"
	"	movq 32(%rsp), %rax\n	movq %rax, ct_test_regs+72(%rip)\n"
	"	movq 40(%rsp), %rax\n	movq %rax, ct_test_regs+80(%rip)\n"
	"	movq 48(%rsp), %rax\n	movq %rax, ct_test_regs+88(%rip)\n"
	"	movq ct_test_ret(%rip), %rax\n"
	"	ret\n"
	".size ct_test_capture, .-ct_test_capture\n");

/* ct_test_capture as a pointer to the runtime function `fn`: call it to capture. */
#define AS(fn) ((__typeof__(fn) *)(void *)ct_test_capture)

/*
 * As the BPF engine does: whole 8-byte words, whatever the C type behind the
 * pointer (an int out-parameter is read with its neighbour, and the table's
 * size picks the int). Byte by byte and unsanitized, since that neighbour is
 * outside the object as ASan sees it.
 */
__attribute__((no_sanitize("address")))
static void copy_words(void *dst, const void *src, size_t n)
{
	const volatile unsigned char *s = src;
	unsigned char *d = dst;

	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
}

static void capture_reads(const struct ct_api *a, uint8_t phase, struct ct_record *r)
{
	for (size_t i = 0; i < a->n_reads; i++) {
		const struct ct_read *rd = &a->reads[i];
		const void *src = (const void *)(uintptr_t)r->args[rd->slot];

		if (rd->phase != phase)
			continue;
		if (!src)
			r->flags |= CT_REC_READ_FAIL;
		else
			copy_words(&r->mem[rd->dst], src, rd->words * 8);
	}
}

/* The record for the call just made to ct_test_capture, decoded. */
static void capture_decode(const struct ct_plugin *p, const char *symbol, struct ct_record *r,
			   struct ct_event *ev)
{
	const struct ct_api *a = find_api(p, symbol);

	memset(r, 0, sizeof(*r));
	r->api = (uint32_t)(a - p->apis);
	memcpy(r->args, ct_test_regs, sizeof(r->args));
	r->ret = ct_test_ret;
	capture_reads(a, CT_AT_ENTRY, r);
	if (a->str_slot != CT_NO_STR && r->args[a->str_slot]) {
		strncpy(r->str, (const char *)(uintptr_t)r->args[a->str_slot], sizeof(r->str) - 1);
		r->flags |= CT_REC_HAS_STR;
	}
	capture_reads(a, CT_AT_EXIT, r);
	assert_int_equal(ct_decode(p, r, 0, ev), 0);
}

static const struct ct_field *field(const struct ct_event *ev, const char *name)
{
	for (int i = 0; i < ev->n_fields; i++)
		if (!strcmp(ev->fields[i].arg->name, name))
			return &ev->fields[i];
	fail_msg("%s has no field %s", ev->api->symbol, name);
	return NULL;
}

/* A name the decoder gave, compared without trusting it to be non-NULL. */
static void assert_name(const char *got, const char *want)
{
	if (!got || strcmp(got, want))
		fail_msg("want %s, got %s", want, got ? got : "no name");
}

/* The field's value as the event shows it: numbers, pointers and handles. */
static uint64_t fv(const struct ct_event *ev, const char *name)
{
	const struct ct_field *f = field(ev, name);

	if (!f->valid)
		fail_msg("%s.%s is not valid", ev->api->symbol, name);
	return f->v;
}

#endif
