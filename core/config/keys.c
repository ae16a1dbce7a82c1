// SPDX-License-Identifier: MIT
/* Parsing of typed config values, shared by [tracer], [filter] and every sink. */
#include <errno.h>
#include <stdio.h>
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

static const char *const bool_yes[] = { "true", "yes", "on", "1", NULL };
static const char *const bool_no[] = { "false", "no", "off", "0", NULL };

static int parse_bool(const char *s, bool *out)
{
	for (int i = 0; bool_yes[i]; i++) {
		if (!strcasecmp(s, bool_yes[i]))
			return *out = true, 0;
		if (!strcasecmp(s, bool_no[i]))
			return *out = false, 0;
	}
	return -EINVAL;
}

/*
 * A duration in whole ns: digits, an optional fraction, a unit (ns, us, ms,
 * s, m, h; none: us), so "0.2ms", "1.5s", "2m" and "50" (us) all work. A value finer
 * than a nanosecond ("0.5ns") is refused rather than rounded.
 */
static int parse_dur(const char *s, uint64_t *out)
{
	static const char *const units[] = { "ns", "us", "ms", "s", "m", "h", "", NULL };
	static const uint64_t mult[] = { 1, 1000, 1000000, 1000000000ull, 60000000000ull, 3600000000000ull, 1000 };
	uint64_t whole = 0, frac = 0, scale = 1;
	const char *p = s;

	if (*p < '0' || *p > '9') {
		if (*p != '.' || p[1] < '0' || p[1] > '9')
			return -EINVAL;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale >= 10000000000ull) { /* finer than a ns in any unit: zeros only */
				if (*p != '0')
					return -EINVAL;
				continue;
			}
			frac = frac * 10 + (uint64_t)(*p - '0');
			scale *= 10;
		}
	}
	for (int i = 0; units[i]; i++) {
		if (strcasecmp(p, units[i]))
			continue;
		if (whole > UINT64_MAX / mult[i])
			return -ERANGE;
		/* The fraction must come out in whole ns. */
		if (frac * mult[i] % scale)
			return -EINVAL;
		if (whole * mult[i] > UINT64_MAX - frac * mult[i] / scale)
			return -ERANGE;
		*out = whole * mult[i] + frac * mult[i] / scale;
		return 0;
	}
	return -EINVAL;
}

static int parse_choice(const char *const *words, const char *s, int *out)
{
	for (int i = 0; words && words[i]; i++) {
		if (!strcmp(words[i], s)) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* "expected one of: auto, multi, single" */
static void choices_why(const char *const *words, char *why, size_t n)
{
	size_t len = (size_t)snprintf(why, n, "expected one of:");

	for (int i = 0; words && words[i] && len < n; i++)
		len += (size_t)snprintf(why + len, n - len, "%s %s", i ? "," : "", words[i]);
}

static void list_free(struct ct_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int parse_list(const char *s, struct ct_list *out)
{
	static const char sep[] = ", \t";
	struct ct_list l = { 0 };

	for (s += strspn(s, sep); *s; s += strspn(s, sep)) {
		size_t len = strcspn(s, sep);
		char **v = realloc(l.v, (l.n + 1) * sizeof(*v));

		if (!v)
			goto nomem;
		l.v = v;
		v[l.n] = strndup(s, len);
		if (!v[l.n])
			goto nomem;
		l.n++;
		s += len;
	}
	*out = l;
	return 0;
nomem:
	list_free(&l);
	return -ENOMEM;
}

int ct_check_positive(const void *dst, char *why, size_t why_len)
{
	if (*(const uint64_t *)dst)
		return 0;
	snprintf(why, why_len, "must be more than 0");
	return -EINVAL;
}

int ct_key_set(const struct ct_key *k, void *base, const char *val, char *why, size_t why_len)
{
	static const char *const size_sfx[] = { "k", "kb", "kib", "m", "mb", "mib", "g", "gb", "gib", "b", NULL };
	static const uint64_t size_mul[] = { 1ull << 10, 1ull << 10, 1ull << 10, 1ull << 20, 1ull << 20,
					     1ull << 20, 1ull << 30, 1ull << 30, 1ull << 30, 1 };
	void *dst = (char *)base + k->off;
	const char *expected = "";
	int err = 0;

	switch (k->type) {
	case CT_KEY_CHOICE:
		err = parse_choice(k->choices, val, dst);
		if (err) {
			choices_why(k->choices, why, why_len);
			return err;
		}
		break;
	case CT_KEY_STR: {
		char *copy = strdup(val);

		if (!copy)
			return -ENOMEM;
		free(*(char **)dst);
		*(char **)dst = copy;
		break;
	}
	case CT_KEY_LIST: {
		struct ct_list l;

		err = parse_list(val, &l);
		if (err)
			return err;
		list_free(dst);
		*(struct ct_list *)dst = l;
		break;
	}
	case CT_KEY_BOOL:
		err = parse_bool(val, dst);
		expected = "expected one of: true, false, yes, no, on, off, 1, 0";
		break;
	case CT_KEY_U64:
		err = parse_u64(val, dst, NULL, NULL, 1);
		expected = "expected a non-negative integer";
		break;
	case CT_KEY_SIZE:
		err = parse_u64(val, dst, size_sfx, size_mul, 1);
		expected = "expected a size in bytes: a whole number, optionally with K, M or G (also KB, KiB, MB, "
			   "MiB, GB, GiB; powers of 1024) or B, such as 4096, 64K or 256M";
		break;
	case CT_KEY_DUR:
		err = parse_dur(val, dst);
		expected = "expected a duration: a number with unit ns, us, ms, s, m or h, such as 0.2ms, 50us, 1.5s or 2m "
			   "(a bare number is us; at most ns precision)";
		break;
	default:
		expected = "key of unknown type";
		err = -EINVAL;
		break;
	}
	if (err) {
		snprintf(why, why_len, "%s", expected);
		return err;
	}
	return k->check ? k->check(dst, why, why_len) : 0;
}

int ct_keys_defaults(const struct ct_key *keys, void *base)
{
	for (const struct ct_key *k = keys; k && k->name; k++) {
		char why[256];
		int err;

		if (!k->def)
			continue;
		err = ct_key_set(k, base, k->def, why, sizeof(why));
		if (err)
			return err;
	}
	return 0;
}

void ct_keys_free(const struct ct_key *keys, void *base)
{
	for (const struct ct_key *k = keys; k && k->name; k++) {
		void *dst = (char *)base + k->off;

		if (k->type == CT_KEY_STR) {
			free(*(char **)dst);
			*(char **)dst = NULL;
		} else if (k->type == CT_KEY_LIST) {
			list_free(dst);
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
