// SPDX-License-Identifier: MIT
/*
 * ct-sqlite-floor: what SQLite alone takes to insert the sqlite sink's call
 * rows, with none of the sink's work: the sink's pragmas and open flags,
 * one launch's values bound as constants (the arguments' JSON included), a
 * commit every 65,536 rows. LAYOUT is the row: `v2`, schema version 2's
 * call_rows (13 columns, the repeated text as side-table ids: the sink's
 * schema), or `v1`, version 1's calls (32 columns, the text in every row).
 * Prints rows per second per core (CPU time). bench/sqlite_bench.sh runs
 * both.
 *   ct-sqlite-floor LAYOUT PATH
 */
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sinks/sqlschema.h"

#define ROWS 1000000L

/* Version 1's calls table (sinks/sqlschema.h before version 2). */
#define V1_CALLS \
	"CREATE TABLE calls(id INTEGER PRIMARY KEY, ts_ns INTEGER NOT NULL, dur_ns INTEGER," \
	" pid INTEGER NOT NULL, tid INTEGER NOT NULL, comm TEXT, depth INTEGER NOT NULL," \
	" plugin TEXT NOT NULL, api TEXT NOT NULL, result INTEGER, result_name TEXT," \
	" error INTEGER NOT NULL, ret TEXT, device INTEGER, device_from TEXT, gpu_uuid TEXT," \
	" cgroup TEXT, cgroup_id INTEGER, container TEXT, pod TEXT, rank INTEGER, local_rank INTEGER," \
	" world_size INTEGER, job_id TEXT, communicator TEXT, collective INTEGER NOT NULL, bytes INTEGER," \
	" parent_plugin TEXT, parent_api TEXT, args TEXT NOT NULL, stack_id INTEGER, py_stack_id INTEGER," \
	" gpu_bus TEXT);"

static const char args[] = "{\"func\":\"scale(float*, float, int)\",\"gridDim\":[64,1,1],\"blockDim\":[256,1,1],"
			   "\"args\":\"0x7ffd1000\",\"sharedMem\":0,\"stream\":\"0x0\"}";

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A column's value: 't' text, 'a' the arguments, 'n' NULL, else an integer. */
static const char v1_cols[] = "tdpptzttztznnnnnnnnnnnnnznnnannn";
static const char *const v1_text[] = { [5] = "python3", [7] = "cudart", [8] = "cudaLaunchKernel",
				       [10] = "cudaSuccess" };
/* ts, dur, pid, tid, api_id, result_id, context_id, ret, bytes,
 * communicator, args, stack_id, py_stack_id */
static const char v2_cols[] = "tdpp111nnnann";

static void bind_row(sqlite3_stmt *st, const char *cols, const char *const *text, long i)
{
	for (int c = 0; cols[c]; c++) {
		int b = c + 1;

		switch (cols[c]) {
		case 't':
			if (b == 1)
				sqlite3_bind_int64(st, b, 1795948855097976711ll + i * 1000);
			else
				sqlite3_bind_text(st, b, text[b], -1, SQLITE_STATIC);
			break;
		case 'd':
			sqlite3_bind_int64(st, b, 500 + (i * 7919) % 5000);
			break;
		case 'p':
			sqlite3_bind_int64(st, b, 4242 + (b == 4 ? (i & 3) : 0));
			break;
		case 'a':
			sqlite3_bind_text(st, b, args, sizeof(args) - 1, SQLITE_STATIC);
			break;
		case 'n':
			sqlite3_bind_null(st, b);
			break;
		default:
			sqlite3_bind_int64(st, b, cols[c] == 'z' ? 0 : 1);
		}
	}
}

int main(int argc, char **argv)
{
	bool v1 = argc > 2 && !strcmp(argv[1], "v1");
	const char *cols = v1 ? v1_cols : v2_cols;
	char sql[512];
	sqlite3_stmt *st;
	sqlite3 *db;
	double t0;
	int len;

	if (argc < 3 || (!v1 && strcmp(argv[1], "v2"))) {
		fprintf(stderr, "usage: ct-sqlite-floor v1|v2 PATH\n");
		return 2;
	}
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	remove(argv[2]);
	if (sqlite3_open_v2(argv[2], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) ||
	    sqlite3_exec(db, "PRAGMA page_size=16384; PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;"
			 "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-16384; PRAGMA cache_spill=OFF;",
			 NULL, NULL, NULL) ||
	    sqlite3_exec(db, v1 ? V1_CALLS : CT_SQL_TABLES, NULL, NULL, NULL))
		return 1;
	len = snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES(NULL", v1 ? "calls" : "call_rows");
	for (int c = 0; cols[c]; c++)
		len += snprintf(sql + len, sizeof(sql) - len, ",?");
	snprintf(sql + len, sizeof(sql) - len, ")");
	if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL))
		return 1;
	t0 = cpu_seconds();
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	for (long i = 0; i < ROWS; i++) {
		bind_row(st, cols, v1_text, i);
		if (sqlite3_step(st) != SQLITE_DONE)
			return 1;
		sqlite3_reset(st);
		if ((i + 1) % 65536 == 0) {
			sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
			sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
		}
	}
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	printf("{\"layout\": \"%s\", \"columns\": %zu, \"rows_per_s_per_core\": %.0f}\n", argv[1], strlen(cols),
	       ROWS / (cpu_seconds() - t0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return 0;
}
