/* SPDX-License-Identifier: MIT */
/*
 * Config keys as data: one row per key, {name, type, default, offset, help}.
 * The same rows drive the INI parser, --config-help and docs/config.md.
 */
#ifndef CT_KEYS_H
#define CT_KEYS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

enum ct_key_type {
	CT_KEY_STR = 1, /* char *, strdup'ed */
	CT_KEY_BOOL,    /* bool: true/false/yes/no/1/0/on/off */
	CT_KEY_U64,     /* uint64_t, decimal */
	CT_KEY_SIZE,    /* uint64_t bytes; K, M, G suffixes */
	CT_KEY_DUR,     /* uint64_t ns; ns, us, ms, s suffixes (bare number: us) */
	CT_KEY_LIST,    /* char *, comma-separated list kept as given */
	CT_KEY_CHOICE,  /* char *, one of `choices` (|-separated) */
};

struct ct_key {
	const char *name;
	uint8_t type;
	const char *def;     /* default as text, or NULL */
	size_t off;          /* offset of the destination in the context */
	const char *help;
	const char *choices; /* CT_KEY_CHOICE: "a|b|c" */
};

/* Parse `val` for key `k` into base+k->off. Returns 0 or -EINVAL with *why set. */
int ct_key_set(const struct ct_key *k, void *base, const char *val, const char **why);
/* Apply every default of a table. */
int ct_keys_defaults(const struct ct_key *keys, void *base);
void ct_keys_free(const struct ct_key *keys, void *base);
const struct ct_key *ct_key_find(const struct ct_key *keys, const char *name);

#endif
