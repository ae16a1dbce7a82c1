/* SPDX-License-Identifier: MIT */
/*
 * The word that goes with a count in what people read ("1 event",
 * "0 events", "2 libraries"). Every count in a closing line, warning or
 * summary goes through this one helper, so that none says "1 calls".
 * Machine formats (jsonl, csv, JSON keys) keep their fixed names.
 */
#ifndef CT_PLURAL_H
#define CT_PLURAL_H

static inline const char *ct_plural(unsigned long long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The common case, a plural made with an "s": "%llu call%s", n, CT_S(n). */
#define CT_S(n) ct_plural((unsigned long long)(n), "", "s")

#endif
