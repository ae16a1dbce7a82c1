/* SPDX-License-Identifier: MIT */
#ifndef CT_PLUGIN_VALIDATE_H
#define CT_PLUGIN_VALIDATE_H

#include <stddef.h>
#include <cudatracer/plugin.h>

/* The fields every descriptor has; the optional BPF hook comes after them. */
#define CT_PLUGIN_MIN_SZ offsetof(struct ct_plugin, bpf_hook)

/* What the core accepts of a table; past these a table is broken, not big. */
#define CT_PLUGIN_MAX_SZ 4096   /* descriptor bytes, unknown tail included */
#define CT_PLUGIN_NAME_MAX 32   /* bytes of a plugin's name */
#define CT_PLUGIN_MAX_APIS 4096 /* APIs, variants included */
#define CT_PLUGIN_MAX_LIBRARIES 16
#define CT_ENUM_MAX 65536       /* entries of an enum or error table */
#define CT_SYMBOL_MAX 255       /* bytes of a symbol, its variant's suffix included */
#define CT_TEXT_MAX 255         /* bytes of any other name, version or description */

/*
 * Check a descriptor the way the loader needs it before reading any of it:
 * the head (ABI version, `sz` against this core's struct, unknown tail bytes
 * zero), then every table and row. Every pointer is probed before it is
 * read, so a wild one is refused, not followed. Returns 0, or a negative errno with a
 * message in `why` that names the plugin, the row (index and symbol) and the
 * field: -EPROTO for a head of another ABI, -E2BIG for a longer descriptor
 * with non-zero bytes this core does not know, -EINVAL for a bad table.
 */
int ct_plugin_validate(const struct ct_plugin *p, char *why, size_t why_len);

#endif
