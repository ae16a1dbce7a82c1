/* SPDX-License-Identifier: MIT */
#ifndef CT_PLUGIN_NUMBER_H
#define CT_PLUGIN_NUMBER_H

#include <cudatracer/plugin.h>

/*
 * Sinks that keep per-plugin state number the plugins in the order they
 * meet them (an event carries only a pointer to its plugin): the number of
 * `p` in list[0..*n), added at the end if new. -E2BIG when `cap` are known.
 */
int ct_plugin_number(const struct ct_plugin **list, unsigned *n, unsigned cap,
		     const struct ct_plugin *p);
/* For a context with `plugins[]` and `n_plugins`. */
#define CT_PLUGIN_NUMBER(ctx, p) \
	ct_plugin_number((ctx)->plugins, &(ctx)->n_plugins, \
			 sizeof((ctx)->plugins) / sizeof((ctx)->plugins[0]), (p))

#endif
