/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * cudatracer BPF hooks: what a plugin writes when its table cannot say what
 * to capture (a struct two pointers deep, a derived value, a filter of its
 * runtime's own). A hook is one BPF function, ct_hook(), in a small object
 * of the plugin's (struct ct_plugin's bpf_hook, bpf_hook_sz). At load the
 * core links it into its one capture engine with libbpf's BPF linker, where
 * it replaces the engine's empty (weak) ct_hook(): it runs inside the
 * engine, for the calls of its plugin only, and nothing of the engine's maps
 * or programs is part of what it builds against. One plugin of a session
 * may bring a hook. Build it with
 *   clang -O2 -g -target bpf -c hook.bpf.c -o hook.bpf.o
 * (vmlinux.h is not needed; <bpf/bpf_helpers.h> is libbpf's; the core reads
 * this header too, for the version and the context's layout).
 *
 *   #include <cudatracer/hook.bpf.h>
 *
 *   CT_HOOK(c, api, phase)
 *   {
 *           if (!c || phase != CT_HOOK_EXIT || api != MY_API)
 *                   return 0;
 *           c->mem[3] = c->args[1] * c->args[2];
 *           return CT_HOOK_WROTE(3);
 *   }
 *
 * The hook runs at a call's entry (CT_HOOK_ENTRY, after the engine read the
 * arguments and the entry reads) and before its record is sent
 * (CT_HOOK_EXIT after the exit reads; CT_HOOK_ENTRY_ONLY for an API traced
 * at entry only). It may change `mem` and say which words it wrote; the
 * plugin's table names those words (CT_MEMW(n)) like any read's. At the
 * last phase it may instead drop the call's record (CT_HOOK_DROP).
 * `api` is the index in the plugin's own API table. The verifier checks the
 * hook as a global function: `c` may be NULL to it, so test it.
 *
 * Versioning: CT_HOOK_VERSION changes whenever anything below changes; the
 * core refuses a hook built for another version. Hooks do not run in
 * aggregate mode (no records are made there).
 */
#ifndef CUDATRACER_HOOK_BPF_H
#define CUDATRACER_HOOK_BPF_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define CT_HOOK_VERSION 1

#define CT_HOOK_ARGS 12 /* argument slots: 6 registers, then 6 stack words */
#define CT_HOOK_MEM 8   /* 8-byte words of copied (or derived) memory */

/* The call as the engine holds it. Writable: only `mem` is sent on as written. */
struct ct_hook_ctx {
	__u64 ret;                /* the return value (CT_HOOK_EXIT) */
	__u64 args[CT_HOOK_ARGS]; /* the arguments, as read at entry */
	__u64 mem[CT_HOOK_MEM];   /* the API's reads; 0 where none */
};

enum ct_hook_phase {
	CT_HOOK_ENTRY = 1,      /* the call begins; its record comes at exit */
	CT_HOOK_EXIT = 2,       /* the call returned; its record is sent next */
	CT_HOOK_ENTRY_ONLY = 3, /* an entry-only call; its record is sent next */
};

/* Return value: the mem words the hook wrote, or'ed; or drop the record. */
#define CT_HOOK_WROTE(word) (1u << ((word) & (CT_HOOK_MEM - 1)))
#define CT_HOOK_DROP (1u << 31)

#ifdef __bpf__
#include <bpf/bpf_helpers.h>

/* Opens the hook's definition (its body follows) and stamps the object
 * with the version the core checks. */
#define CT_HOOK(c, api, phase)                                            \
	const volatile __u32 ct_hook_version = CT_HOOK_VERSION;          \
	__attribute__((noinline)) int ct_hook(struct ct_hook_ctx *c, __u32 api, __u32 phase)
#endif

#endif
