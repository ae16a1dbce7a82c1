/* SPDX-License-Identifier: MIT */
/*
 * Inside the preload library (--engine inproc): what its parts share.
 * The core library (libcudatracer-inproc.so: ring, hooks, trampolines,
 * dlsym) and the stub libraries, one per plugin
 * (libcudatracer-inproc-PLUGIN.so: one exported stub per symbol of the
 * plugin's table, generated at build time), which register their slots
 * with the core from their constructor.
 */
#ifndef CT_INPROC_H
#define CT_INPROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "shm.h"

#define CT_EXPORT __attribute__((visibility("default")))
#define CT_HIDDEN __attribute__((visibility("hidden")))

/*
 * One interposed function, as tramp.S reads it (offsets fixed there): the
 * real function (0: not resolved yet), and its call id + 1 (0: not traced,
 * the trampoline jumps straight to `real`).
 */
struct ct_slot {
	uint64_t real;
	uint32_t call1;      /* its row in the spec table + 1; 0: not traced */
	uint32_t unresolved; /* looked for, defined by no loaded library */
	const char *name;
	uint64_t pad;
};
_Static_assert(sizeof(struct ct_slot) == 32, "tramp.S indexes slots by 32 bytes");

/* What a stub library gives the core: its stubs' symbols (what each slot's
 * function is found by) and the API whose spec row each takes (its own
 * name, or an alias's API: gen_stubs.py). */
CT_EXPORT void ct_inproc_register(const char *const *names, const char *const *apis, struct ct_slot *slots,
				  unsigned n);
/* A function pointer the driver handed out (cuGetProcAddress): our
 * trampoline for it where its symbol is traced, else the pointer itself. */
CT_EXPORT void *ct_inproc_bind(void *real);
/* The driver's wrappers for dlsym to hand out in place of cuGetProcAddress. */
typedef void *(*ct_inproc_dlsym_fn)(void *handle, const char *name);
CT_EXPORT void ct_inproc_set_getproc(ct_inproc_dlsym_fn wrap);
/* The slot's function, found in the first loaded object that defines it
 * other than ours (0: none), kept in the slot. */
CT_EXPORT uint64_t ct_inproc_resolve(struct ct_slot *s);
/* The real dlsym, for a caller in our libraries (RTLD_NEXT: after the core). */
CT_EXPORT void *ct_inproc_real_dlsym(void *handle, const char *name);
/* Whether the address is in one of our libraries. */
CT_EXPORT bool ct_inproc_is_own(const void *addr);

/* Core internals. */
struct ct_inproc {
	struct ct_shm_head *head;     /* NULL: inert, every stub jumps to its function */
	const struct ct_shm_spec *specs;
	unsigned char *data;          /* the ring, mapped twice in a row */
	uint64_t mask;
	uint32_t pid;
	bool parents;
	bool tsc;                     /* records timed by rdtsc (shm.h's clock) */
	bool prefetchw;               /* the CPU has PREFETCHW: the next records' lines are taken ahead */
	uint32_t mapped;              /* the ring's page tables filled in (this process) */
};
extern struct ct_inproc ct_g CT_HIDDEN;

CT_HIDDEN int ct_spec_find(const char *name); /* index in ct_g.specs, or -1 */
CT_HIDDEN void ct_hooks_fork_child(void);
/* This process is here: tell the tracer and give it the time to look (shm.h). */
CT_HIDDEN void ct_hooks_started(pid_t tracer);

/* tramp.S */
extern char ct_inproc_tramp[] CT_EXPORT;
extern char ct_pool_stubs[] CT_HIDDEN; /* CT_POOL stubs of CT_POOL_STUB bytes */
extern struct ct_slot ct_pool_slots[] CT_HIDDEN;
#define CT_POOL 1024
#define CT_POOL_STUB 16

#endif
