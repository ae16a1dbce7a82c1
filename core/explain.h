/* SPDX-License-Identifier: MIT */
#ifndef CT_EXPLAIN_H
#define CT_EXPLAIN_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "plugin/loader.h"

/*
 * --explain: what the plugins would find in a running process (pid) or a
 * program (path), and why calls may be missing: no runtime mapped, a
 * runtime without symbols, a stripped executable. Needs no BPF.
 */
int ct_explain(FILE *out, struct ct_loaded_plugin *plugins, int n, pid_t pid, const char *program,
	       bool inproc);

#endif
