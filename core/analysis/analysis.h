/* SPDX-License-Identifier: MIT */
/*
 * Why the GPU was idle: a trace's calls, GPU activity and NVTX ranges cut
 * into steps (NVTX ranges by name, entries into a Python function, or the
 * period of the launch sequence), and each step's GPU idle time split into
 * gaps, each gap given a cause and the call site that caused it
 * (docs/analysis.md). Written once for `cudatracer report` and the sinks.
 *
 * Streaming: records are kept only while a step that may hold them is
 * open, plus `lag_ns` (GPU lines come up to about half a second after
 * their calls), never the whole trace; past CT_AN_KEEP_MAX records a
 * process's oldest are dropped and counted.
 */
#ifndef CT_ANALYSIS_ANALYSIS_H
#define CT_ANALYSIS_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis/interval.h"
#include "analysis/names.h"
#include "analysis/period.h"
#include "util/u64map.h"

#define CT_AN_KEEP_MAX (4u << 20) /* calls, and as many GPU records, a process */
#define CT_AN_LEARN_MAX 65536     /* launches a process read to find the period */
#define CT_AN_WINDOW_NS 1000000000ull /* no steps found: the trace in windows this long */

/* Causes of idle GPU time, and the verdict's one cost that is not idle time. */
enum ct_cause {
	CT_CAUSE_SYNC,        /* the host waited in a sync when the GPU ran dry */
	CT_CAUSE_COLLECTIVE,  /* the host was inside a collective */
	CT_CAUSE_LAUNCH,      /* launch-bound: the next launch came right after the last call */
	CT_CAUSE_HOST,        /* host work: a pause before the next launch */
	CT_CAUSE_OTHER,       /* work was queued, the GPU still waited (events, dependencies) */
	CT_CAUSE_PAGEABLE,    /* copies from or to pageable memory: time past the link's speed */
	CT_CAUSE_N,
};
extern const char *const ct_cause_key[CT_CAUSE_N];  /* "sync", ... (JSON) */
extern const char *const ct_cause_text[CT_CAUSE_N]; /* for people */

enum ct_steps_by { CT_STEPS_NONE, CT_STEPS_NVTX, CT_STEPS_FUNCTION, CT_STEPS_PERIOD };

struct ct_an_opts {
	const char *range_pattern; /* steps are the NVTX ranges whose name matches (fnmatch) */
	const char *py_function;   /* steps run from one entry into this function to the next */
	uint64_t host_gap_ns;      /* a pause before a launch at least this long is host work */
	uint64_t lag_ns;           /* how late a GPU line may come after its time */
	double link_gbps;          /* the host link's bandwidth, GB/s */
};
#define CT_AN_OPTS_DEFAULT { .host_gap_ns = 50000, .lag_ns = 2000000000ull, .link_gbps = 25.0 }

struct ct_cost {
	uint64_t ns, n;
};

/* What the trace has: an older recording lacks some (docs/analysis.md). */
struct ct_an_seen {
	bool meta;
	int64_t version;
	uint64_t calls, gpu, ranges, nvtx_calls, py_calls, stack_calls, launches;
	uint64_t bad_lines, late, dropped;
};

struct ct_an_proc;

struct ct_an {
	struct ct_an_opts o;
	struct ct_names names;
	struct ct_u64map procs;     /* pid -> struct ct_an_proc */
	enum ct_steps_by by;
	uint64_t watermark;         /* the latest call's time: what is older than it less lag is final */
	uint64_t since_flush;
	struct ct_an_seen seen;
	/* Where steps and gaps are told as found (the chrome sink marks them); may be NULL. */
	void (*on_step)(void *ctx, uint32_t pid, uint64_t s, uint64_t e, uint64_t busy);
	void (*on_gap)(void *ctx, uint32_t pid, uint64_t g0, uint64_t g1, enum ct_cause c, const char *site);
	void *cb_ctx;
	struct ct_iv *scratch;
	size_t scratch_cap;
	uint8_t *classes;           /* names id -> enum ct_api_class + 1, 0 not looked up yet */
	size_t n_classes;
};

int ct_an_init(struct ct_an *a, const struct ct_an_opts *o);
/*
 * One jsonl line (any kind). 0; -EINVAL for a line that is not JSON (said
 * with path:line, counted, the rest read on); -ENOMEM.
 */
int ct_an_line(struct ct_an *a, const char *line, size_t len, const char *path, long lineno);
/* The end of the trace: every step still open that is whole is analysed. */
void ct_an_finish(struct ct_an *a);
void ct_an_free(struct ct_an *a);

/* One record, as a trace line or a live event gives it (ingest.c reads lines). */
enum ct_an_op { CT_AN_KERNEL, CT_AN_MEMCPY, CT_AN_MEMSET };
struct ct_an_rec {
	uint32_t pid, tid;
	uint64_t ts, end;
	/* A call. */
	const char *api;
	uint8_t cls;            /* enum ct_api_class + 1 when the caller knows it; 0: by the API's name */
	const char *kname;      /* a launch's kernel, NULL if not named */
	const char *site;       /* where it was called from: the innermost Python frame, else native; NULL
				 * (GPU activity: where the call that captured its graph node was) */
	bool in_fn;             /* the step function is on its Python stack ... */
	uint32_t fn_line;       /* ... at this line */
	bool nvtx_match;        /* one of its NVTX ranges matches the step pattern */
	/* GPU activity. */
	enum ct_an_op op;
	const char *name;
	uint64_t bytes, corr_ts;
	uint32_t corr_tid;
	bool pageable;
	uint32_t graph_id;      /* run from a CUDA graph node: its ids (0: not) */
	uint64_t graph_node;
	const char *capture_api; /* the call that captured the node; NULL: not known */
};
int ct_an_call(struct ct_an *a, const struct ct_an_rec *r);
/* An API's enum ct_api_class (apiclass.h), looked up once per name. */
int ct_an_api_class(struct ct_an *a, const char *api);
int ct_an_gpu(struct ct_an *a, const struct ct_an_rec *r);
int ct_an_range(struct ct_an *a, uint32_t pid, uint64_t start, uint64_t end, const char *name);
/* The same from a live run's events (live.c). */
struct ct_event;
struct ct_gpu_event;
int ct_an_event(struct ct_an *a, const struct ct_event *ev);
int ct_an_gpu_event(struct ct_an *a, const struct ct_gpu_event *g);
/*
 * A sink's analysis (summary, chrome): started by the run's first GPU
 * record, so that a run without --gpu-activity pays nothing; calls before it
 * (at most the half second CUPTI holds records) are not in it. Steps come
 * from the launch sequence's period, unless report configured them.
 */
struct ct_an_sink {
	struct ct_an an;
	bool on;
	struct ct_an_sink *next; /* the sinks' analyses running */
};
/* `cudatracer report`: the sinks' analysis with report's options, from the
 * first call on (a trace's GPU lines come after their calls). */
int ct_an_sink_configure(const struct ct_an_opts *o, bool from_start);
int ct_an_sink_event(struct ct_an_sink *s, const struct ct_event *ev);
/* What reaches no sink's callback, to every sink's analysis: the trace's
 * meta line (before the sinks open) and its NVTX range lines. */
void ct_an_sinks_trace(bool meta, int64_t version);
int ct_an_sinks_range(uint32_t pid, uint64_t start, uint64_t end, const char *name);
/* GPU activity was seen: there is an answer to give. */
bool ct_an_sink_has_answer(const struct ct_an_sink *s);
int ct_an_sink_gpu(struct ct_an_sink *s, const struct ct_gpu_event *g);
void ct_an_sink_free(struct ct_an_sink *s);

/* The answer (answer.c). */
void ct_an_write_text(const struct ct_an *a, FILE *f);
void ct_an_write_json(const struct ct_an *a, FILE *f);

/* Internals shared by ingest.c, steps in analysis.c and answer.c. */
struct ct_an_call {
	uint64_t ts, end, pause; /* pause: from the thread's previous call's end */
	uint32_t tid, api, site, kname;
	uint8_t cls;
};
struct ct_an_gpu {
	uint64_t ts, end, bytes, corr_ts;
	uint32_t name, corr_tid;
	uint8_t op;
	bool pageable;
};
/* A CUDA graph node's GPU time over its replays (every record, not by step). */
struct ct_an_node {
	uint32_t graph_id, name, api, site; /* name: the kernel's, or "memcpy"/"memset"; 0: none */
	struct ct_cost c;
};
#define CT_AN_NODES_MAX 65536 /* graph nodes counted a process; more go to node 0 */
struct ct_an_thread {
	uint64_t last_end;
	uint32_t fn_line;
	bool in_fn;
};
struct ct_an_proc {
	uint32_t pid;
	struct ct_an_call *calls;
	size_t n_calls, cap_calls;
	struct ct_an_gpu *gpu;
	size_t n_gpu, cap_gpu;
	uint64_t max_wait;          /* longest sync or collective kept: how far back to look */
	uint64_t max_gpu;           /* longest GPU record kept */
	struct ct_iv *steps;        /* found, not yet analysed */
	size_t n_steps, cap_steps;
	uint64_t open_start;        /* function and period steps: the open step's start ... */
	bool has_open;              /* ... when there is one */
	uint64_t range_hint;        /* nvtx: the first call inside a matching range not yet closed */
	struct ct_u64map threads;   /* tid -> struct ct_an_thread */
	/* Learning (the first launches' kernels), then the period. */
	bool learning;
	uint32_t *seq;
	size_t n_seq;
	struct ct_period period;
	/* Results. */
	uint64_t n_steps_done, wall, busy, idle, no_gpu_steps;
	struct ct_cost cause[CT_CAUSE_N];
	struct ct_u64map sites;     /* cause << 56 | api << 28 | site -> struct ct_cost */
	struct ct_u64map kernels;   /* name id -> struct ct_cost */
	struct ct_u64map graph_nodes; /* graph node id -> struct ct_an_node */
	uint64_t copy_bytes, pageable_bytes, pageable_ns;
};

#endif
