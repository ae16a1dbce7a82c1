/* SPDX-License-Identifier: MIT */
/*
 * Per-process, per-API call statistics (calls, errors, time, percentiles,
 * bytes by copy kind), fed with decoded events. The summary and html sinks
 * share it. Runtime-agnostic: bytes and kinds come from API flags and
 * argument roles, never from API names.
 */
#ifndef CT_APISTATS_H
#define CT_APISTATS_H

#include <stdbool.h>
#include <stdint.h>
#include <cudatracer/event.h>
#include "sinks/hist.h"
#include "sinks/stackfmt.h"
#include "util/u64map.h"

struct ct_kind_stat {
	char *name;       /* the copy kind's enum name; "" if the API has none */
	uint64_t calls;   /* successful calls of this kind */
	uint64_t bytes;
};

/* Distinct sites kept per API and error; calls at sites past them are
 * counted in `unlisted`, so that a program failing from everywhere stays bounded. */
#define CT_ERR_SITES_MAX 256

/* The failed calls of one API with one error, by the calls' site (--stacks). */
struct ct_err_stat {
	char *name;        /* the error's name; its number when the table has none */
	uint64_t calls;
	uint64_t stacked;  /* calls that carried a stack */
	uint64_t unlisted; /* stacked calls at a site past CT_ERR_SITES_MAX */
	struct ct_sites sites; /* ct_site.count: the calls there */
};

struct ct_api_stat {
	char *plugin;
	char *api;
	uint32_t flags;   /* the API's CT_API_* flags */
	uint64_t calls;
	uint64_t errors;
	uint64_t timed;   /* calls with a duration (not entry-only) */
	uint64_t total_ns;
	/* Calls made inside another traced call (a driver call inside a runtime
	 * call, depth > 0): their time is already in the outer call's, so the
	 * share of the process's time counts only outer_ns. */
	uint64_t nested;
	uint64_t outer_ns;
	uint64_t bytes;   /* moved, set or allocated by successful calls */
	struct ct_kind_stat *kinds;
	size_t n_kinds;
	struct ct_err_stat *errs; /* failed calls by the error's name */
	size_t n_errs;
	struct ct_hist hist; /* durations; also holds min and max */
};

struct ct_proc_stat {
	uint32_t pid;
	char comm[CT_COMM_LEN];
	uint64_t calls, errors;
	uint64_t total_ns;          /* in outermost calls: each instant counted once */
	uint64_t first_ns, last_ns; /* wall clock: first call's start, last call's end */
	struct ct_u64map apis;      /* (plugin number << 32 | api index) -> ct_api_stat */
};

struct ct_apistats {
	struct ct_u64map procs;     /* pid -> ct_proc_stat */
	/* Processes folded together at their end (ct_apistats_fold): pid 0,
	 * calls its number of processes; NULL until the first. */
	struct ct_proc_stat *ended;
	uint64_t n_ended;
	const struct ct_plugin *plugins[64];
	unsigned n_plugins;
	uint64_t calls, total_ns;
};

int ct_apistats_add(struct ct_apistats *s, const struct ct_event *ev);
struct ct_totals;
/* Aggregate mode: an API's figures as the kernel counted them since the
 * start, in place of the ones before; *more_calls and *more_ns: what they
 * added to those (the by-device table adds them to the process's device). */
int ct_apistats_set(struct ct_apistats *s, const struct ct_totals *t, uint64_t *more_calls, uint64_t *more_ns);
void ct_apistats_free(struct ct_apistats *s);
/* A process that has ended joins `ended`: its figures are added to those of
 * the same API there and its own are freed. The sites of its errors are
 * not kept (counted as at other sites). 0, or -ENOMEM with nothing changed. */
int ct_apistats_fold(struct ct_apistats *s, uint32_t pid);

/* Processes by pid; the caller frees the array (not its members). */
int ct_apistats_procs(const struct ct_apistats *s, struct ct_proc_stat ***out, size_t *n);
/* A process's APIs, most total time first; the caller frees the array. */
int ct_apistats_sorted(const struct ct_proc_stat *p, struct ct_api_stat ***out, size_t *n);

/* An error's sites, most calls first (ct_sites_sorted()); free() the array. */
static inline struct ct_site **ct_err_stat_sites(const struct ct_err_stat *e, size_t *n)
{
	return ct_sites_sorted(&e->sites, ct_site_cmp_count, n);
}

/* The API's share of its process's time in traced calls, in percent. */
static inline double ct_api_stat_pct(const struct ct_api_stat *a, const struct ct_proc_stat *p)
{
	return p->total_ns ? 100.0 * (double)a->outer_ns / (double)p->total_ns : 0.0;
}

/* A call made inside another traced call. */
static inline bool ct_event_nested(const struct ct_event *ev)
{
	return ev->depth > 0 || ev->parent_api;
}

static inline uint64_t ct_api_stat_avg(const struct ct_api_stat *a)
{
	return a->timed ? a->total_ns / a->timed : 0;
}

#endif
