/* SPDX-License-Identifier: MIT */
/*
 * The metrics model shared by the prometheus, remote_write and otlp sinks:
 * series of a few families (calls, call durations, bytes moved, memory in
 * use, allocations outstanding, records lost, probes attached), each keyed
 * by a label set that the user picks from a fixed list and that is bounded:
 * past max_series, a new label set's per-process labels (pid, comm, rank,
 * job, cgroup, container, pod) are folded into "other", and the folding is
 * counted.
 *
 * The reader thread alone updates the model (no lock per event). About once
 * a second it copies the values into an immutable snapshot and publishes it
 * (struct ct_mpub); the HTTP and sender threads encode snapshots, so the
 * reader never waits on a scrape or a push for more than a pointer swap.
 */
#ifndef CT_METRICS_H
#define CT_METRICS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <cudatracer/event.h>
#include "config/keys.h"
#include "sinks/memtrack.h"
#include "sinks/sink.h"
#include "util/u64map.h"

struct ct_sb;

/* Label names, in the order they are written (sorted: remote write wants it). */
enum ct_mlabel {
	CT_ML_API, CT_ML_CGROUP, CT_ML_COMM, CT_ML_CONTAINER, CT_ML_DEVICE, CT_ML_ERROR, CT_ML_GPU, CT_ML_HOST,
	CT_ML_JOB, CT_ML_KIND, CT_ML_MEMORY, CT_ML_PID, CT_ML_PLUGIN, CT_ML_POD, CT_ML_RANK, CT_ML_N
};

/* A cgroup's label values as the configuration keeps them (interned: the
 * same values, the same pointer); "" for one not configured or not known. */
struct ct_mwho {
	const char *cgroup, *container, *pod;
};

enum ct_mtype { CT_MT_COUNTER, CT_MT_GAUGE, CT_MT_HISTOGRAM };

enum ct_mfam {
	CT_MF_CALLS, CT_MF_DURATION, CT_MF_BYTES, CT_MF_MEMORY, CT_MF_ALLOCS,
	CT_MF_LOST, CT_MF_PROBES, CT_MF_FOLDED, CT_MF_EXPORT_FAILED, CT_MF_HUNG, CT_MF_N
};

struct ct_mfamily {
	const char *name;
	const char *help;
	const char *unit;   /* UCUM, for OTLP: "s", "By", "1" */
	uint8_t type;       /* enum ct_mtype */
	uint32_t may;       /* labels it carries when configured (1 << enum ct_mlabel) */
	uint32_t always;    /* labels it always carries */
};

extern const struct ct_mfamily ct_mfamilies[CT_MF_N];

/* Duration histogram bounds (seconds; Prometheus's "le"), fixed. */
#define CT_MBUCKETS 22
extern const uint64_t ct_mbucket_ns[CT_MBUCKETS];
extern const char *const ct_mbucket_le[CT_MBUCKETS];

/* device="N" for N below this; "other" past it (an index a call set, bounded). */
#define CT_MDEVICE_MAX 64
#define CT_MDEVICE_OTHER (CT_MDEVICE_MAX + 1)

/* A series' label values; what the configured labels leave out is zero. */
struct ct_mkey {
	const char *plugin, *api, *kind, *job; /* in plugin tables or interned: stable */
	const char *gpu;                       /* interned UUID; NULL: not known */
	const struct ct_mwho *who;             /* cgroup, container, pod; NULL: none */
	uint32_t pid;
	int32_t rank;
	char comm[CT_COMM_LEN];
	uint16_t fam;
	uint8_t error, memory; /* bool; enum ct_mem_kind */
	uint8_t folded;        /* pid, comm, rank, job, cgroup, container, pod are "other" */
	uint8_t device;        /* the index + 1; 0: not known; CT_MDEVICE_OTHER: past the bound */
	uint8_t pad[2];
};

struct ct_mhist {
	uint64_t count, sum_ns;
	uint64_t b[CT_MBUCKETS + 1]; /* per bucket (not cumulative); the last: past the last bound */
};

struct ct_mseries {
	struct ct_mkey k;
	uint64_t v;     /* counter or gauge */
	uint32_t hist;  /* calls and durations: index in the hist array, or UINT32_MAX */
};

/* The keys the three sinks share; their contexts embed this struct. */
struct ct_metrics_conf {
	struct ct_list labels;
	uint64_t max_series;
	uint64_t exited_grace; /* ns */
};

#define CT_METRICS_KEYS(ctx, field)                                                               \
	{ "labels", CT_KEY_LIST, "plugin,api,error,pid,comm", offsetof(ctx, field.labels),          \
	  "Labels of the series, from: plugin, api, error, pid, comm, host, rank, job, cgroup, "      \
	  "container, pod, device, gpu (copy kind and memory kind are always there; device and gpu " \
	  "on the call series only)", NULL,                                                          \
	  ct_metrics_check_labels },                                                                 \
	{ "max_series", CT_KEY_U64, "5000", offsetof(ctx, field.max_series),                        \
	  "At most this many label sets; past it, pid, comm, rank, job, cgroup, container and pod "  \
	  "of new ones are folded "                                                                  \
	  "into \"other\" (counted in cudatracer_series_dropped_total)" },                          \
	{ "exited_grace", CT_KEY_DUR, "300s", offsetof(ctx, field.exited_grace),                    \
	  "The series of a process that has exited (those with its pid) are kept this long, then "  \
	  "dropped, so that a node with process churn does not grow without bound (0: at the next " \
	  "tick)" }

int ct_metrics_check_labels(const void *dst, char *why, size_t why_len);

struct ct_metrics {
	uint32_t labels;        /* configured (1 << enum ct_mlabel) */
	uint64_t max_series;
	struct ct_mseries *v;
	size_t n, cap;
	struct ct_mhist *h;
	size_t n_h, cap_h;
	uint32_t *slots;        /* hash of keys: index + 1; 0 empty */
	size_t n_slots;
	size_t n_capped;        /* series that count against max_series */
	uint64_t folded;        /* updates that went to a folded series */
	uint64_t start_ns;
	char host[256];
	char comm_raw[CT_COMM_LEN], comm[CT_COMM_LEN]; /* the last comm seen, and as a label */
	struct ct_memtrack mem;
	struct ct_u64map procs; /* pid -> rank and job, for the memory series */
	struct ct_u64map prev;  /* aggregate mode: (pid, plugin, api) -> the counts before */
	struct ct_u64map strs;  /* interned strings (copy kinds without a name, jobs, cgroups) */
	struct ct_u64map whos;  /* interned struct ct_mwho, by a hash of its three pointers */
	struct ct_u64map who_of; /* cgroup id -> its struct ct_mwho (not owned) */
	uint64_t who_id;        /* the last cgroup id seen, and its values */
	const struct ct_mwho *who_last;
	const struct ct_plugin *plugins[64];
	unsigned n_plugins;
	uint64_t exited_grace;  /* ns */
	struct ct_u64map exited; /* pid -> when it exited (wall clock, ns): its series go at + grace */
	uint32_t last_live;     /* the pid of the last event, known not to be in exited */
};

/* An immutable copy of the values at one time, shared by reference. */
struct ct_msnap {
	int refs;
	uint64_t time_ns, start_ns; /* wall clock: now, and when the series began */
	const char *host;
	uint32_t labels;
	size_t n;
	struct ct_mseries *v;       /* grouped by family, families in enum order */
	struct ct_mhist *h;
	size_t fam_start[CT_MF_N + 1];
};

int ct_metrics_init(struct ct_metrics *m, const struct ct_metrics_conf *conf, uint64_t now_ns);
void ct_metrics_free(struct ct_metrics *m);
int ct_metrics_event(struct ct_metrics *m, const struct ct_event *ev);
/* cudatracer_hung_calls: a call stuck (+1), or ended or gone (-1). */
int ct_metrics_hang(struct ct_metrics *m, const struct ct_hang *h);
/* Aggregate mode: the kernel's counts since the start, as increments. */
int ct_metrics_totals(struct ct_metrics *m, const struct ct_totals *t);
void ct_metrics_stats(struct ct_metrics *m, const struct ct_run_stats *st);
/* A label-less series of the sink's own (e.g. CT_MF_EXPORT_FAILED). */
void ct_metrics_set(struct ct_metrics *m, enum ct_mfam fam, uint64_t v);
void ct_metrics_proc_exit(struct ct_metrics *m, uint32_t pid);
/* The process exited at ts_ns: its series are dropped once exited_grace has passed. */
void ct_metrics_exit_note(struct ct_metrics *m, uint32_t pid, uint64_t ts_ns);
/* Drop the series of processes that exited more than exited_grace ago (from the sinks' tick). */
void ct_metrics_expire(struct ct_metrics *m, uint64_t now_ns);
/* A snapshot with one reference; NULL when out of memory. */
struct ct_msnap *ct_metrics_snapshot(struct ct_metrics *m, uint64_t now_ns);

void ct_msnap_put(struct ct_msnap *s);
/* The labels of x, in name order: names and values; numbers are written
 * into buf. Returns how many. */
#define CT_MLABEL_BUF 48
int ct_msnap_labels(const struct ct_msnap *s, const struct ct_mseries *x, const char *names[CT_ML_N],
		    const char *vals[CT_ML_N], char buf[CT_MLABEL_BUF]);

/*
 * The head of each metric sink's context: what the three share, and the
 * callbacks that only feed the model.
 */
struct ct_metric_sink {
	struct ct_sink_common c;
	struct ct_metrics_conf mc;
	struct ct_metrics m;
	struct ct_run_stats st; /* the latest the core passed */
};

int ct_metric_sink_event(void *ctx, const struct ct_event *ev);
int ct_metric_sink_totals(void *ctx, const struct ct_totals *t);
int ct_metric_sink_hang(void *ctx, const struct ct_hang *h);
void ct_metric_sink_stats(void *ctx, const struct ct_run_stats *st);
void ct_metric_sink_proc_exit(void *ctx, uint32_t pid, uint64_t ts_ns);
/* The model, started now. */
int ct_metric_sink_init(struct ct_metric_sink *ms);

/* The latest snapshot, for other threads. */
struct ct_mpub {
	pthread_mutex_t lock;
	struct ct_msnap *cur;
};

void ct_mpub_init(struct ct_mpub *p);
void ct_mpub_set(struct ct_mpub *p, struct ct_msnap *s); /* takes the reference */
struct ct_msnap *ct_mpub_get(struct ct_mpub *p);        /* a new reference, or NULL */
void ct_mpub_free(struct ct_mpub *p);

/* The Prometheus text exposition format, version 0.0.4 (prometheus.c). */
bool ct_prom_text(struct ct_sb *b, const struct ct_msnap *s);
/* The final values as text (ct_prom_text) into the sink's file, if one was
 * named (path set): e.g. for node_exporter's textfile collector. */
int ct_metric_sink_final(struct ct_metric_sink *ms, uint64_t now_ns);

#endif
