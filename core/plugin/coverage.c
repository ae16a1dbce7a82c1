// SPDX-License-Identifier: MIT
/*
 * Coverage, as --list-apis --lib FILE and --explain state it: of the
 * functions a runtime library exports, how many the plugin's table has a
 * row for (written by hand, or generated from the runtime's header), and how
 * many the profile and filters trace. What the table lacks is named.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "plugin/coverage.h"
#include "symbols/elf.h"
#include "util/plural.h"
#include "util/strbuf.h"

#define SHOWN_MISSING 20
#define NAME_MAX_SHOWN 128 /* bytes of a name, before escaping: a library is any user's file */

struct name {
	const char *s;
	size_t len;
};

static int name_cmp(const void *pa, const void *pb)
{
	const struct name *a = pa, *b = pb;
	size_t n = a->len < b->len ? a->len : b->len;
	int r = strncmp(a->s, b->s, n);

	return r ? r : (a->len > b->len) - (a->len < b->len);
}

/* The API index of the table's row for this name, or -1. */
static long api_of(const struct ct_plugin *p, const struct name *nm)
{
	for (size_t i = 0; i < p->n_apis; i++)
		if (strlen(p->apis[i].symbol) == nm->len && !strncmp(p->apis[i].symbol, nm->s, nm->len))
			return (long)i;
	return -1;
}

int ct_coverage_print(FILE *out, const char *indent, const char *path, const char *display,
		      const struct ct_plugin *p, const bool *on)
{
	struct ct_elf *e = NULL;
	struct name *v = NULL;
	size_t n = 0, cap = 0, pos = 0, uniq = 0, in_table = 0, traced = 0, generated = 0, missing = 0;
	struct ct_elf_fn fn;
	char shown[4 * PATH_MAX];
	int err;

	err = ct_elf_open_path(path, &e);
	if (err)
		return err;
	while (ct_elf_next_fn(e, &pos, &fn)) {
		if (fn.rank < 4) /* local: not exported */
			continue;
		if (n == cap) {
			struct name *nv = realloc(v, (cap = cap ? cap * 2 : 512) * sizeof(*v));

			if (!nv) {
				err = -ENOMEM;
				goto cleanup;
			}
			v = nv;
		}
		v[n++] = (struct name){ fn.name, fn.name_len };
	}
	if (n)
		qsort(v, n, sizeof(*v), name_cmp);
	for (size_t i = 0; i < n; i++) {
		long a;

		if (i && !name_cmp(&v[i - 1], &v[i]))
			continue;
		v[uniq++] = v[i];
		a = api_of(p, &v[uniq - 1]);
		if (a < 0)
			continue;
		in_table++;
		generated += (p->apis[a].flags & CT_API_GENERATED) != 0;
		traced += on && on[a];
	}
	ct_text_esc(shown, sizeof(shown), display);
	fprintf(out, "%s%s exports %zu function%s: %zu in the table (%zu written by hand, %zu generated from the "
		"header)", indent, shown, uniq, CT_S(uniq), in_table, in_table - generated, generated);
	if (on)
		fprintf(out, ", %zu traced by this profile and filters", traced);
	fprintf(out, "\n");
	for (size_t i = 0; i < uniq; i++) {
		if (api_of(p, &v[i]) >= 0)
			continue;
		if (missing < SHOWN_MISSING) {
			char name[NAME_MAX_SHOWN + 1];

			snprintf(name, sizeof(name), "%.*s", (int)v[i].len, v[i].s);
			ct_text_esc(shown, sizeof(shown), name);
			fprintf(out, "%s%s%s", missing ? ", " : indent, missing ? "" : "not in the table: ", shown);
		}
		missing++;
	}
	if (missing > SHOWN_MISSING)
		fprintf(out, " and %zu more", missing - SHOWN_MISSING);
	if (missing)
		fprintf(out, " (docs/plugins.md says why)\n");
cleanup:
	free(v);
	ct_elf_close(e);
	return err;
}
