/* SPDX-License-Identifier: MIT */
#ifndef CT_PROBE_H
#define CT_PROBE_H

#include <stdbool.h>
#include <sys/types.h>
#include <cudatracer/record.h>
#include "plugin/loader.h"

struct bpf_object;
struct bpf_link;
struct bpf_map;

enum ct_attach_mode { CT_ATTACH_AUTO, CT_ATTACH_MULTI, CT_ATTACH_SINGLE };

struct ct_probe_opts {
	uint64_t ringbuf_size;
	uint64_t wakeup_bytes;
	bool filter_pids;
	int pids_fd;            /* the watcher's pid map, shared */
	int callstack_fd;       /* the watcher's call stack map, shared (-1: own) */
	uint32_t plugin_id;     /* 1-based when several plugins run (parents are tracked), else 0 */
	enum ct_attach_mode mode;
	const bool *enabled;    /* per API: trace it */
	const bool *entry_only; /* per API: override to entry-only (NULL: the table's) */
	bool aggregate;         /* count per API in BPF maps; no records */
};

struct ct_attached_file {
	dev_t dev;
	ino_t ino;
	char *path;
	int n_syms;
};

/* One plugin's BPF object, its links, and the files it probes. */
struct ct_probe {
	struct ct_loaded_plugin *lp;
	struct bpf_object *obj;
	bool multi;            /* uprobe_multi in use */
	struct bpf_link **links;
	int n_links;
	struct ct_attached_file *files;
	int n_files;
	bool *warned_missing;  /* per API: "symbol missing" said once */
	const bool *enabled;
	bool *entry_only;      /* per API, as attached */
	const char **names;    /* symbol per API, for the ELF resolver */
};

int ct_probe_open(struct ct_probe *pr, struct ct_loaded_plugin *lp, const struct ct_probe_opts *o);
/*
 * Probe every enabled API that `path` defines. `display` names the file in
 * messages. Attaching a file twice (same inode) is a no-op returning 0.
 * Returns the number of symbols attached (0 when the file defines none of them).
 */
int ct_probe_attach_file(struct ct_probe *pr, const char *path, const char *display);
/* Does `path` define any of this plugin's symbols? (static runtimes) */
bool ct_probe_file_has_symbols(struct ct_probe *pr, const char *path);
int ct_probe_ringbuf_fd(struct ct_probe *pr);
/* Aggregate mode: the per-API totals, summed over CPUs, into out[n_apis]. */
int ct_probe_aggregates(struct ct_probe *pr, struct ct_agg *out);
/* Sum of the per-CPU counters. */
int ct_probe_stats(struct ct_probe *pr, uint64_t *out, int n);
void ct_probe_close(struct ct_probe *pr);

#endif
