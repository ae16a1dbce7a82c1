/* SPDX-License-Identifier: MIT */
/*
 * The sqlite sink's schema (docs/sqlite.md), shared by the writer
 * (sinks/sqlite.c) and the reader (report/sqlread.c). Any change to a table
 * bumps CT_SQL_VERSION, which the file carries as PRAGMA user_version and
 * as meta's schema_version; the reader refuses other versions.
 */
#ifndef CT_SINKS_SQLSCHEMA_H
#define CT_SINKS_SQLSCHEMA_H

#define CT_SQL_VERSION 1
#define CT_SQL_FORMAT "cudatracer-sqlite"

/* Tables, created empty when the file is opened. */
#define CT_SQL_TABLES \
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;" \
	"CREATE TABLE calls(id INTEGER PRIMARY KEY, ts_ns INTEGER NOT NULL, dur_ns INTEGER," \
	" pid INTEGER NOT NULL, tid INTEGER NOT NULL, comm TEXT, depth INTEGER NOT NULL," \
	" plugin TEXT NOT NULL, api TEXT NOT NULL, result INTEGER, result_name TEXT," \
	" error INTEGER NOT NULL, ret TEXT, device INTEGER, device_from TEXT, gpu_uuid TEXT," \
	" cgroup TEXT, cgroup_id INTEGER, container TEXT, pod TEXT, rank INTEGER, local_rank INTEGER," \
	" world_size INTEGER, job_id TEXT, communicator TEXT, collective INTEGER NOT NULL, bytes INTEGER," \
	" parent_plugin TEXT, parent_api TEXT, args TEXT NOT NULL, stack_id INTEGER, py_stack_id INTEGER," \
	" gpu_bus TEXT);" \
	"CREATE TABLE gpu(id INTEGER PRIMARY KEY, ts_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL," \
	" dur_ns INTEGER NOT NULL, op TEXT NOT NULL, pid INTEGER NOT NULL, device INTEGER NOT NULL," \
	" gpu_uuid TEXT, context INTEGER, stream INTEGER, name TEXT, grid_x INTEGER, grid_y INTEGER," \
	" grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER, shared_bytes INTEGER," \
	" bytes INTEGER, copy_kind TEXT, value INTEGER, correlation INTEGER, launch_tid INTEGER," \
	" launch_api TEXT, launch_ts_ns INTEGER, gpu_bus TEXT);" \
	"CREATE TABLE ranges(id INTEGER PRIMARY KEY, ts_ns INTEGER NOT NULL, end_ns INTEGER," \
	" pid INTEGER NOT NULL, tid INTEGER NOT NULL, domain TEXT, name TEXT, depth INTEGER," \
	" mark INTEGER NOT NULL DEFAULT 0, open INTEGER NOT NULL DEFAULT 0);" \
	"CREATE TABLE stacks(id INTEGER PRIMARY KEY, n_frames INTEGER NOT NULL, json TEXT NOT NULL);" \
	"CREATE TABLE frames(stack_id INTEGER NOT NULL, idx INTEGER NOT NULL, kind TEXT NOT NULL," \
	" function TEXT, offset INTEGER, module TEXT, addr INTEGER, file TEXT, line INTEGER," \
	" py_function TEXT, py_file TEXT, py_line INTEGER, PRIMARY KEY(stack_id, idx)) WITHOUT ROWID;" \
	"CREATE TABLE py_stacks(id INTEGER PRIMARY KEY, n_frames INTEGER NOT NULL," \
	" truncated INTEGER NOT NULL, json TEXT NOT NULL);" \
	"CREATE TABLE py_frames(py_stack_id INTEGER NOT NULL, idx INTEGER NOT NULL, function TEXT," \
	" file TEXT, line INTEGER, why TEXT, PRIMARY KEY(py_stack_id, idx)) WITHOUT ROWID;" \
	"CREATE TABLE processes(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, comm TEXT, exe TEXT," \
	" cgroup TEXT, container TEXT, pod TEXT, rank INTEGER, job_id TEXT, start_ns INTEGER NOT NULL," \
	" end_ns INTEGER);"

/* Indexes for the usual questions (time range, process, API, kernel name),
 * built when the run ends: rows go in faster without them. */
#define CT_SQL_INDEXES \
	"CREATE INDEX calls_ts ON calls(ts_ns);" \
	"CREATE INDEX calls_pid ON calls(pid, ts_ns);" \
	"CREATE INDEX calls_api ON calls(api);" \
	"CREATE INDEX gpu_ts ON gpu(ts_ns);" \
	"CREATE INDEX gpu_name ON gpu(name);" \
	"CREATE INDEX ranges_ts ON ranges(ts_ns);" \
	"CREATE INDEX processes_pid ON processes(pid);"

#endif
