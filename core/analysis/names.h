/* SPDX-License-Identifier: MIT */
/*
 * Strings the analysis keeps (kernel names, call sites, API names) as small
 * ids, each string once. Bounded: past CT_NAMES_MAX strings or
 * CT_NAMES_BYTES bytes a new string is id 0, "(other)", and counted.
 */
#ifndef CT_ANALYSIS_NAMES_H
#define CT_ANALYSIS_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include "util/u64map.h"

#define CT_NAMES_MAX (1u << 20)
#define CT_NAMES_BYTES (64u << 20)

struct ct_names {
	struct ct_u64map by_hash; /* hash -> id + 1 (a collision moves to hash + 1) */
	char **str;               /* id -> string; str[0] is "(other)" */
	uint32_t n, cap;
	size_t bytes;
	uint64_t over;            /* strings that got id 0 for want of room */
};

int ct_names_init(struct ct_names *t);
/* The id of s[0..len); 0 when full (or out of memory). */
uint32_t ct_names_id(struct ct_names *t, const char *s, size_t len);
static inline const char *ct_names_str(const struct ct_names *t, uint32_t id)
{
	return t->str[id];
}
void ct_names_free(struct ct_names *t);

#endif
