/* SPDX-License-Identifier: MIT */
/*
 * cudatracer plugin ABI 3.
 *
 * A runtime plugin is a shared object that exports one function,
 * CT_PLUGIN_ENTRY_SYMBOL, returning a `struct ct_plugin`: tables only. The
 * list of APIs it traces, where each argument is found when the probe fires
 * and how it is shown, the runtime's error names, the libraries to look
 * for. The capture engine is the core's (one BPF object for every plugin of
 * a session); nothing of its internals (maps, programs, counters, the record
 * layout) is part of this ABI. A plugin built from this header needs a C
 * compiler and nothing else.
 *
 * Where a table cannot say what to capture, a plugin may also carry a small
 * BPF object written against <cudatracer/hook.bpf.h> (`bpf_hook`): the core
 * combines it with its engine at load (docs/plugins.md).
 *
 * Stability rules (libbpf's opts rule):
 *  - `sz` and `abi_version` come first; the core reads them before anything
 *    else and refuses a plugin whose abi_version is not CT_ABI_VERSION;
 *  - fields are only ever appended to struct ct_plugin; the core reads a
 *    field only if the plugin's `sz` covers it, and refuses a descriptor
 *    larger than its own whose unknown tail bytes are not all zero;
 *  - any change to the other structs below bumps CT_ABI_VERSION;
 *  - every array is a pointer and a count; the core validates every row
 *    (counts, names, slots, sizes, enum tables, duplicate symbols) before it
 *    uses the table, and names the plugin, the row and the field it refuses.
 */
#ifndef CUDATRACER_PLUGIN_H
#define CUDATRACER_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

/* The row builders below give every field a default that a row may override
 * (CT_STR(1) overrides "no string"), which -Wextra calls -Woverride-init
 * (clang: -Winitializer-overrides, which knows the name): said here, not as
 * a flag in cudatracer.pc, so that any compiler and any build takes it. */
#pragma GCC diagnostic ignored "-Woverride-init"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_ABI_VERSION 3
#define CT_PLUGIN_ENTRY_SYMBOL "cudatracer_plugin_entry"

/* What one call can capture; a row that asks for more is refused. */
#define CT_MAX_SLOTS 12     /* argument slots: 6 registers, then 6 stack words */
#define CT_MAX_MEM_WORDS 8  /* 8-byte words copied from user memory per call */
#define CT_MAX_STR 256      /* bytes of the one C string a call may read, NUL included */
#define CT_MAX_ARGS 16      /* shown fields per API */
#define CT_MAX_READS 4      /* user-memory copies per API */
#define CT_MAX_VARIANTS 4   /* symbol variants per row */
#define CT_NO_STR 0xff      /* str_slot: the API reads no string */

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
	CT_ARG_STRING,  /* the call's string (str_slot) */
	CT_ARG_FLOAT,   /* 32-bit float read from memory */
	CT_ARG_SIZES3,  /* up to three size_t in a row, count from `count_from` */
	CT_ARG_KIND_MAX
};

/* Where an argument's bits are. */
enum ct_area {
	CT_AREA_ARGS = 1, /* argument slot off/8: registers, then stack words */
	CT_AREA_MEM,      /* words copied by the API's reads, at byte off */
	CT_AREA_STR,      /* the call's string */
	CT_AREA_RET,      /* the return value */
	CT_AREA_MAX
};

/*
 * What an argument means to runtime-agnostic sinks (summary, memory ...).
 * Sinks never look at API names, only at roles and API flags.
 */
enum ct_role {
	CT_ROLE_NONE = 0,
	CT_ROLE_BYTES,      /* size of an allocation, copy or set */
	CT_ROLE_ALLOC_PTR,  /* the pointer (or handle) an allocation returned or registered */
	CT_ROLE_FREE_PTR,   /* the pointer being freed (CT_API_RETAIN: held once more) */
	CT_ROLE_COPY_KIND,  /* direction of a copy (enum) */
	CT_ROLE_STREAM,
	CT_ROLE_DEVICE,
	CT_ROLE_KERNEL,     /* the kernel a launch runs (host stub or handle) */
	CT_ROLE_HANDLE_NEW, /* handle created by this call; named from the call's string */
	CT_ROLE_HANDLE_NAMED, /* handle whose name was seen at creation */
	CT_ROLE_HEIGHT,     /* rows of a 2D copy: bytes = BYTES * HEIGHT */
	/* Counts of typed elements (a collective's count and datatype):
	 * bytes = ELEMENTS * the size the ELEM_TYPE argument's `elem_sizes` gives. */
	CT_ROLE_ELEMENTS,
	CT_ROLE_ELEM_TYPE,
	/* Communicators (NCCL, RCCL, MPI): a call's rank and size are remembered
	 * per communicator from the calls that create or query it, and shown on
	 * every later call that uses it (docs/plugins.md). */
	CT_ROLE_COMM,       /* the communicator the call uses */
	CT_ROLE_COMM_NEW,   /* a communicator the call created (read at exit) */
	CT_ROLE_COMM_ID,    /* what every member passes alike to create it (a unique id's first word) */
	CT_ROLE_RANK,       /* the caller's rank in the call's communicator */
	CT_ROLE_NRANKS,     /* the communicator's size */
	/* A launch's shape, for the kernels table: one DIM3 or SIZES3 argument,
	 * or its x, y and z as three UINT arguments in that order. */
	CT_ROLE_GRID,       /* blocks in the grid (OpenCL: the global work size) */
	CT_ROLE_BLOCK,      /* threads in a block (OpenCL: the local work size) */
	/* Devices and contexts, for the device of every call (docs/plugins.md):
	 * a context the call uses or makes current; and a context whose device
	 * the call's DEVICE argument gives (one it created or retained, read at
	 * exit, or one it was asked the device of). */
	CT_ROLE_CONTEXT,
	CT_ROLE_CONTEXT_NEW,
	/* The size of pitched memory and arrays (docs/plugins.md, "Bytes"):
	 * BYTES * HEIGHT * DEPTH (a pitch, rows, slices); or ELEMENTS * HEIGHT *
	 * DEPTH elements of ELEM_TYPE's size times CHANNELS, or of ELEM_BITS
	 * bits (every ELEM_BITS argument adds: a channel format's x, y, z, w),
	 * where a HEIGHT or DEPTH of 0 counts as 1 (an array of fewer
	 * dimensions) and LEVELS mipmap levels add up, each dimension halved. */
	CT_ROLE_DEPTH,
	CT_ROLE_CHANNELS,
	CT_ROLE_ELEM_BITS,
	CT_ROLE_LEVELS,
	CT_ROLE_MAX
};

/* Bytes of one element by an enum's value (a datatype's); sorted by value. */
struct ct_elem_size {
	int64_t value;
	uint32_t bytes;
};

struct ct_elem_sizes {
	const struct ct_elem_size *v;
	size_t n;
};

struct ct_arg {
	const char *name;
	uint8_t kind;   /* enum ct_arg_kind */
	uint8_t area;   /* enum ct_area */
	uint8_t off;    /* byte offset in the area */
	uint8_t size;   /* bytes: 1, 2, 4 or 8 (DIM3: 12, SIZES3: 24) */
	uint8_t role;   /* enum ct_role */
	int8_t count_from; /* CT_ARG_SIZES3: index of the arg that holds the count, else -1 */
	const struct ct_enum *names; /* CT_ARG_ENUM */
	const struct ct_elem_sizes *elem_sizes; /* CT_ROLE_ELEM_TYPE: bytes of one element by value */
};

/* A copy of user memory the engine makes for one API. */
enum ct_phase { CT_AT_ENTRY = 1, CT_AT_EXIT = 2 };

struct ct_read {
	uint8_t slot;  /* argument slot that holds the pointer */
	uint8_t phase; /* enum ct_phase */
	uint8_t words; /* 8-byte words to copy */
	uint8_t dst;   /* first memory word they go to */
};

/* API flags. */
#define CT_API_ENTRY_ONLY (1u << 0) /* one record at entry: no exit probe, no duration */
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
/* A communication library's calls, for the summary's collectives table and
 * `cudatracer merge`: COLLECTIVE calls are made by every member of the
 * communicator in the same order; P2P calls move data to or from one peer.
 * Bus bandwidth as nccl-tests counts it (algbw = bytes / time):
 * BUS_ALLREDUCE busbw = algbw * 2(n-1)/n; BUS_SHARE (the bytes are this
 * rank's share of an n-rank buffer: all-gather, reduce-scatter, all-to-all)
 * busbw = algbw * (n-1); neither: busbw = algbw. */
#define CT_API_COLLECTIVE    (1u << 11)
#define CT_API_P2P           (1u << 12)
#define CT_API_BUS_ALLREDUCE (1u << 13)
#define CT_API_BUS_SHARE     (1u << 14)
/* The thread's current device, as the decoder follows it: after a call
 * that succeeded, SET_DEVICE makes its DEVICE argument current (cudaSetDevice,
 * hipSetDevice; cudaGetDevice too: it tells); SET_CONTEXT makes its CONTEXT
 * (or CONTEXT_NEW) argument the thread's current context, PUSH_CONTEXT
 * pushes it, POP_CONTEXT pops the top one (the driver's context stack). */
#define CT_API_SET_DEVICE    (1u << 15)
#define CT_API_SET_CONTEXT   (1u << 16)
#define CT_API_PUSH_CONTEXT  (1u << 17)
#define CT_API_POP_CONTEXT   (1u << 18)
/* With a memory kind: the FREE_PTR allocation is held once more, and only
 * the last of its frees releases it (clRetainMemObject). */
#define CT_API_RETAIN        (1u << 19)
/* A row that tools/gen_apis.py made from the runtime's header: arguments
 * shown by their C types, no roles, no out-parameters read. */
#define CT_API_GENERATED     (1u << 20)
#define CT_API_FLAGS_ALL  ((1u << 21) - 1)
#define CT_API_DEV_ALLOC (CT_API_ALLOC | CT_API_DEVICE_MEM)
#define CT_API_DEV_FREE (CT_API_FREE | CT_API_DEVICE_MEM)
/* Calls that move bytes: copies and sets. */
#define CT_API_MOVES_BYTES (CT_API_COPY | CT_API_SET)

/* How the call's result is read. */
enum ct_result {
	CT_RES_ERROR = 0, /* low 32 bits of the return value are an error code */
	CT_RES_VOID,      /* nothing returned */
	CT_RES_HANDLE,    /* a handle is returned; the error code, if any, is `err_arg` */
	CT_RES_MAX
};

struct ct_api {
	const char *symbol;
	uint32_t flags;   /* CT_API_* */
	uint8_t result;   /* enum ct_result */
	int8_t err_arg;   /* CT_RES_HANDLE: index in args of the error code, or -1 */
	uint8_t str_slot; /* slot of a C string read at entry (again at return if it could not be), or CT_NO_STR */
	const struct ct_arg *args;
	size_t n_args;
	const struct ct_read *reads;
	size_t n_reads;
	/* Suffixes of symbols with the same signature (cudaMemcpy -> cudaMemcpy_ptds):
	 * each is traced as an API of its own, symbol + suffix. */
	const char *const *variants;
	size_t n_variants;
};

struct ct_plugin {
	size_t sz;            /* sizeof(struct ct_plugin) the plugin was built with */
	uint32_t abi_version; /* CT_ABI_VERSION the plugin was built with */
	const char *name;     /* what --plugin takes: [a-z0-9_]+ */
	const char *version;
	const char *description;
	const char *const *libraries; /* sonames to look for (prefixes), newest first */
	size_t n_libraries;
	const struct ct_api *apis;
	size_t n_apis;
	const struct ct_enum *errors; /* the runtime's error codes, by value */
	const char *success_name;     /* name of the "no error" value */
	/* Optional: a BPF object built against <cudatracer/hook.bpf.h>. */
	const void *bpf_hook;
	size_t bpf_hook_sz;
	/* Optional: rows generated from the runtime's header (tools/gen_apis.py,
	 * docs/plugins.md). They come after `apis`; a generated row whose symbol
	 * `apis` has (a row's or a variant's) is left out: the hand-written row,
	 * with its roles and out-parameters, wins. */
	const struct ct_api *gen_apis;
	size_t n_gen_apis;
};

typedef const struct ct_plugin *(*ct_plugin_entry_fn)(void);

/*
 * Row builders, so that every plugin (third-party ones too) writes rows the
 * same way:
 *
 *   CT_API("cuMemAlloc_v2", CT_API_DEV_ALLOC, CT_READS(CT_OUT_WORD(0, 0)),
 *          CT_ARGS(CT_ARG("dptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
 *                  CT_ARG("bytesize", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES)),
 *          CT_VARIANTS("_ptds"))
 *
 * The list builders count their elements themselves.
 */
#define CT_COUNT_OF_(type, ...) (sizeof((type[]){ __VA_ARGS__ }) / sizeof(type))

/* Argument slot n: registers rdi, rsi, rdx, rcx, r8, r9, then stack words. */
#define CT_SLOT(n) .area = CT_AREA_ARGS, .off = (uint8_t)((n) * 8)
/* Memory word n, as copied by a read. */
#define CT_MEMW(n) .area = CT_AREA_MEM, .off = (uint8_t)((n) * 8)
/* Byte `byte` of the copied memory (a field of a copied struct). */
#define CT_IN_MEM(byte) .area = CT_AREA_MEM, .off = (uint8_t)(byte)
#define CT_IN_STR .area = CT_AREA_STR, .off = 0
#define CT_IN_RET .area = CT_AREA_RET, .off = 0

#define CT_ARG(n, k, where, sz, r) \
	{ .name = (n), .kind = (k), where, .size = (sz), .role = (r), .count_from = -1 }
#define CT_ARG_NAMED(n, where, sz, r, table) \
	{ .name = (n), .kind = CT_ARG_ENUM, where, .size = (sz), .role = (r), .count_from = -1, \
	  .names = (table) }
/* Up to three size_t in a row (24 bytes), as many as the earlier argument `count_from` says. */
#define CT_ARG_SIZES3(n, where, cf) \
	{ .name = (n), .kind = CT_ARG_SIZES3, where, .size = 24, .role = CT_ROLE_NONE, .count_from = (cf) }
/* ... with a role (a launch's GRID or BLOCK). */
#define CT_ARG_SIZES3_ROLE(n, where, cf, r) \
	{ .name = (n), .kind = CT_ARG_SIZES3, where, .size = 24, .role = (r), .count_from = (cf) }
/* An enum argument whose value is a datatype: named from `table`, sized from `sizes`. */
#define CT_ARG_ELEM_TYPE(n, where, sz, table, sizes) \
	{ .name = (n), .kind = CT_ARG_ENUM, where, .size = (sz), .role = CT_ROLE_ELEM_TYPE, \
	  .count_from = -1, .names = (table), .elem_sizes = (sizes) }
#define CT_ARGS(...) .args = (const struct ct_arg[]){ __VA_ARGS__ }, \
	.n_args = CT_COUNT_OF_(const struct ct_arg, __VA_ARGS__)

/* The word an out-pointer argument in `slot` points to, copied after the call into mem[word]. */
#define CT_OUT_WORD(slot, word) { (slot), CT_AT_EXIT, 1, (word) }
/* `words` words behind the pointer in `slot`, copied at entry into mem[dst...]. */
#define CT_IN_WORDS(slot, words, dst) { (slot), CT_AT_ENTRY, (words), (dst) }
/* ... copied after the call. */
#define CT_OUT_WORDS(slot, words, dst) { (slot), CT_AT_EXIT, (words), (dst) }
#define CT_READS(...) .reads = (const struct ct_read[]){ __VA_ARGS__ }, \
	.n_reads = CT_COUNT_OF_(const struct ct_read, __VA_ARGS__)

#define CT_VARIANTS(...) .variants = (const char *const[]){ __VA_ARGS__ }, \
	.n_variants = CT_COUNT_OF_(const char *const, __VA_ARGS__)
/* The C string the pointer in `slot` points to, read at entry; if its page
 * is not in memory then, at return. */
#define CT_STR(slot) .str_slot = (slot)

/* A call that returns a handle; its error code, if any, is args[err] (or -1: none). */
#define CT_RETURNS_HANDLE(err) .result = CT_RES_HANDLE, .err_arg = (err)
/* A call that returns nothing. */
#define CT_RETURNS_VOID .result = CT_RES_VOID

/* A call that returns an error code (or what CT_RETURNS_* says). */
#define CT_API(sym, fl, ...) { .symbol = (sym), .flags = (fl), .result = CT_RES_ERROR, \
			       .err_arg = -1, .str_slot = CT_NO_STR, __VA_ARGS__ }

#define CT_LIBRARIES(...) .libraries = (const char *const[]){ __VA_ARGS__ }, \
	.n_libraries = CT_COUNT_OF_(const char *const, __VA_ARGS__)
#define CT_APIS(table) .apis = (table), .n_apis = sizeof(table) / sizeof((table)[0])
#define CT_GEN_APIS(table) .gen_apis = (table), .n_gen_apis = sizeof(table) / sizeof((table)[0])

/* The descriptor's fixed head: size and ABI version. */
#define CT_PLUGIN_HEAD .sz = sizeof(struct ct_plugin), .abi_version = CT_ABI_VERSION

/* Export `desc` (a const struct ct_plugin) as the plugin's entry point. */
#define CT_PLUGIN_DEFINE(desc)                                                \
	__attribute__((visibility("default"))) const struct ct_plugin *       \
	cudatracer_plugin_entry(void)                                         \
	{                                                                     \
		return &(desc);                                               \
	}

#ifdef __cplusplus
}
#endif
#endif
