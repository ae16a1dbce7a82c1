// SPDX-License-Identifier: MIT
/*
 * Variants as a row feature: cudaMemcpy with CT_VARIANTS("_ptds") is one
 * row in the plugin and two APIs in the core, cudaMemcpy then
 * cudaMemcpy_ptds, with the same layout. The generated rows (gen_apis)
 * follow the hand-written ones, less those whose symbol a hand-written row
 * has. Everything past the loader (probes, decoder, sinks, --list-apis)
 * sees one API per symbol, in table order.
 */
#include <stdlib.h>
#include <string.h>
#include "plugin/variants.h"

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Row `a` and its variants, appended at apis[*n], their names built at *w;
 * a symbol in `taken` (sorted, n_taken) is left out. */
static void expand_row(const struct ct_api *a, struct ct_api *apis, size_t *n, char **w,
		       const char **taken, size_t n_taken)
{
	size_t len = strlen(a->symbol);
	struct ct_api row = *a;

	row.variants = NULL;
	row.n_variants = 0;
	if (!taken || !bsearch(&a->symbol, taken, n_taken, sizeof(*taken), str_cmp))
		apis[(*n)++] = row;
	for (size_t v = 0; v < a->n_variants; v++) {
		memcpy(*w, a->symbol, len);
		strcpy(*w + len, a->variants[v]);
		if (taken && bsearch(w, taken, n_taken, sizeof(*taken), str_cmp))
			continue;
		row.symbol = *w;
		apis[(*n)++] = row;
		*w += len + strlen(a->variants[v]) + 1;
	}
}

static size_t count(const struct ct_api *apis, size_t n_apis, size_t *names)
{
	size_t n = 0;

	for (size_t i = 0; i < n_apis; i++) {
		n += 1 + apis[i].n_variants;
		for (size_t v = 0; v < apis[i].n_variants; v++)
			*names += strlen(apis[i].symbol) + strlen(apis[i].variants[v]) + 1;
	}
	return n;
}

struct ct_plugin *ct_plugin_expand(const struct ct_plugin *p)
{
	size_t names = 0, sz = p->sz < sizeof(*p) ? p->sz : sizeof(*p);
	size_t n_own = count(p->apis, p->n_apis, &names);
	size_t n_gen = sz > offsetof(struct ct_plugin, n_gen_apis) ? count(p->gen_apis, p->n_gen_apis, &names) : 0;
	const char **taken = NULL;
	struct ct_plugin *d;
	struct ct_api *apis;
	size_t n = 0;
	char *w;

	/* The descriptor, its APIs and the variants' symbols, in one block. */
	d = calloc(1, sizeof(*d) + (n_own + n_gen) * sizeof(*apis) + names);
	if (!d)
		return NULL;
	memcpy(d, p, sz);
	d->sz = sizeof(*d);
	apis = (struct ct_api *)(d + 1);
	w = (char *)(apis + n_own + n_gen);
	for (size_t i = 0; i < p->n_apis; i++)
		expand_row(&p->apis[i], apis, &n, &w, NULL, 0);
	if (n_gen) {
		taken = malloc(n * sizeof(*taken));
		if (!taken) {
			free(d);
			return NULL;
		}
		for (size_t i = 0; i < n; i++)
			taken[i] = apis[i].symbol;
		qsort(taken, n, sizeof(*taken), str_cmp);
		for (size_t i = 0, own = n; i < d->n_gen_apis; i++)
			expand_row(&d->gen_apis[i], apis, &n, &w, taken, own);
		free(taken);
	}
	d->apis = apis;
	d->n_apis = n;
	d->gen_apis = NULL;
	d->n_gen_apis = 0;
	return d;
}
