// SPDX-License-Identifier: MIT
/*
 * Variants as a row feature: cudaMemcpy with CT_VARIANTS("_ptds") is one
 * row in the plugin and two APIs in the core, cudaMemcpy then
 * cudaMemcpy_ptds, with the same layout. Everything past the loader (probes,
 * decoder, sinks, --list-apis) sees one API per symbol, in table order.
 */
#include <stdlib.h>
#include <string.h>
#include "plugin/variants.h"

struct ct_plugin *ct_plugin_expand(const struct ct_plugin *p)
{
	size_t n = 0, names = 0, sz = p->sz < sizeof(*p) ? p->sz : sizeof(*p);
	struct ct_plugin *d;
	struct ct_api *apis;
	char *w;

	for (size_t i = 0; i < p->n_apis; i++) {
		n += 1 + p->apis[i].n_variants;
		for (size_t v = 0; v < p->apis[i].n_variants; v++)
			names += strlen(p->apis[i].symbol) + strlen(p->apis[i].variants[v]) + 1;
	}
	/* The descriptor, its APIs and the variants' symbols, in one block. */
	d = calloc(1, sizeof(*d) + n * sizeof(*apis) + names);
	if (!d)
		return NULL;
	memcpy(d, p, sz);
	d->sz = sizeof(*d);
	apis = (struct ct_api *)(d + 1);
	w = (char *)(apis + n);
	n = 0;
	for (size_t i = 0; i < p->n_apis; i++) {
		const struct ct_api *a = &p->apis[i];

		apis[n] = *a;
		apis[n].variants = NULL;
		apis[n++].n_variants = 0;
		for (size_t v = 0; v < a->n_variants; v++) {
			size_t len = strlen(a->symbol);

			apis[n] = apis[n - 1 - v];
			memcpy(w, a->symbol, len);
			strcpy(w + len, a->variants[v]);
			apis[n++].symbol = w;
			w += len + strlen(a->variants[v]) + 1;
		}
	}
	d->apis = apis;
	d->n_apis = n;
	return d;
}
