/* SPDX-License-Identifier: MIT */
#ifndef CT_OUTPUT_H
#define CT_OUTPUT_H

#include "config/config.h"
#include "sinks/sink.h"

/* The configured sinks, opened: dispatch events, tick, close. */
struct ct_output {
	struct ct_config *conf;
	bool *dead;   /* a sink that failed (full disk, closed pipe) is stopped alone */
	bool *opened;
};

int ct_output_open(struct ct_output *o, struct ct_config *conf);
void ct_output_event(struct ct_output *o, const struct ct_event *ev);
void ct_output_tick(struct ct_output *o, uint64_t now_ns);
/* Aggregate mode: the kernel's counts of one process's API to every sink. */
void ct_output_totals(struct ct_output *o, const struct ct_totals *t);
/* GPU activity to every sink that takes it. */
void ct_output_gpu(struct ct_output *o, const struct ct_gpu_event *g);
void ct_output_proc_exit(struct ct_output *o, uint32_t pid, uint64_t ts_ns);
/* Final output of every sink and close its file. Returns -EIO if any sink failed. */
int ct_output_close(struct ct_output *o, const struct ct_run_stats *st);

#endif
