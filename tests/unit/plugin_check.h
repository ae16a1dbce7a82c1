/* SPDX-License-Identifier: MIT */
/*
 * Checks that hold for any runtime plugin's table, for the plugin unit tests:
 * load the built plugin as the core does (the loader runs the one validator,
 * core/plugin/validate.c, and expands variants), run the validator on the
 * plugin's own descriptor as well, then hold every API against the runtime
 * library it claims to trace and against what the sinks rely on. Included by
 * one test file each (static functions, cmocka asserts).
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
#include "plugin/loader.h"
#include "plugin/validate.h"

struct loaded_plugin {
	struct ct_loaded_plugin lp;
	void *runtime;
	const struct ct_plugin *p; /* as the core sees it: one API per symbol */
};

static void plugin_load(struct loaded_plugin *lp, const char *path, const char *runtime)
{
	char why[512];
	int err;

	assert_int_equal(ct_plugin_load(path, NULL, &lp->lp), 0);
	lp->p = lp->lp.p;
	err = ct_plugin_validate(lp->lp.raw, why, sizeof(why));
	if (err)
		fail_msg("%s: %s", path, why);
	assert_string_equal(why, "");
	/* Lazy: only the symbols' presence is asked for, nothing is called. */
	lp->runtime = dlopen(runtime, RTLD_LAZY | RTLD_LOCAL);
	if (!lp->runtime)
		fail_msg("dlopen %s: %s", runtime, dlerror());
}

static void plugin_unload(struct loaded_plugin *lp)
{
	if (lp->runtime)
		dlclose(lp->runtime);
	ct_plugin_unload(&lp->lp);
}

static bool has_role(const struct ct_api *a, enum ct_role role)
{
	for (size_t i = 0; i < a->n_args; i++)
		if (a->args[i].role == role)
			return true;
	return false;
}

/* What the validator cannot know: the runtime exports the symbol, and the
 * roles say what the sinks need. */
static void check_api(const struct loaded_plugin *lp, const struct ct_api *a)
{
	if (!dlsym(lp->runtime, a->symbol))
		fail_msg("%s is not exported by the runtime library", a->symbol);
	for (size_t i = 0; i < a->n_args; i++) {
		const struct ct_arg *g = &a->args[i];

		if (g->area == CT_AREA_RET && a->result != CT_RES_HANDLE)
			fail_msg("%s.%s: only a handle-returning API has a returned value",
				 a->symbol, g->name);
		if (g->role == CT_ROLE_HANDLE_NEW && a->str_slot == CT_NO_STR &&
		    !has_role(a, CT_ROLE_HANDLE_NAMED) && !has_role(a, CT_ROLE_KERNEL))
			fail_msg("%s.%s: a new handle with no name to take", a->symbol, g->name);
	}
	if (a->result == CT_RES_HANDLE && a->err_arg >= 0) {
		const struct ct_arg *e = &a->args[a->err_arg];

		if (e->names != lp->p->errors || e->area != CT_AREA_MEM)
			fail_msg("%s: err_arg must be an error enum read from memory", a->symbol);
	}
	/* What the runtime-agnostic sinks rely on. */
	if ((a->flags & CT_API_ALLOC) && (!has_role(a, CT_ROLE_ALLOC_PTR) ||
					  (!has_role(a, CT_ROLE_BYTES) && !has_role(a, CT_ROLE_ELEMENTS))))
		fail_msg("%s: an allocation needs ALLOC_PTR and a size (BYTES, or an array's ELEMENTS)",
			 a->symbol);
	if ((a->flags & CT_API_FREE) && !has_role(a, CT_ROLE_FREE_PTR))
		fail_msg("%s: a free needs FREE_PTR", a->symbol);
	if ((a->flags & CT_API_MOVES_BYTES) && !has_role(a, CT_ROLE_BYTES))
		fail_msg("%s: a copy or set needs BYTES", a->symbol);
}

/* The whole table: descriptor, errors, every API. */
static void check_plugin(const struct loaded_plugin *lp, const char *name, size_t n_apis)
{
	const struct ct_plugin *p = lp->p;
	size_t hand = 0;

	assert_int_equal(lp->lp.raw->abi_version, CT_ABI_VERSION);
	assert_int_equal(lp->lp.raw->sz, sizeof(struct ct_plugin));
	assert_null(lp->lp.raw->bpf_hook); /* tables only */
	assert_string_equal(p->name, name);
	assert_string_equal(p->version, CT_VERSION);
	assert_int_equal(p->n_libraries, 1);
	/* n_apis: the hand-written rows; the rest are generated from the header. */
	for (size_t i = 0; i < p->n_apis; i++)
		hand += !(p->apis[i].flags & CT_API_GENERATED);
	assert_int_equal(hand, n_apis);
	assert_true(p->n_apis > n_apis);
	assert_non_null(p->errors);
	assert_true(p->errors->n > 1);
	assert_string_equal(ct_enum_name(p->errors, 0), p->success_name);
	for (size_t i = 0; i < p->n_apis; i++) {
		assert_int_equal(p->apis[i].n_variants, 0); /* expanded by the loader */
		check_api(lp, &p->apis[i]);
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
	r->call = (uint32_t)(a - p->apis);
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
