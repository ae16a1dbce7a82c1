/* SPDX-License-Identifier: MIT */
/*
 * Output sinks. A sink type is one row in the sink table (registry.c): a
 * name, its config keys, the size of its context and its callbacks. The
 * config layer fills the context from the keys and the core opens `path`
 * before open(); unknown keys are refused there, with file:line.
 */
#ifndef CT_SINK_H
#define CT_SINK_H

/* The version a jsonl trace's meta line carries (docs/events.md). */
#define CT_TRACE_VERSION 1
#define CT_TRACE_VERSION_TEXT "1"

#include <stdio.h>
#include <cudatracer/event.h>
#include "config/keys.h"
#include "sinks/rotate.h"

struct ct_run_stats {
	uint64_t events;     /* events handed to sinks */
	uint64_t lost;       /* records the kernel could not reserve */
	uint64_t unpaired;   /* returns seen without their call */
	uint64_t too_deep;   /* calls nested past the capture limit */
	uint64_t filtered;   /* records dropped by user-space filters */
	uint64_t probes;     /* functions probed, summed over the files attached */
	uint64_t gpu_events; /* kernels, copies and sets handed to sinks (--gpu-activity) */
	uint64_t gpu_lost;   /* batches of them the ring had no room for */
	uint64_t launches_named, launches_unnamed; /* launches whose kernel has, has no name */
	uint64_t nvtx_ranges, nvtx_marks; /* NVTX ranges and marks handed to sinks */
	uint64_t start_ns, end_ns; /* wall clock */
};

/*
 * Aggregate mode: what the kernel counted for one API of one process, from
 * the start of the run (each report replaces the one before).
 */
struct ct_totals {
	uint32_t pid;
	const char *comm;          /* the first calling thread's name */
	const struct ct_plugin *plugin;
	uint32_t api_idx;          /* in the plugin's table */
	bool timed;                /* calls have durations (the API is not entry-only) */
	uint64_t calls, errors, total_ns, min_ns, max_ns;
	uint64_t bytes;            /* of calls that did not fail */
	const uint64_t *hist;      /* durations in hist.h's buckets 0 .. n_hist-1 */
	unsigned n_hist;
	/* The process's job environment and cgroup, looked up by pid when the
	 * totals are read (NULL: none, or it has exited). */
	const struct ct_proc_env *env;
	const struct ct_cgroup *cgroup;
	/* The process's device as it says (docs/gpu.md: the one GPU it holds
	 * open, CUDA_VISIBLE_DEVICES, the node's only GPU), as ct_event's for
	 * a call whose thread never said: device -1, from NONE, gpu NULL where
	 * nothing is known. */
	int32_t device;
	enum ct_device_from device_from;
	const struct ct_gpu_info *gpu;
};

/* Keys every sink has; the sink's own context begins with this struct. */
struct ct_sink_common {
	char *type;
	char *path;     /* "-" or unset: stdout */
	FILE *out;      /* opened by the core from path before open() */
	const char *name; /* the section's NAME */
	/* enum ct_out_mode (sinkio.h): emptied, unless a daemon's session before
	 * this one wrote the file (continued, or a new one beside it). */
	int out_mode;
	struct ct_rotate_conf rot; /* rotate_* keys: a rotatable sink's file rotated */
	/* A daemon's session before finished the file (not appendable): rotated
	 * aside before this session begins a new one at the path. */
	bool rotate_aside;
};

struct ct_sink_ops {
	const char *type;
	const char *help;
	/* A file format (jsonl, csv ...), never written into the stream a traced
	 * command also writes to; its file name's extension. NULL: text for people. */
	const char *file_ext;
	/* -o TYPE:WHERE: the key WHERE sets (NULL: path, a file) and the word
	 * --help gives it (NULL: FILE); where_help says what the sink makes of it. */
	const char *where_key, *where_arg, *where_help;
	/* A file of this format can be continued by another session (one record
	 * a line, no closing bracket): a daemon's reload appends to it. Others
	 * are finished, and the next session writes a new file beside them. */
	bool appendable;
	/* A file of this format may be rotated (rotate_* keys): it is written
	 * as it goes, one record at a time, so a new file can begin anywhere. */
	bool rotatable;
	const struct ct_key *keys; /* type-specific keys, offsets into the context */
	size_t ctx_size;           /* >= sizeof(struct ct_sink_common) */
	int (*open)(void *ctx);    /* after the file is open; may be NULL */
	int (*event)(void *ctx, const struct ct_event *ev);
	int (*tick)(void *ctx, uint64_t now_ns); /* about once a second; may be NULL */
	int (*close)(void *ctx, const struct ct_run_stats *st); /* final output; may be NULL */
	void (*destroy)(void *ctx); /* free what open() allocated; may be NULL */
	/* A traced process exited (its records have all been delivered); may be NULL.
	 * System-wide, called for the processes that made a traced call. */
	void (*proc_exit)(void *ctx, uint32_t pid, uint64_t ts_ns);
	/* Aggregate mode's counts; NULL: the sink needs every call's event and
	 * cannot run in aggregate mode. */
	int (*totals)(void *ctx, const struct ct_totals *t);
	/* The run's counters so far (records lost, probes attached), about once
	 * a second before tick, for sinks that report them live; may be NULL. */
	void (*stats)(void *ctx, const struct ct_run_stats *st);
	/* A kernel, copy or set the GPU executed (--gpu-activity); NULL: the
	 * sink shows API calls only and GPU activity passes it by. */
	int (*gpu)(void *ctx, const struct ct_gpu_event *g);
	/* A call in flight past tracer.hang_timeout, or its end (event.h's
	 * struct ct_hang); NULL: the sink does not show hangs. */
	int (*hang)(void *ctx, const struct ct_hang *h);
	/* An NVTX range that ended or a mark (docs/nvtx.md); NULL: the sink
	 * shows NVTX only as the calls' and kernels' `nvtx` lists. */
	int (*nvtx)(void *ctx, const struct ct_nvtx_event *r);
};

/* Calls with a byte count that the sinks show and add up: those that move
 * or set bytes, and allocations. A free has none of its own. */
static inline bool ct_api_has_bytes(uint32_t flags)
{
	return flags & (CT_API_MOVES_BYTES | CT_API_ALLOC);
}

const struct ct_sink_ops *ct_sink_find(const char *type);
extern const struct ct_sink_ops *const ct_sink_types[];

/* Shared formatting, so every sink shows a value the same way. */
int ct_format_field(char *buf, size_t n, const struct ct_field *f);
struct ct_sb;
/* The same appended to a buffer that grows to hold it whole (a kernel name
 * has no bound on its length); false when out of memory. */
bool ct_format_field_sb(struct ct_sb *b, const struct ct_field *f);
/* Write s as a JSON string (with quotes), escaping what JSON requires. */
void ct_json_str(FILE *out, const char *s);
/* A field's value as a JSON value (number, string or array) into a
 * buffer with room for ct_json_field_max(f) bytes reserved: the hot path's
 * version; and at a cursor, returning the new end (strbuf.h). Kernel and
 * handle names have no bound on their length. */
size_t ct_json_field_max(const struct ct_field *f);
void ct_json_field_sb(struct ct_sb *b, const struct ct_field *f);
char *ct_json_field_w(char *w, const struct ct_field *f);
/* {"devPtr":"0x7f..","size":4096}: an event's decoded arguments as one JSON
 * object, the values as jsonl writes them, NUL-terminated, replacing what
 * b held; -ENOMEM. */
int ct_args_json(struct ct_sb *b, const struct ct_event *ev);

#endif
