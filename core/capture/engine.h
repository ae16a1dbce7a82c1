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
struct ct_stacks_conf;

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
	bool filter_cgroup;     /* only tasks under the cgroup v2 directory cgroup_fd */
	int cgroup_fd;
	enum ct_attach_mode mode;
	bool aggregate;         /* count per process and API in the kernel; no records */
	const struct ct_stacks_conf *stacks; /* --stacks; NULL or not enabled: none */
	bool hang;              /* tracer.hang_timeout: collectives and syncs are sent at entry too */
	/* The plugins that are runtimes: with more than one, a call's parent is
	 * tracked and launches of several layers are paired. 0: all of them
	 * (the NVTX plugin, which makes no calls inside another's, is not one). */
	int runtimes;
};

/* How the engine's programs are attached: the first the kernel takes, in this order. */
enum ct_link_kind {
	CT_LINK_SESSION, /* one uprobe session program and one link per file (kernel 6.10+) */
	CT_LINK_MULTI,   /* an entry and a return program, uprobe_multi links */
	CT_LINK_SINGLE,  /* the same, one link per symbol */
};

struct ct_engine {
	struct capture_bpf *skel;
	enum ct_link_kind links;
	bool multi;             /* uprobe_multi links (session or pair) */
	bool aggregate;
	bool empty;             /* the benchmark floor's do-nothing programs (CUDATRACER_BENCH_PROGRAMS) */
	bool stopped, paused;   /* no call that begins is recorded: for good, or until the resume */
	uint32_t agg_pool;      /* aggregate mode: (process, call id) pairs the pool holds */
	uint32_t agg_slots;     /* processes with a slot (0: not aggregate mode) */
	uint32_t agg_calls;     /* the session's calls, ct_spec.agg_call's range */
	uint32_t *agg_call_ids; /* by agg_call: the call id */
	struct bpf_program *entry, *exit; /* the programs in use; a session's is `entry`, exit NULL */
	void *linked;           /* the engine with a plugin's hook linked in, or NULL */
	size_t linked_sz;
};

/* The engine's totals of one (process, call id), summed over CPUs. */
typedef int (*ct_engine_totals_fn)(void *ctx, const struct ct_agg_key *k, const struct ct_agg *sum);

int ct_engine_open(struct ct_engine *e, const struct ct_engine_plugin *pl, int n,
		   const struct ct_engine_opts *o);
/* Tracing stops: calls that begin from now on send nothing (those in flight still do). */
void ct_engine_stop(struct ct_engine *e);
/* Paused (SIGUSR1): the same as a stop, undone by a resume; the probes stay attached. */
void ct_engine_pause(struct ct_engine *e, bool paused);
int ct_engine_ring_fd(const struct ct_engine *e);
/* How the ring wakes its reader: the per-CPU count of bytes sent since a
 * CPU last woke it (the map's fd, returned) and the count that wakes it
 * (*bytes; 0: every record), for another program writing the same ring. */
int ct_engine_wake(const struct ct_engine *e, uint64_t *bytes);
/* How the probes are attached, in words (the startup line, --explain). */
const char *ct_engine_links_name(const struct ct_engine *e);
/* The Python frames' maps (bpf/pystack.bpf.h): py_procs, py_stacks, py_codes. */
void ct_engine_py_fds(const struct ct_engine *e, int *procs, int *stacks, int *codes);
/* The engine's counters (enum ct_stat), summed over CPUs, into out[CT_STAT_MAX]. */
int ct_engine_stats(const struct ct_engine *e, uint64_t *out);
/* Aggregate mode: every (process, call id) the kernel counted. */
int ct_engine_totals(const struct ct_engine *e, ct_engine_totals_fn fn, void *ctx);
void ct_engine_close(struct ct_engine *e);
/* What the engine copies for one API (its spec): also the in-process engine's. */
void ct_engine_spec(const struct ct_api *a, bool entry_only, bool hook, struct ct_spec *s);

#endif
