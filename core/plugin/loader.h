/* SPDX-License-Identifier: MIT */
#ifndef CT_PLUGIN_LOADER_H
#define CT_PLUGIN_LOADER_H

#include <stdbool.h>
#include <stdio.h>
#include <cudatracer/plugin.h>

struct ct_loaded_plugin {
	void *dl;
	const struct ct_plugin *p;   /* the core's copy: one API per symbol (variants expanded) */
	const struct ct_plugin *raw; /* the descriptor as the plugin exports it */
	char *path;
};

/* Folders searched for "libct-NAME.so", in order, NULL-terminated; free with ct_plugin_dirs_free. */
char **ct_plugin_dirs(const char *conf_path);
void ct_plugin_dirs_free(char **dirs);

/* Load by name (searched in dirs) or by path (contains '/'). Logs why on failure. */
int ct_plugin_load(const char *name_or_path, char *const *dirs, struct ct_loaded_plugin *out);
void ct_plugin_unload(struct ct_loaded_plugin *lp);
/*
 * Load into loaded[n] unless a plugin of the same name is among
 * loaded[0..n): named twice (by name, by path, or both) it is the same
 * runtime, and probed twice every call would be recorded twice. Returns 1
 * (loaded), 0 (a duplicate: warned, nothing kept) or a negative errno.
 */
int ct_plugin_load_once(const char *name_or_path, char *const *dirs, struct ct_loaded_plugin *loaded, int n);

/* --list-plugins */
int ct_plugin_list(char *const *dirs, FILE *out);

#endif
