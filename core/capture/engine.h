/* SPDX-License-Identifier: MIT */
/*
 * The capture engine of a session (bpf/capture.bpf.c): one BPF object for
 * every plugin, opened through its skeleton. It is told each plugin's API
 * table before load (the spec array), loads the program pair of its mode
 * (events or aggregate, uprobe_multi or one link per symbol), with a
 * plugin's BPF hook linked in. Attaching is probe.c's.
 */
#ifndef CT_ENGINE_H
#define CT_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <cudatracer/plugin.h>
#include "record.h"

struct capture_bpf;
struct bpf_program;

#include "config/choices.h" /* enum ct_attach_mode */

/* One plugin as the engine serves it: its table and the session's choices. */
struct ct_engine_plugin {
	const struct ct_plugin *p;
	const bool *enabled;    /* per API: trace it */
	const bool *entry_only; /* per API: one record at entry */
	const void *hook;       /* its BPF hook object (hook.bpf.h), or NULL */
	size_t hook_sz;
};

struct ct_engine_opts {
	uint64_t ringbuf_size;
	uint64_t wakeup_bytes;
	bool filter_pids;
	int pids_fd;            /* the watcher's pid map, shared */
	enum ct_attach_mode mode;
	bool aggregate;         /* count per process and API in the kernel; no records */
	bool stacks;            /* every API's records carry stacks (CT_SPEC_STACK) */
};

struct ct_engine {
	struct capture_bpf *skel;
	bool multi;             /* uprobe_multi programs loaded */
	bool aggregate;
	uint32_t agg_entries;   /* aggregate mode: (process, call id) pairs the table holds */
	struct bpf_program *entry, *exit; /* the pair in use */
	void *linked;           /* the engine with a plugin's hook linked in, or NULL */
	size_t linked_sz;
};

/* The engine's totals of one (process, call id), summed over CPUs. */
typedef int (*ct_engine_totals_fn)(void *ctx, const struct ct_agg_key *k, const struct ct_agg *sum);

int ct_engine_open(struct ct_engine *e, const struct ct_engine_plugin *pl, int n,
		   const struct ct_engine_opts *o);
int ct_engine_ring_fd(const struct ct_engine *e);
/* The Python frames' maps (bpf/pystack.bpf.h): py_procs, py_stacks, py_codes. */
void ct_engine_py_fds(const struct ct_engine *e, int *procs, int *stacks, int *codes);
/* The engine's counters (enum ct_stat), summed over CPUs, into out[CT_STAT_MAX]. */
int ct_engine_stats(const struct ct_engine *e, uint64_t *out);
/* Aggregate mode: every (process, call id) the kernel counted. */
int ct_engine_totals(const struct ct_engine *e, ct_engine_totals_fn fn, void *ctx);
void ct_engine_close(struct ct_engine *e);

#endif
