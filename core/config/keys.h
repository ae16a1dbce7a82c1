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
	CT_KEY_LIST,    /* struct ct_list: split at commas once, when the key is set */
	CT_KEY_CHOICE,  /* an enum: the index of the word in `choices` */
};

/* A CT_KEY_LIST value: the items between commas and blanks, empty ones left out. */
struct ct_list {
	char **v;
	size_t n;
};

struct ct_key {
	const char *name;
	uint8_t type;
	const char *def;     /* default as text, or NULL */
	size_t off;          /* offset of the destination in the context */
	const char *help;
	/* CT_KEY_CHOICE: the allowed words, NULL-ended, indexed by the enum
	 * that the destination has (an enum is int-sized: no -fshort-enums). */
	const char *const *choices;
	/* Checks a value once it is parsed (a range, a list's items); 0, or
	 * -EINVAL with the reason written to why. May be NULL. */
	int (*check)(const void *dst, char *why, size_t why_len);
	/* A string without a default that must be given: a sink that has it
	 * unset is refused where the config is read (with its section's line). */
	bool required;
	/* A required key's value in --config-help's example, commented out. */
	const char *example;
};

/* A check: an integer, size or duration more than 0. */
int ct_check_positive(const void *dst, char *why, size_t why_len);

/* Parse `val` for key `k` into base+k->off. Returns 0, or -EINVAL or
 * -ERANGE with the reason written to why (the allowed words of a choice). */
int ct_key_set(const struct ct_key *k, void *base, const char *val, char *why, size_t why_len);
/* Apply every default of a table. */
int ct_keys_defaults(const struct ct_key *keys, void *base);
void ct_keys_free(const struct ct_key *keys, void *base);
const struct ct_key *ct_key_find(const struct ct_key *keys, const char *name);

#endif
