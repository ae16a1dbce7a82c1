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

/* A file looked at: by the inode of the descriptor held for it. */
struct ct_attached_file {
	dev_t dev;
	ino_t ino;
	int fd;      /* O_PATH, held while its links are; -1 where attaching failed */
	char *path;
	int n_syms;  /* 0: attaching failed (said once, not tried again) */
};

/* A link: libbpf's, or a uprobe session's descriptor (libbpf 1.4 cannot make one). */
struct ct_link {
	struct bpf_link *l;
	int fd;
};

/* One plugin's links into the session's engine, and the files it probes. */
struct ct_probe {
	struct ct_loaded_plugin *lp;
	const struct ct_engine *engine;
	uint32_t number;       /* the plugin's place in the session (call ids) */
	struct ct_link *links;
	int n_links;
	struct ct_attached_file *files;
	int n_files;
	int n_failed;          /* files whose links could not be attached */
	bool *warned_missing;  /* per API: "symbol missing" said once */
	const bool *enabled;   /* per API */
	const bool *entry_only; /* per API, as attached */
	const char **names;    /* symbol per API, for the ELF resolver */
};

/* Ready to attach plugin `number` of the session (its engine loaded). */
int ct_probe_open(struct ct_probe *pr, struct ct_loaded_plugin *lp, uint32_t number,
		  const struct ct_engine *engine, const bool *enabled, const bool *entry_only);
/*
 * Probe every enabled API that the file at `path` defines: `path` is opened
 * once (O_PATH), and that descriptor is what is identified (its inode),
 * read, attached through /proc/self/fd/N and held until ct_probe_close, so
 * a /proc/PID/fd/N or a process's path may vanish right after this returns.
 * `display` names the file in messages. A file already probed, or that
 * failed once, is a no-op returning 0. Entry and exit links are attached
 * together or not at all. Returns the number of symbols attached (0 when
 * the file defines none of them), or -errno.
 */
int ct_probe_attach_file(struct ct_probe *pr, const char *path, const char *display);
/* The same for a file found by its name (in a folder, in a process's maps or
 * opens), not one the user named: one that is not ELF is no runtime, said
 * with -v only. */
int ct_probe_attach_found(struct ct_probe *pr, const char *path, const char *display);
/* Does `path` define any of this plugin's symbols? (static runtimes) */
bool ct_probe_file_has_symbols(struct ct_probe *pr, const char *path);
/* Take the probes out (the files stay open): no record is made after it. */
void ct_probe_detach(struct ct_probe *pr);
void ct_probe_close(struct ct_probe *pr);

#endif
