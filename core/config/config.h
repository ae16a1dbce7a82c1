/* SPDX-License-Identifier: MIT */
#ifndef CT_CONFIG_H
#define CT_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "config/choices.h"
#include "sinks/sink.h"

/* Where a daemon takes capture requests, and `cudatracer capture` sends them. */
#define CT_CONTROL_SOCKET "/run/cudatracer/control.sock"

/* At most this many plugins in one session ([tracer] plugins). */
#define CT_MAX_PLUGINS 8

struct ct_tracer_conf {
	struct ct_list plugins; /* names or paths: 1 to CT_MAX_PLUGINS */
	enum ct_profile profile;
	uint64_t ringbuf_size;
	uint64_t wakeup_bytes;
	enum ct_reader_priority reader_priority;
	char *plugin_path;  /* colon-separated folders */
	enum ct_attach_mode attach;
	char *lib;          /* probe this file, for every process that maps it */
	enum ct_trace_mode mode;
	enum ct_engine_kind engine; /* ebpf, or inproc: interposed in a command (docs/engines.md) */
	enum ct_inproc_clock inproc_clock; /* auto: the TSC where it keeps CLOCK_MONOTONIC's time */
	uint64_t inproc_ring_size; /* --engine inproc's shared ring (ringbuf_size is the BPF one's) */
	struct ct_list entry_only; /* API globs recorded at entry only, besides the plugins' own */
	struct ct_list timed;      /* API globs timed all the same: over entry_only and the plugins */
	char *aggregate_path; /* aggregate mode: where the table goes */
	bool scan_libraries; /* check every library a traced process loads for a linked-in runtime */
	bool scan_execs;     /* system-wide: check each new executable for a linked-in runtime */
	bool gpu_activity;   /* kernels, copies and sets on the device, from CUPTI (docs/gpu.md) */
	char *inject_library; /* the injection library for gpu_activity; unset: found beside the binary */
	bool nvtx;           /* a command's NVTX ranges and marks (docs/nvtx.md) */
	char *cupti_path;    /* the libcupti the injection library opens; unset: it looks (docs/gpu.md) */
	bool daemon;         /* system-wide, long-running: SIGHUP reloads the config (docs/daemon.md) */
	bool start_paused;   /* attach, record nothing until SIGUSR2 (SIGUSR1 pauses again) */
	uint64_t duration;   /* ns: tracing stops this long after it began (0: no limit) */
	char *control_socket; /* daemon: capture requests (control/server.c); empty: none */
	char *hang_timeout;   /* auto, off or a duration: ct_config_hang_timeout() */
};

struct ct_filter_conf {
	uint64_t pid;       /* 0, or 1 to INT_MAX */
	char *comm;
	char *cgroup;       /* a cgroup v2 directory: only tasks in it or below */
	struct ct_list include; /* API globs */
	struct ct_list exclude;
	uint64_t min_duration; /* ns */
	bool errors_only;
};

/* [stacks]: call stacks on the events of chosen APIs (docs/stacks.md). */
struct ct_stacks_conf {
	bool enabled;          /* --stacks */
	struct ct_list apis;   /* classes (alloc, free, launch, copy, set, sync, errors, all) or API globs */
	enum ct_stack_method method;
	uint64_t depth;        /* frames kept, 1 to 127 */
	uint64_t map_entries;  /* distinct stacks the kernel keeps (method fp) */
	uint64_t dwarf_bytes;  /* method dwarf: bytes of stack copied per call */
	bool python;           /* Python frames of a CPython process (docs/stacks-python.md) */
};

/* [analysis]: why the GPU was idle, in a live run's sinks (docs/analysis.md). */
struct ct_analysis_conf {
	char *step_range;      /* steps are the NVTX ranges whose name matches (fnmatch) */
	char *step_function;   /* steps run from one entry into this Python function to the next */
	uint64_t host_gap_ns;  /* a pause before a launch this long is host work */
	char *link_gbps;       /* the host link's bandwidth, GB/s (a number) */
};

/* One [sink.NAME] section; its keys are kept raw until the type is known. */
struct ct_sink_conf {
	char *name;
	char *file;          /* config file it came from, for messages */
	int line;            /* line of the section header */
	int n_kv;
	/* from: where a key set from the command line came from ("-C sink.x.path=y");
	 * NULL for a key of the file, at `line` */
	struct { char *key, *val, *from; int line; } *kv;
	const struct ct_sink_ops *ops;
	void *ctx;           /* filled by ct_config_finish(): ops->ctx_size bytes */
};

#define CT_MAX_SINKS 64

struct ct_config {
	struct ct_tracer_conf tracer;
	struct ct_filter_conf filter;
	struct ct_stacks_conf stacks;
	struct ct_analysis_conf analysis;
	int n_sinks;
	struct ct_sink_conf *sinks;
};

void ct_config_init(struct ct_config *c);
void ct_config_free(struct ct_config *c);
/* Read an INI file into c. Errors are printed as file:line: message. */
int ct_config_load(struct ct_config *c, const char *path);
/* Set one key, as from the command line: "section.key=value" or a known pair;
 * section "sink.NAME" sets a key of that sink (made if there is none yet). */
int ct_config_set(struct ct_config *c, const char *section, const char *key,
		  const char *val, const char *origin);
/*
 * Add a sink of `type` writing to `path` (NULL: none given), from the command
 * line. `name` NULL: the type's name, or type2, type3 ... when taken, so that
 * -C sink.NAME.key=value can address it. Returns 0, or -EINVAL (said, naming
 * `origin`) for a name that is not [A-Za-z0-9_-] or is taken.
 */
int ct_config_add_sink_named(struct ct_config *c, const char *name, const char *type, const char *path,
			     const char *origin);
/* The same, named by its type, origin "-o TYPE[:WHERE]". */
int ct_config_add_sink(struct ct_config *c, const char *type, const char *path);
/* -C's argument, SECTION.KEY=VALUE or sink.NAME.KEY=VALUE, split in place
 * (NULs written into arg). Returns 0, or -EINVAL said with the argument. */
int ct_config_split_set(char *arg, char **section, char **key, char **val);
/* Resolve sink types and fill their contexts. */
int ct_config_finish(struct ct_config *c);
/* Print every section and key with its default and help, as INI comments. */
void ct_config_help(FILE *out, bool markdown);
/* tracer.hang_timeout in ns (auto: off, or CT_HANG_TIMEOUT_DAEMON in a daemon); 0: off. */
#define CT_HANG_TIMEOUT_DAEMON "5m"
uint64_t ct_config_hang_timeout(const struct ct_config *c);
/* analysis.link_gbps as a number (checked when set). */
double ct_config_link_gbps(const struct ct_config *c);

#endif
