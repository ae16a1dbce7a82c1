/* SPDX-License-Identifier: MIT */
/*
 * cudatracer plugin ABI.
 *
 * A runtime plugin is a shared object that exports one function,
 * CT_PLUGIN_ENTRY_SYMBOL, returning a `struct ct_plugin`. The plugin is
 * mostly data: the list of APIs it traces, how each argument is found at
 * the probe and decoded, the runtime's error names, and the BPF object
 * (built from bpf/<plugin>.bpf.c, which includes bpf/capture.bpf.h).
 *
 * Stability rules:
 *  - the core reads `abi_version` and `sz` before anything else and refuses
 *    a plugin whose abi_version differs from CT_ABI_VERSION;
 *  - new fields are only ever appended to struct ct_plugin; the core reads a
 *    field only if the plugin's `sz` covers it (as libbpf does with opts);
 *  - any change to the other structs below bumps CT_ABI_VERSION.
 */
#ifndef CUDATRACER_PLUGIN_H
#define CUDATRACER_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <cudatracer/record.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CT_ABI_VERSION 2
#define CT_PLUGIN_ENTRY_SYMBOL "cudatracer_plugin_entry"

/* One value -> name pair; tables are sorted by value (generated, see tools/). */
struct ct_enum_entry {
	int64_t value;
	const char *name;
};

struct ct_enum {
	const struct ct_enum_entry *v;
	size_t n;
};

/* How an argument's raw bits are shown. */
enum ct_arg_kind {
	CT_ARG_INT = 1, /* signed integer of `size` bytes */
	CT_ARG_UINT,    /* unsigned integer */
	CT_ARG_HEX,     /* unsigned, shown in hex (flags) */
	CT_ARG_SIZE,    /* byte count */
	CT_ARG_PTR,     /* address */
	CT_ARG_HANDLE,  /* opaque handle (stream, event, context ...) */
	CT_ARG_ENUM,    /* value named from `names` */
	CT_ARG_DIM3,    /* three uint32 in a row: x, y, z */
	CT_ARG_STRING,  /* the record's string buffer */
	CT_ARG_FLOAT,   /* 32-bit float read from memory */
	CT_ARG_SIZES3,  /* up to three size_t in a row, count from `count_from` */
};

/* Where an argument's bits are in the record. */
enum ct_area {
	CT_AREA_ARGS = 1, /* rec->args: six argument registers then stack words */
	CT_AREA_MEM,      /* rec->mem: words copied by the API's reads */
	CT_AREA_STR,      /* rec->str */
	CT_AREA_RET,      /* rec->ret */
};

/*
 * What an argument means to runtime-agnostic sinks (summary, memory ...).
 * Sinks never look at API names, only at roles and API flags.
 */
enum ct_role {
	CT_ROLE_NONE = 0,
	CT_ROLE_BYTES,      /* size of an allocation, copy or set */
	CT_ROLE_ALLOC_PTR,  /* the pointer an allocation returned */
	CT_ROLE_FREE_PTR,   /* the pointer being freed */
	CT_ROLE_COPY_KIND,  /* direction of a copy (enum) */
	CT_ROLE_STREAM,
	CT_ROLE_DEVICE,
	CT_ROLE_KERNEL,     /* the kernel a launch runs (host stub or handle) */
	CT_ROLE_HANDLE_NEW, /* handle created by this call; named from rec->str */
	CT_ROLE_HANDLE_NAMED, /* handle whose name was seen at creation */
	CT_ROLE_HEIGHT,     /* rows of a 2D copy: bytes = BYTES * HEIGHT */
};

struct ct_arg {
	const char *name;
	uint8_t kind;   /* enum ct_arg_kind */
	uint8_t area;   /* enum ct_area */
	uint8_t off;    /* byte offset in the area */
	uint8_t size;   /* bytes: 1, 2, 4 or 8 (DIM3: 12) */
	uint8_t role;   /* enum ct_role */
	int8_t count_from; /* CT_ARG_SIZES3: index of the arg that holds the count */
	const struct ct_enum *names; /* CT_ARG_ENUM */
};

/* Argument slot n: registers rdi, rsi, rdx, rcx, r8, r9, then stack words. */
#define CT_SLOT(n) .area = CT_AREA_ARGS, .off = (uint8_t)((n) * 8)
#define CT_MEMW(n) .area = CT_AREA_MEM, .off = (uint8_t)((n) * 8)

/*
 * Row builders, so that a plugin's table reads as data and every plugin
 * (third-party ones too) builds rows the same way:
 *   CT_API("cuMemAlloc_v2", CT_API_DEV_ALLOC, .reads = { CT_OUT_WORD(0, 0) },
 *          CT_ARGS(CT_ARG("dptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
 *                  CT_ARG("bytesize", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES)))
 * CT_ARGS counts the arguments itself.
 */
#define CT_ARG(n, k, where, sz, r) \
	{ .name = n, .kind = k, where, .size = sz, .role = r, .count_from = -1 }
#define CT_ARGS(...) .args = { __VA_ARGS__ }, \
	.n_args = sizeof((struct ct_arg[]){ __VA_ARGS__ }) / sizeof(struct ct_arg)
#define CT_IN_STR .area = CT_AREA_STR, .off = 0
#define CT_IN_RET .area = CT_AREA_RET, .off = 0
#define CT_IN_MEM(byte) .area = CT_AREA_MEM, .off = (uint8_t)(byte)
/* The word an out-pointer argument in `slot` points to, copied after the call into mem[word]. */
#define CT_OUT_WORD(slot, word) { slot, CT_AT_EXIT, 1, word }
/* A call that returns an error code; with a C string read at entry from slot `str`. */
#define CT_API(sym, fl, ...) { .symbol = sym, .flags = fl, .result = CT_RES_ERROR, \
			       .err_arg = -1, .str_slot = CT_NO_STR, __VA_ARGS__ }
#define CT_API_STR(sym, fl, str, ...) { .symbol = sym, .flags = fl, .result = CT_RES_ERROR, \
					.err_arg = -1, .str_slot = str, __VA_ARGS__ }

/* A copy of user memory the BPF side makes for one API. */
enum ct_phase { CT_AT_ENTRY = 1, CT_AT_EXIT = 2 };

struct ct_read {
	uint8_t slot;  /* argument slot that holds the pointer */
	uint8_t phase; /* enum ct_phase; 0 = unused */
	uint8_t words; /* 8-byte words to copy */
	uint8_t dst;   /* first word in rec->mem */
};

/* API flags. */
#define CT_API_ENTRY_ONLY (1u << 0) /* emit at entry, no exit probe */
#define CT_API_HOT        (1u << 1) /* called very often: off in the default profile */
#define CT_API_ALLOC      (1u << 2)
#define CT_API_FREE       (1u << 3)
#define CT_API_COPY       (1u << 4)
#define CT_API_SET        (1u << 5)
#define CT_API_LAUNCH     (1u << 6)
#define CT_API_SYNC       (1u << 7)
#define CT_API_DEVICE_MEM (1u << 8) /* with ALLOC/FREE: device memory */
#define CT_API_HOST_MEM   (1u << 9) /* with ALLOC/FREE: pinned host memory */
#define CT_API_MANAGED_MEM (1u << 10)
#define CT_API_DEV_ALLOC (CT_API_ALLOC | CT_API_DEVICE_MEM)
#define CT_API_DEV_FREE (CT_API_FREE | CT_API_DEVICE_MEM)
#define CT_API_MOVES_BYTES (CT_API_COPY | CT_API_SET)

/* How the call's result is read. */
enum ct_result {
	CT_RES_ERROR = 0, /* low 32 bits of the return value are an error code */
	CT_RES_VOID,      /* nothing returned */
	CT_RES_HANDLE,    /* a handle is returned; the error code, if any, is `err_arg` */
};

#define CT_MAX_ARGS 12
#define CT_MAX_READS 4
#define CT_NO_STR 0xff

struct ct_api {
	const char *symbol;
	uint32_t flags;
	uint8_t result;   /* enum ct_result */
	int8_t err_arg;   /* CT_RES_HANDLE: index in args of the error code, or -1 */
	uint8_t str_slot; /* slot of a C string read at entry, or CT_NO_STR */
	uint8_t n_args;
	struct ct_read reads[CT_MAX_READS];
	struct ct_arg args[CT_MAX_ARGS];
};

/* What the core offers a plugin's hooks. */
struct ct_host {
	size_t sz;
	void (*log)(int level, const char *fmt, ...);
};

struct ct_event;

struct ct_plugin {
	uint32_t abi_version; /* CT_ABI_VERSION the plugin was built with */
	uint32_t sz;          /* sizeof(struct ct_plugin) the plugin was built with */
	const char *name;
	const char *version;
	const char *description;
	const char *const *libraries; /* library basenames to look for, NULL-terminated */
	const struct ct_api *apis;
	size_t n_apis;
	const struct ct_enum *errors; /* the runtime's error codes, by value */
	const char *success_name;     /* name of the "no error" value */
	const void *bpf_object;
	size_t bpf_object_sz;
	int (*init)(const struct ct_host *host, void **state);
	int (*decode)(void *state, const struct ct_record *r, struct ct_event *ev);
	void (*fini)(void *state);
};

typedef const struct ct_plugin *(*ct_plugin_entry_fn)(void);

/*
 * Export `desc` (a non-const struct ct_plugin) as the plugin's entry point,
 * with the BPF object embedded as the symbols <sym>_start and <sym>_end
 * (what the build's ct_add_plugin() produces as ct_bpf_<name>_start/_end).
 */
#define CT_PLUGIN_DEFINE(desc, sym)                                        \
	extern const char sym##_start[], sym##_end[];                         \
	__attribute__((visibility("default"))) const struct ct_plugin *       \
	cudatracer_plugin_entry(void)                                         \
	{                                                                     \
		(desc).bpf_object = sym##_start;                                  \
		(desc).bpf_object_sz = (size_t)(sym##_end - sym##_start);         \
		return &(desc);                                                   \
	}

#ifdef __cplusplus
}
#endif
#endif
