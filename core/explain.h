/* SPDX-License-Identifier: MIT */
#ifndef CT_EXPLAIN_H
#define CT_EXPLAIN_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "config/config.h"
#include "plugin/loader.h"

/*
 * --explain: what the plugins would find in a running process (pid) or a
 * program (path), and why calls may be missing: no runtime mapped, a
 * runtime without symbols, a stripped executable; and which traced APIs
 * are recorded at entry only, and what said so. Needs no BPF.
 */
int ct_explain(FILE *out, const struct ct_config *c, struct ct_loaded_plugin *plugins, int n, pid_t pid,
	       const char *program);

#endif
