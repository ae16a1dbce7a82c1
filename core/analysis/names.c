// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/names.h"

int ct_names_init(struct ct_names *t)
{
	memset(t, 0, sizeof(*t));
	t->cap = 256;
	t->str = malloc(t->cap * sizeof(*t->str));
	if (!t->str || !(t->str[0] = strdup("(other)"))) {
		free(t->str);
		t->str = NULL;
		return -ENOMEM;
	}
	t->n = 1;
	return 0;
}

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

uint32_t ct_names_id(struct ct_names *t, const char *s, size_t len)
{
	uint64_t h = hash(s, len);
	void *v;

	/* A hostile trace may choose colliding names: each is told apart by
	 * its bytes, and takes the next free hash. */
	while ((v = ct_u64map_get(&t->by_hash, h))) {
		uint32_t id = (uint32_t)(uintptr_t)v - 1;

		if (!strncmp(t->str[id], s, len) && t->str[id][len] == 0)
			return id;
		h++;
	}
	if (t->n >= CT_NAMES_MAX || t->bytes + len + 1 > CT_NAMES_BYTES)
		goto full;
	if (t->n == t->cap) {
		char **ns = realloc(t->str, 2 * t->cap * sizeof(*ns));

		if (!ns)
			goto full;
		t->str = ns;
		t->cap *= 2;
	}
	char *c = malloc(len + 1);

	if (!c)
		goto full;
	memcpy(c, s, len);
	c[len] = 0;
	if (ct_u64map_put(&t->by_hash, h, (void *)(uintptr_t)(t->n + 1))) {
		free(c);
		goto full;
	}
	t->str[t->n] = c;
	t->bytes += len + 1;
	return t->n++;
full:
	t->over++;
	return 0;
}

void ct_names_free(struct ct_names *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		free(t->str[i]);
	free(t->str);
	ct_u64map_free(&t->by_hash);
	memset(t, 0, sizeof(*t));
}
