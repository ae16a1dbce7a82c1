/* SPDX-License-Identifier: MIT */
/*
 * The command line as data: one row per option, {name, short, argument,
 * help}. The same rows give getopt_long its table and print --help, and
 * --help is what the man page cudatracer(1) is generated from.
 */
#ifndef CT_OPTIONS_H
#define CT_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* getopt_long's values of the options without a short letter. */
enum {
	OPT_LIB = 256, OPT_PROFILE, OPT_INCLUDE, OPT_EXCLUDE, OPT_ERRORS_ONLY, OPT_MIN_DUR,
	OPT_RINGBUF, OPT_ATTACH, OPT_CONFIG_HELP, OPT_NO_CONFIG, OPT_GPU_ACTIVITY, OPT_LIST_PLUGINS, OPT_LIST_APIS,
	OPT_EXPLAIN, OPT_CGROUP, OPT_ENGINE, OPT_DAEMON, OPT_STACKS, OPT_DURATION,
	OPT_CHECK_CONFIG, OPT_HANG_TIMEOUT, OPT_STEP_RANGE, OPT_STEP_FUNCTION,
};

struct ct_option {
	const char *heading; /* a group's title: a row with nothing else */
	const char *name;    /* long name; NULL on a row that only shows `arg` (-- COMMAND) */
	int short_name;      /* the letter, or 0 */
	int has_arg;         /* no_argument, required_argument, optional_argument */
	int val;             /* what getopt_long returns: short_name or an OPT_ value */
	const char *arg;     /* the argument as --help names it: "PID", "[=FORMAT]" */
	const char *help;    /* lines separated by '\n' */
	const char *key;     /* the config key it sets ("tracer.ringbuf_size"), for advice that names both */
};

/* Every row, ended by one with neither heading nor name nor arg. */
extern const struct ct_option ct_options[];

/* The most options getopt_long is given, its ending row included. */
#define CT_OPTIONS_MAX 48

/* Fill getopt_long's tables from ct_options: longs (n rows) and shorts (n
 * bytes, beginning with "+": options end at the first word that is not
 * one). Returns 0 or -ENOSPC. */
int ct_options_getopt(struct option *longs, size_t n, char *shorts, size_t n_shorts);
/* How a user sets config key KEY ("tracer.ringbuf_size"), for advice: the
 * option that sets it, if one does, and the INI key ("--ringbuf-size or
 * [tracer] ringbuf_size"). Into buf of n bytes; returns buf. */
const char *ct_options_how_to_set(const char *key, char *buf, size_t n);
/* --help: the synopsis, then every group of options. */
void ct_options_usage(FILE *out);

#endif
