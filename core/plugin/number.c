// SPDX-License-Identifier: MIT
#include <errno.h>
#include "plugin/number.h"

int ct_plugin_number(const struct ct_plugin **list, unsigned *n, unsigned cap,
		     const struct ct_plugin *p)
{
	for (unsigned i = 0; i < *n; i++)
		if (list[i] == p)
			return (int)i;
	if (*n >= cap)
		return -E2BIG;
	list[*n] = p;
	return (int)(*n)++;
}
