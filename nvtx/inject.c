// SPDX-License-Identifier: MIT
/*
 * libcudatracer-nvtx.so, the NVTX injection: NVTX v3 (header-only) loads
 * the library NVTX_INJECTION64_PATH names at a process's first NVTX call
 * and calls InitializeInjectionNvtx2(), which fills NVTX's callback tables
 * (nvtx3/nvtxDetail/nvtxImpl.h). Each callback turns what it got (ASCII,
 * wide, registered string, event attributes) into one bounded UTF-8 name
 * and calls one of the empty exported functions of ct_nvtx.h, which the
 * tracer probes (or, --engine inproc, interposes: called through the PLT,
 * so a preloaded stub of the same name comes first). With no tracer those
 * calls cost a call each.
 *
 * Nothing here keeps the ranges: the tracer does, from the calls' order on
 * each thread. What is kept is what NVTX leaves to the injection: the
 * strings and domains it registered (handles are ours), the ids of
 * start/end ranges, and each thread's push depth (what push/pop return).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <nvtx3/nvToolsExt.h>
#include "ct_nvtx.h"

#define EXPORT __attribute__((visibility("default")))

/*
 * The probed functions: empty, a 5-byte nop and a return, in assembly so
 * that no compiler makes one a bare `ret`. The uprobe sits on the first
 * instruction: x86-64 kernels take a nop at a probe without a single step
 * out of line (from 6.17 they turn it into a call, no trap), where a `ret`
 * is single-stepped, one more trap: a pair 4.0 µs on the 2-core VM, 14.4
 * with `push %rbp` first, 26-30 with a `ret` (docs/nvtx.md).
 */
#define PROBED(name)                                                    \
	__asm__(".pushsection .text\n.globl " #name "\n.type " #name ", @function\n"   \
		".p2align 4\n" #name ":\n"                                  \
		"\t.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\tret\n"               \
		".size " #name ", . - " #name "\n.popsection\n")
PROBED(ct_nvtx_domain);
PROBED(ct_nvtx_push);
PROBED(ct_nvtx_pop);
PROBED(ct_nvtx_start);
PROBED(ct_nvtx_end);
PROBED(ct_nvtx_mark);

/* A name as sent: UTF-8, cut at a character's start to fit. */
struct name {
	char s[CT_NVTX_NAME_MAX];
	uint32_t flags;
};

/* A registered string or a domain: the handle NVTX hands back is ours. */
struct registered {
	struct name n;
	struct registered *next; /* every one kept, reachable from `kept` */
};

static void from_ascii(struct name *n, const char *s)
{
	size_t len = s ? strnlen(s, sizeof(n->s)) : 0;

	n->flags = 0;
	if (len == sizeof(n->s)) {
		len = sizeof(n->s) - 1;
		while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--; /* not in the middle of a UTF-8 sequence */
		n->flags = CT_NVTX_CUT;
	}
	memcpy(n->s, s ? s : "", len);
	n->s[len] = 0;
}

/* wchar_t is UTF-32 on Linux; a value that is no character becomes U+FFFD. */
static void from_wide(struct name *n, const wchar_t *w)
{
	size_t len = 0;

	n->flags = 0;
	for (; w && *w; w++) {
		uint32_t c = (uint32_t)*w;
		char u[4];
		size_t k;

		if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			c = 0xfffd;
		if (c < 0x80) {
			u[0] = (char)c;
			k = 1;
		} else if (c < 0x800) {
			u[0] = (char)(0xc0 | c >> 6);
			u[1] = (char)(0x80 | (c & 0x3f));
			k = 2;
		} else if (c < 0x10000) {
			u[0] = (char)(0xe0 | c >> 12);
			u[1] = (char)(0x80 | (c >> 6 & 0x3f));
			u[2] = (char)(0x80 | (c & 0x3f));
			k = 3;
		} else {
			u[0] = (char)(0xf0 | c >> 18);
			u[1] = (char)(0x80 | (c >> 12 & 0x3f));
			u[2] = (char)(0x80 | (c >> 6 & 0x3f));
			u[3] = (char)(0x80 | (c & 0x3f));
			k = 4;
		}
		if (len + k > sizeof(n->s) - 1) {
			n->flags = CT_NVTX_CUT;
			break;
		}
		memcpy(n->s + len, u, k);
		len += k;
	}
	n->s[len] = 0;
}

/* An event's message, whichever of its three kinds it is; "" when none. */
static void from_attr(struct name *n, const nvtxEventAttributes_t *a)
{
	const struct registered *r;

	if (!a || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof(a->message)) {
		from_ascii(n, NULL);
		return;
	}
	switch (a->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		from_ascii(n, a->message.ascii);
		return;
	case NVTX_MESSAGE_TYPE_UNICODE:
		from_wide(n, a->message.unicode);
		return;
	case NVTX_MESSAGE_TYPE_REGISTERED:
		r = (const struct registered *)a->message.registered;
		if (r) {
			*n = r->n;
			return;
		}
		break;
	}
	from_ascii(n, NULL);
}

#define DOMAIN_ID(d) ((uint64_t)(uintptr_t)(d))

static _Thread_local int depth;
static atomic_uint_least64_t next_id = 1;

static int push(nvtxDomainHandle_t d, const struct name *n)
{
	ct_nvtx_push(DOMAIN_ID(d), n->s, n->flags);
	return depth++;
}

static int pop(nvtxDomainHandle_t d)
{
	ct_nvtx_pop(DOMAIN_ID(d));
	if (!depth)
		return -1; /* as NVTX says of a pop with no push */
	return --depth;
}

static nvtxRangeId_t start(nvtxDomainHandle_t d, const struct name *n)
{
	nvtxRangeId_t id = atomic_fetch_add(&next_id, 1);

	ct_nvtx_start(DOMAIN_ID(d), n->s, n->flags, id);
	return id;
}

static void mark(nvtxDomainHandle_t d, const struct name *n)
{
	ct_nvtx_mark(DOMAIN_ID(d), n->s, n->flags);
}

/* Registered strings and domains live as long as the process: NVTX has no
 * call that frees a string, and a destroyed domain's handle may still be in
 * a range the tracer has open. NULL (no memory) is NVTX's "none". */
static struct registered *_Atomic kept;

static struct registered *keep(const struct name *n)
{
	struct registered *r = malloc(sizeof(*r));

	if (!r)
		return NULL;
	r->n = *n;
	/* Listed, so that they are never taken for lost (LeakSanitizer). */
	r->next = atomic_load(&kept);
	while (!atomic_compare_exchange_weak(&kept, &r->next, r))
		;
	return r;
}

static nvtxDomainHandle_t domain_create(const struct name *n)
{
	struct registered *r = keep(n);

	if (r)
		ct_nvtx_domain(DOMAIN_ID(r), r->n.s, r->n.flags);
	return (nvtxDomainHandle_t)r;
}

/*
 * The callbacks, one per NVTX entry point (nvtxDetail/nvtxTypes.h's ids):
 * each form of a message (A: ASCII, W: wide, Ex: event attributes) made
 * into a name, then one call. `d` is the domain (NULL: the default one).
 */
#define NAMED(fn, type, from, arg_t, ...)        \
	static type fn(__VA_ARGS__ arg_t m)      \
	{                                        \
		struct name n;                   \
		from(&n, m);                     \
		BODY_##fn;                       \
	}
#define BODY_markA mark(NULL, &n)
#define BODY_markW BODY_markA
#define BODY_markEx BODY_markA
#define BODY_startA return start(NULL, &n)
#define BODY_startW BODY_startA
#define BODY_startEx BODY_startA
#define BODY_pushA return push(NULL, &n)
#define BODY_pushW BODY_pushA
#define BODY_pushEx BODY_pushA
#define BODY_domainMarkEx mark(d, &n)
#define BODY_domainStartEx return start(d, &n)
#define BODY_domainPushEx return push(d, &n)
#define BODY_registerA return (void)d, (nvtxStringHandle_t)keep(&n)
#define BODY_registerW BODY_registerA
#define BODY_domainCreateA return domain_create(&n)
#define BODY_domainCreateW BODY_domainCreateA
typedef const nvtxEventAttributes_t *attr_t;
NAMED(markA, void, from_ascii, const char *)
NAMED(markW, void, from_wide, const wchar_t *)
NAMED(markEx, void, from_attr, attr_t)
NAMED(startA, nvtxRangeId_t, from_ascii, const char *)
NAMED(startW, nvtxRangeId_t, from_wide, const wchar_t *)
NAMED(startEx, nvtxRangeId_t, from_attr, attr_t)
NAMED(pushA, int, from_ascii, const char *)
NAMED(pushW, int, from_wide, const wchar_t *)
NAMED(pushEx, int, from_attr, attr_t)
NAMED(domainMarkEx, void, from_attr, attr_t, nvtxDomainHandle_t d,)
NAMED(domainStartEx, nvtxRangeId_t, from_attr, attr_t, nvtxDomainHandle_t d,)
NAMED(domainPushEx, int, from_attr, attr_t, nvtxDomainHandle_t d,)
NAMED(registerA, nvtxStringHandle_t, from_ascii, const char *, nvtxDomainHandle_t d,)
NAMED(registerW, nvtxStringHandle_t, from_wide, const wchar_t *, nvtxDomainHandle_t d,)
NAMED(domainCreateA, nvtxDomainHandle_t, from_ascii, const char *)
NAMED(domainCreateW, nvtxDomainHandle_t, from_wide, const wchar_t *)

static void end(nvtxRangeId_t id)
{
	ct_nvtx_end(0, id);
}

static void domainEnd(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	ct_nvtx_end(DOMAIN_ID(d), id);
}

static int popDefault(void)
{
	return pop(NULL);
}

static int domainPop(nvtxDomainHandle_t d)
{
	return pop(d);
}

/* Data over code: which callback goes in which slot of which module. */
struct slot {
	NvtxCallbackModule module;
	unsigned id;
	NvtxFunctionPointer fn;
};

#define FN(f) ((NvtxFunctionPointer)(void (*)(void))(f))
static const struct slot slots[] = {
	{ NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkEx, FN(markEx) },
	{ NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkA, FN(markA) },
	{ NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkW, FN(markW) },
	{ NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartEx, FN(startEx) },
	{ NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartA, FN(startA) },
	{ NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartW, FN(startW) },
	{ NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeEnd, FN(end) },
	{ NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx, FN(pushEx) },
	{ NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, FN(pushA) },
	{ NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushW, FN(pushW) },
	{ NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, FN(popDefault) },
	{ NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainMarkEx, FN(domainMarkEx) },
	{ NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeStartEx, FN(domainStartEx) },
	{ NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeEnd, FN(domainEnd) },
	{ NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx, FN(domainPushEx) },
	{ NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, FN(domainPop) },
	{ NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringA, FN(registerA) },
	{ NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringW, FN(registerW) },
	{ NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA, FN(domainCreateA) },
	{ NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateW, FN(domainCreateW) },
};

/* Called by NVTX once per process. Returning 0 would tell NVTX to turn
 * itself off; a slot NVTX's table does not have (an older NVTX) is left. */
EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
	const NvtxExportTableCallbacks *cb = get ? get(NVTX_ETID_CALLBACKS) : NULL;

	if (!cb || cb->struct_size < offsetof(NvtxExportTableCallbacks, GetModuleFunctionTable) +
					     sizeof(cb->GetModuleFunctionTable) || !cb->GetModuleFunctionTable)
		return 0;
	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++) {
		NvtxFunctionTable table = NULL;
		unsigned int last = 0;

		if (!cb->GetModuleFunctionTable(slots[i].module, &table, &last) || !table || slots[i].id > last)
			continue;
		if (table[slots[i].id])
			*table[slots[i].id] = slots[i].fn;
	}
	return 1;
}
