/* SPDX-License-Identifier: MIT */
/*
 * A short mangled name that demangles exponentially, as a traced program may
 * name a kernel: f(x, A<x, x>, A<A<x, x>, A<x, x> >, ...). Each level is
 * S0_IS<k>_S<k>_E, A of the last level twice by back-reference, so the
 * demangled name doubles per level (about 13 mangled bytes): 22 levels are
 * some 300 bytes mangled and tens of megabytes demangled.
 */
#ifndef CT_TEST_EXPONENTIAL_NAME_H
#define CT_TEST_EXPONENTIAL_NAME_H

#include <stdio.h>
#include <string.h>

static inline void exponential_name(char *buf, size_t n, int levels)
{
	static const char seq[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"; /* a back-reference's base 36 */
	size_t len = (size_t)snprintf(buf, n, "_Z1f1x1AIS_S_E");

	/* S_ is x, S0_ A, S<k>_ the level k-1 (A<x, x> is level 0) */
	for (int k = 1; k <= levels && k < 36 && len < n; k++)
		len += (size_t)snprintf(buf + len, n - len, "S0_IS%c_S%c_E", seq[k], seq[k]);
}

#endif
