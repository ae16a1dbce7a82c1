/* SPDX-License-Identifier: MIT */
#ifndef CT_PROBE_H
#define CT_PROBE_H

#include <stdbool.h>
#include <sys/types.h>
#include "config/choices.h" /* enum ct_attach_mode */
#include "capture/engine.h"
#include "plugin/loader.h"

struct bpf_link;
struct ct_engine;

struct ct_attached_file {
	dev_t dev;
	ino_t ino;
	char *path;
	int n_syms;
};

/* One plugin's links into the session's engine, and the files it probes. */
struct ct_probe {
	struct ct_loaded_plugin *lp;
	const struct ct_engine *engine;
	uint32_t number;       /* the plugin's place in the session (call ids) */
	struct bpf_link **links;
	int n_links;
	struct ct_attached_file *files;
	int n_files;
	bool *warned_missing;  /* per API: "symbol missing" said once */
	const bool *enabled;   /* per API */
	const bool *entry_only; /* per API, as attached */
	const char **names;    /* symbol per API, for the ELF resolver */
};

/* Ready to attach plugin `number` of the session (its engine loaded). */
int ct_probe_open(struct ct_probe *pr, struct ct_loaded_plugin *lp, uint32_t number,
		  const struct ct_engine *engine, const bool *enabled, const bool *entry_only);
/*
 * Probe every enabled API that `path` defines. `display` names the file in
 * messages. Attaching a file twice (same inode) is a no-op returning 0.
 * Returns the number of symbols attached (0 when the file defines none of them).
 */
int ct_probe_attach_file(struct ct_probe *pr, const char *path, const char *display);
/* Does `path` define any of this plugin's symbols? (static runtimes) */
bool ct_probe_file_has_symbols(struct ct_probe *pr, const char *path);
void ct_probe_close(struct ct_probe *pr);

#endif
