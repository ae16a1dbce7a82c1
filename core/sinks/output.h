/* SPDX-License-Identifier: MIT */
#ifndef CT_OUTPUT_H
#define CT_OUTPUT_H

#include "config/config.h"
#include "sinks/sink.h"

/* The configured sinks, opened: dispatch events, tick, close. */
struct ct_output {
	struct ct_config *conf;
	bool *dead;   /* a sink that failed (full disk, closed pipe) is stopped alone */
	int *why;     /* the errno it failed with, said again at the close (0: abandoned) */
	int n_dead;
	bool *opened;
	bool *live;   /* writes to a pipe or terminal: flushed after each batch */
	bool *named;  /* a file format given no path, written to a file named here */
	/* Sinks with rotate_size or rotate_interval: the rotation, and the
	 * context as the config left it, which each new file begins from. */
	struct ct_rotor **rot;
	void **pristine;
};

/* Tracing a command: it shares our standard output and error. */
struct ct_output_cmd {
	const char *argv0; /* its name, for file names */
	int pid;
};

int ct_output_open(struct ct_output *o, struct ct_config *conf);
/*
 * The same, tracing the command `cmd` (NULL: a pid or every process). The
 * command writes to the file descriptors 1 and 2 it inherits from us, so a
 * file-format sink (ops->file_ext) may not write where they point: given no
 * path, it writes a new file cudatracer-COMMAND-PID.EXT in the current
 * folder (or -2, -3 ... before the extension when that name is taken), said
 * on stderr; given a path that is the same file, pipe or terminal as fd 1 or
 * fd 2 ("-" among them; /dev/null aside), it is refused. Compared by device
 * and inode once the file is open, so a path that names fd 1's file another
 * way is caught as well.
 */
int ct_output_open_cmd(struct ct_output *o, struct ct_config *conf, const struct ct_output_cmd *cmd);
/* Hand what the last batch of events wrote to a pipe or terminal on now,
 * not when a 1 MiB buffer fills or at the next tick; and rotate the files
 * past their rotate_size (between batches: no event is split or lost). */
void ct_output_flush_live(struct ct_output *o);
void ct_output_event(struct ct_output *o, const struct ct_event *ev);
/* About once a second: each sink's tick, and the files past their
 * rotate_interval rotated. */
void ct_output_tick(struct ct_output *o, uint64_t now_ns);
/* Aggregate mode: the kernel's counts of one process's API to every sink. */
void ct_output_totals(struct ct_output *o, const struct ct_totals *t);
/* The run's counters so far, to the sinks that show them live. */
void ct_output_stats(struct ct_output *o, const struct ct_run_stats *st);
/* GPU activity to every sink that takes it. */
void ct_output_gpu(struct ct_output *o, const struct ct_gpu_event *g);
void ct_output_hang(struct ct_output *o, const struct ct_hang *h);
void ct_output_nvtx(struct ct_output *o, const struct ct_nvtx_event *r);
void ct_output_proc_exit(struct ct_output *o, uint32_t pid, uint64_t ts_ns);
/* Every sink failed (a reader that went away, a full disk): nothing that
 * is traced from now on goes anywhere, so tracing stops. */
bool ct_output_all_dead(const struct ct_output *o);
/* Final output of every sink and close its file. Returns -EIO if any sink
 * failed, each named again with its error (the line said when it failed may
 * be screens above). */
int ct_output_close(struct ct_output *o, const struct ct_run_stats *st);
/* Close every sink's file without its final output: for a run that failed,
 * whose summary or report would be empty or wrong. */
void ct_output_abandon(struct ct_output *o);

#endif
