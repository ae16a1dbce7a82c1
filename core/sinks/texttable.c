// SPDX-License-Identifier: MIT
/* Aligned text tables: see texttable.h. */
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "sinks/texttable.h"

int ct_table_row(struct ct_table *t, const char *const *cells)
{
	size_t base;

	if (t->rows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		char **c = realloc(t->cells, cap * t->cols * sizeof(*c));

		if (!c)
			return -ENOMEM;
		t->cells = c;
		t->cap = cap;
	}
	base = t->rows * t->cols;
	for (unsigned i = 0; i < t->cols; i++) {
		t->cells[base + i] = strdup(cells[i] ? cells[i] : "");
		if (!t->cells[base + i]) {
			while (i--)
				free(t->cells[base + i]);
			return -ENOMEM;
		}
	}
	t->rows++;
	return 0;
}

void ct_table_print(FILE *out, const struct ct_table *t, unsigned indent)
{
	size_t w[CT_TABLE_MAX_COLS] = { 0 };

	for (size_t r = 0; r < t->rows; r++)
		for (unsigned i = 0; i < t->cols && i < CT_TABLE_MAX_COLS; i++) {
			size_t l = strlen(t->cells[r * t->cols + i]);

			if (l > w[i])
				w[i] = l;
		}
	for (size_t r = 0; r < t->rows; r++) {
		fprintf(out, "%*s", (int)indent, "");
		for (unsigned i = 0; i < t->cols && i < CT_TABLE_MAX_COLS; i++) {
			const char *s = t->cells[r * t->cols + i];
			bool last = i + 1 == t->cols;

			if (t->align[i] == 'r')
				fprintf(out, "%*s", (int)w[i], s);
			else /* no trailing blanks after the last column */
				fprintf(out, "%-*s", last ? 0 : (int)w[i], s);
			fputs(last ? "\n" : "  ", out);
		}
	}
}

void ct_table_free(struct ct_table *t)
{
	for (size_t i = 0; i < t->rows * t->cols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->rows = t->cap = 0;
}

char *ct_table_ns(char buf[CT_TABLE_NS_MAX], unsigned long long ns)
{
	static const struct { unsigned long long div; const char *unit; } units[] = {
		{ 1000000000ull, "s" }, { 1000000ull, "ms" }, { 1000ull, "us" },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		/* The next unit down prints to a millionth of this one: 999.9996 ms is 1.000s, not 1000.000ms. */
		if (ns + units[i].div / 2000000 >= units[i].div) {
			snprintf(buf, CT_TABLE_NS_MAX, "%.3f%s", (double)ns / (double)units[i].div, units[i].unit);
			return buf;
		}
	snprintf(buf, CT_TABLE_NS_MAX, "%lluns", ns);
	return buf;
}
