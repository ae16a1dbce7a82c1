/* SPDX-License-Identifier: MIT */
/*
 * Allocation tracking per process and per runtime: which pointers are live,
 * how much memory of each kind is in use and its peak, and frees of
 * pointers never seen allocated. Shared by the memory, chrome, html and
 * metrics sinks. It reads API flags (ALLOC, FREE, RETAIN, DEVICE_MEM ...)
 * and argument roles (ALLOC_PTR, FREE_PTR, and the size roles through
 * ct_event_bytes()), so it works for every runtime. A retained allocation
 * (OpenCL's reference counts) is released by its last free.
 */
#ifndef CT_MEMTRACK_H
#define CT_MEMTRACK_H

#include <stdbool.h>
#include <stdint.h>
#include <cudatracer/event.h>
#include "sinks/stackfmt.h"
#include "util/u64map.h"

enum ct_mem_kind { CT_MEM_DEVICE = 0, CT_MEM_HOST, CT_MEM_MANAGED, CT_MEM_KINDS };

const char *ct_mem_kind_name(unsigned kind); /* "device", "host", "managed" */

struct ct_alloc {
	uint64_t ptr, size;
	uint64_t ts_ns;       /* wall clock of the allocating call */
	uint32_t tid;
	uint8_t kind;         /* enum ct_mem_kind */
	uint32_t holds;       /* CT_API_RETAIN calls not yet matched by a free */
	const char *api;      /* interned in the tracker */
	const struct ct_site *site; /* --stacks: where it was made (the tracker's); NULL: not known */
};

#define CT_MEM_UNKNOWN_KEEP 64 /* unknown frees listed per space; all are counted */

struct ct_mem_space { /* one process, one runtime */
	uint32_t pid;
	char comm[CT_COMM_LEN];
	const char *plugin;   /* interned */
	uint64_t began_ns;    /* first event seen from this process and runtime */
	struct ct_u64map live; /* ptr -> struct ct_alloc */
	uint64_t in_use[CT_MEM_KINDS], peak[CT_MEM_KINDS];
	uint64_t allocs, alloc_bytes, frees, freed_bytes;
	uint64_t retains;     /* holds taken on live allocations (CT_API_RETAIN) */
	uint64_t replaced;    /* allocations that returned a pointer already live */
	uint64_t unreadable;  /* allocations whose returned pointer could not be read */
	uint64_t unknown;     /* frees of pointers never seen allocated */
	struct ct_alloc unknown_list[CT_MEM_UNKNOWN_KEEP];
};

struct ct_memtrack {
	struct ct_u64map spaces; /* (pid << 16 | plugin number) -> ct_mem_space */
	struct ct_u64map names;  /* (plugin number << 32 | api index) -> char * */
	const struct ct_plugin *plugins[64];
	char *plugin_names[64];
	unsigned n_plugins;
	struct ct_sites sites;   /* allocation sites (--stacks), of every process */
};

enum ct_mem_op { CT_MEMOP_NONE = 0, CT_MEMOP_ALLOC, CT_MEMOP_FREE, CT_MEMOP_FREE_UNKNOWN };

/* What one event did to the books; `space` is NULL for CT_MEMOP_NONE. */
struct ct_mem_change {
	int op;
	struct ct_mem_space *space;
	unsigned kind;
	uint64_t ptr, size;
};

/* Account one event; fills *ch (may be NULL). Returns 0 or -ENOMEM. */
int ct_memtrack_event(struct ct_memtrack *t, const struct ct_event *ev, struct ct_mem_change *ch);
/* Spaces ordered by pid then runtime; the caller frees the array. */
int ct_memtrack_spaces(const struct ct_memtrack *t, struct ct_mem_space ***out, size_t *n);
/* One process's spaces, by runtime (as above), into `out`; their number. */
size_t ct_memtrack_pid_spaces(const struct ct_memtrack *t, uint32_t pid, struct ct_mem_space *out[64]);
/* A space's live allocations, oldest first; the caller frees the array. */
int ct_memtrack_live(const struct ct_mem_space *sp, struct ct_alloc ***out, size_t *n);
/* A space's live allocations of one site, added up. */
struct ct_mem_site {
	const struct ct_site *site; /* NULL: the allocations with no stack */
	uint64_t count, bytes;
};

/* A space's live allocations by site, most bytes first; the caller frees the array. */
int ct_memtrack_live_sites(const struct ct_mem_space *sp, struct ct_mem_site **out, size_t *n);
/* Forget a process (after it was reported at its exit). */
void ct_memtrack_drop_pid(struct ct_memtrack *t, uint32_t pid);
/* The same, but for the spaces that `keep` says are still pointed to. */
void ct_memtrack_drop_pid_but(struct ct_memtrack *t, uint32_t pid,
			      bool (*keep)(void *arg, const struct ct_mem_space *sp), void *arg);
void ct_memtrack_free(struct ct_memtrack *t);

#endif
