/* SPDX-License-Identifier: MIT */
/* Aligned text tables for the summary and memory sinks: add rows, then print. */
#ifndef CT_TEXTTABLE_H
#define CT_TEXTTABLE_H

#include <stdio.h>

#define CT_TABLE_MAX_COLS 16

struct ct_table {
	unsigned cols;
	const char *align; /* per column: 'l' or 'r' */
	char **cells;      /* rows * cols, row-major; row 0 is the header */
	size_t rows, cap;
};

/* Copy one row of `cols` strings (NULL: empty). Returns 0 or -ENOMEM. */
int ct_table_row(struct ct_table *t, const char *const *cells);
/* Columns two spaces apart, `indent` spaces before each line. */
void ct_table_print(FILE *out, const struct ct_table *t, unsigned indent);
void ct_table_free(struct ct_table *t);

/* A duration for a person, in the unit that suits it, the unit in the cell
 * and no blank ("950ns", "12.345us", "1.234ms", "2.500s"), so that a column
 * stays one word for awk. jsonl, csv and JSON keep raw nanoseconds. */
#define CT_TABLE_NS_MAX 32
char *ct_table_ns(char buf[CT_TABLE_NS_MAX], unsigned long long ns);

#endif
