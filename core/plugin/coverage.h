/* SPDX-License-Identifier: MIT */
/* How much of what a runtime library exports a plugin's table covers. */
#ifndef CT_PLUGIN_COVERAGE_H
#define CT_PLUGIN_COVERAGE_H

#include <stdbool.h>
#include <stdio.h>
#include <cudatracer/plugin.h>

/*
 * Count the functions `path` (shown as `display`) exports (global or weak, by name) against the
 * plugin's table: in the table, traced (on[i] of the table, or NULL: none
 * said), and write to `out`, after `indent`, one line of figures and one
 * naming the exported functions the table lacks (the first 20, then a count).
 * Returns 0 or -errno (the file could not be read as ELF).
 */
int ct_coverage_print(FILE *out, const char *indent, const char *path, const char *display,
		      const struct ct_plugin *p, const bool *on);

#endif
