// SPDX-License-Identifier: MIT
/*
 * ct-sqlite-floor: what SQLite alone takes to insert the sqlite sink's call
 * rows, with none of the sink's work: the sink's schema and pragmas, one
 * launch's values bound as constants (the arguments' JSON included), K rows
 * per INSERT statement, a commit every 65,536 rows. Prints rows per second
 * per core (CPU time). bench/sqlite_bench.sh runs it for K = 1, 4, 8.
 *   ct-sqlite-floor K PATH
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "sinks/sqlschema.h"

#define ROWS 1000000L
#define COLS 31 /* calls' columns but the id */

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void bind_row(sqlite3_stmt *st, int b, long i)
{
	sqlite3_bind_int64(st, b + 1, 1795948855097976711ll + i);
	sqlite3_bind_int64(st, b + 2, 500 + (i * 7919) % 5000);
	sqlite3_bind_int64(st, b + 3, 4242);
	sqlite3_bind_int64(st, b + 4, 4242 + (i & 3));
	sqlite3_bind_text(st, b + 5, "python3", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, b + 6, 0);
	sqlite3_bind_text(st, b + 7, "cudart", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, b + 8, "cudaLaunchKernel", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, b + 9, 0);
	sqlite3_bind_text(st, b + 10, "cudaSuccess", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, b + 11, 0);
	for (int c = 12; c <= 24; c++)
		sqlite3_bind_null(st, b + c);
	sqlite3_bind_int64(st, b + 25, 0);
	sqlite3_bind_null(st, b + 26);
	sqlite3_bind_null(st, b + 27);
	sqlite3_bind_null(st, b + 28);
	sqlite3_bind_text(st, b + 29,
			  "{\"func\":\"scale(float*, float, int)\",\"gridDim\":[64,1,1],\"blockDim\":[256,1,1],"
			  "\"args\":\"0x7ffd1000\",\"sharedMem\":0,\"stream\":\"0x0\"}",
			  -1, SQLITE_STATIC);
	sqlite3_bind_null(st, b + 30);
	sqlite3_bind_null(st, b + 31);
}

int main(int argc, char **argv)
{
	int k = argc > 2 ? atoi(argv[1]) : 0, len = 0;
	char sql[16384];
	sqlite3_stmt *st;
	sqlite3 *db;
	double t0;

	if (k < 1 || k > 16) {
		fprintf(stderr, "usage: ct-sqlite-floor K PATH   (K rows per INSERT, 1..16)\n");
		return 2;
	}
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	remove(argv[2]);
	if (sqlite3_open(argv[2], &db) ||
	    sqlite3_exec(db, "PRAGMA page_size=16384; PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;"
			 "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-16384; PRAGMA cache_spill=OFF;" CT_SQL_TABLES,
			 NULL, NULL, NULL))
		return 1;
	len = snprintf(sql, sizeof(sql), "INSERT INTO calls VALUES");
	for (int r = 0; r < k; r++) {
		len += snprintf(sql + len, sizeof(sql) - len, "%s(NULL", r ? "," : "");
		for (int c = 0; c < COLS; c++)
			len += snprintf(sql + len, sizeof(sql) - len, ",?");
		len += snprintf(sql + len, sizeof(sql) - len, ")");
	}
	if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL))
		return 1;
	t0 = cpu_seconds();
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	for (long i = 0; i < ROWS; i += k) {
		for (int r = 0; r < k; r++)
			bind_row(st, r * COLS, i + r);
		if (sqlite3_step(st) != SQLITE_DONE)
			return 1;
		sqlite3_reset(st);
		if ((i + k) / 65536 != i / 65536) {
			sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
			sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
		}
	}
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	printf("{\"rows_per_statement\": %d, \"rows_per_s_per_core\": %.0f}\n", k, ROWS / (cpu_seconds() - t0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return 0;
}
