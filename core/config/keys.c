// SPDX-License-Identifier: MIT
/* Parsing of typed config values, shared by [tracer], [filter] and every sink. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "config/keys.h"

static int parse_u64(const char *s, uint64_t *out, const char *const *suffixes,
		     const uint64_t *mult, uint64_t bare)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (!*end) {
		*out = v * bare;
		return 0;
	}
	for (int i = 0; suffixes && suffixes[i]; i++) {
		if (!strcasecmp(end, suffixes[i])) {
			if (v > UINT64_MAX / mult[i])
				return -ERANGE;
			*out = v * mult[i];
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "true", "yes", "on", NULL };
	static const char *const no[] = { "0", "false", "no", "off", NULL };

	for (int i = 0; yes[i]; i++) {
		if (!strcasecmp(s, yes[i]))
			return *out = true, 0;
		if (!strcasecmp(s, no[i]))
			return *out = false, 0;
	}
	return -EINVAL;
}

static bool in_choices(const char *choices, const char *s)
{
	size_t n = strlen(s);
	const char *p = choices;

	while (p && *p) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);

		if (len == n && !strncmp(p, s, n))
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

int ct_key_set(const struct ct_key *k, void *base, const char *val, const char **why)
{
	static const char *const size_sfx[] = { "k", "kb", "kib", "m", "mb", "mib", "g", "gb", "gib", "b", NULL };
	static const uint64_t size_mul[] = { 1ull << 10, 1ull << 10, 1ull << 10, 1ull << 20, 1ull << 20,
					     1ull << 20, 1ull << 30, 1ull << 30, 1ull << 30, 1 };
	static const char *const dur_sfx[] = { "ns", "us", "ms", "s", NULL };
	static const uint64_t dur_mul[] = { 1, 1000, 1000000, 1000000000ull };
	void *dst = (char *)base + k->off;
	int err = 0;

	switch (k->type) {
	case CT_KEY_CHOICE:
		if (!in_choices(k->choices, val)) {
			*why = "not one of the allowed values";
			return -EINVAL;
		}
		/* fall through */
	case CT_KEY_STR:
	case CT_KEY_LIST: {
		char *copy = strdup(val);

		if (!copy)
			return -ENOMEM;
		free(*(char **)dst);
		*(char **)dst = copy;
		return 0;
	}
	case CT_KEY_BOOL:
		err = parse_bool(val, dst);
		*why = "expected true or false";
		break;
	case CT_KEY_U64:
		err = parse_u64(val, dst, NULL, NULL, 1);
		*why = "expected a non-negative integer";
		break;
	case CT_KEY_SIZE:
		err = parse_u64(val, dst, size_sfx, size_mul, 1);
		*why = "expected a size in bytes, such as 4096, 64K or 256M";
		break;
	case CT_KEY_DUR:
		err = parse_u64(val, dst, dur_sfx, dur_mul, 1000);
		*why = "expected a duration, such as 50us, 2ms or 1s (a bare number is us)";
		break;
	default:
		*why = "key of unknown type";
		return -EINVAL;
	}
	return err;
}

int ct_keys_defaults(const struct ct_key *keys, void *base)
{
	for (const struct ct_key *k = keys; k && k->name; k++) {
		const char *why;
		int err;

		if (!k->def)
			continue;
		err = ct_key_set(k, base, k->def, &why);
		if (err)
			return err;
	}
	return 0;
}

void ct_keys_free(const struct ct_key *keys, void *base)
{
	for (const struct ct_key *k = keys; k && k->name; k++) {
		if (k->type == CT_KEY_STR || k->type == CT_KEY_LIST || k->type == CT_KEY_CHOICE) {
			char **p = (char **)((char *)base + k->off);

			free(*p);
			*p = NULL;
		}
	}
}

const struct ct_key *ct_key_find(const struct ct_key *keys, const char *name)
{
	for (const struct ct_key *k = keys; k && k->name; k++)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}
