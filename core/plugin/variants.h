/* SPDX-License-Identifier: MIT */
#ifndef CT_PLUGIN_VARIANTS_H
#define CT_PLUGIN_VARIANTS_H

#include <stddef.h>
#include <cudatracer/plugin.h>

/*
 * The descriptor as the rest of the core sees it: a copy with one API per
 * symbol. A row with variants becomes the row, then one API per suffix
 * (symbol + suffix, same layout), in table order; no variants are left.
 * Only for a descriptor that ct_plugin_validate() accepted.
 * One allocation: free() it.
 */
struct ct_plugin *ct_plugin_expand(const struct ct_plugin *p);

#endif
