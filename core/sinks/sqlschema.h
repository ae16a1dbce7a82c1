/* SPDX-License-Identifier: MIT */
/*
 * The sqlite sink's schema (docs/sqlite.md), shared by the writer
 * (sinks/sqlite.c) and the reader (report/sqlread.c). Any change to a table
 * bumps CT_SQL_VERSION, which the file carries as PRAGMA user_version and
 * as meta's schema_version; the reader reads this version and version 1
 * (report/sqlread.c) and refuses others.
 */
#ifndef CT_SINKS_SQLSCHEMA_H
#define CT_SINKS_SQLSCHEMA_H

#define CT_SQL_VERSION 2
#define CT_SQL_FORMAT "cudatracer-sqlite"

/*
 * Tables, created empty when the file is opened. A call is stored narrow
 * (call_rows): what repeats from call to call (the API, what it returned,
 * the thread's name, device, cgroup and job) is a row of a side table,
 * stored once and named by its id; the view `calls` joins them back into
 * the columns of version 1. SQLite's cost per row grows with its columns:
 * 13 in place of 32 is most of what brings the sink to 1 M rows a second
 * (docs/performance.md, "The sqlite sink").
 */
#define CT_SQL_CALL_TABLES \
	"CREATE TABLE apis(id INTEGER PRIMARY KEY, plugin TEXT NOT NULL, api TEXT NOT NULL," \
	" collective INTEGER NOT NULL);" \
	"CREATE TABLE results(id INTEGER PRIMARY KEY, result INTEGER, result_name TEXT, error INTEGER NOT NULL);" \
	"CREATE TABLE contexts(id INTEGER PRIMARY KEY, comm TEXT, depth INTEGER NOT NULL, parent_plugin TEXT," \
	" parent_api TEXT, device INTEGER, device_from TEXT, gpu_uuid TEXT, gpu_bus TEXT, cgroup TEXT," \
	" cgroup_id INTEGER, container TEXT, pod TEXT, rank INTEGER, local_rank INTEGER, world_size INTEGER," \
	" job_id TEXT);" \
	"CREATE TABLE call_rows(id INTEGER PRIMARY KEY, ts_ns INTEGER NOT NULL, dur_ns INTEGER," \
	" pid INTEGER NOT NULL, tid INTEGER NOT NULL, api_id INTEGER NOT NULL, result_id INTEGER NOT NULL," \
	" context_id INTEGER NOT NULL, ret INTEGER, bytes INTEGER, communicator TEXT, args TEXT NOT NULL," \
	" stack_id INTEGER, py_stack_id INTEGER);"

/* The columns of version 1's calls table, in its order, from version 2's
 * tables: the view readers query, and the reader's join (report/sqlread.c
 * reads with views off, so it spells the join out). `ret` is stored as its
 * 64-bit value and shown as jsonl writes it. */
#define CT_SQL_CALLS_COLUMNS \
	"c.id AS id, c.ts_ns AS ts_ns, c.dur_ns AS dur_ns, c.pid AS pid, c.tid AS tid, x.comm AS comm," \
	" x.depth AS depth, a.plugin AS plugin, a.api AS api, r.result AS result, r.result_name AS result_name," \
	" r.error AS error, CASE WHEN c.ret IS NULL THEN NULL ELSE printf('0x%x', c.ret) END AS ret," \
	" x.device AS device, x.device_from AS device_from, x.gpu_uuid AS gpu_uuid, x.cgroup AS cgroup," \
	" x.cgroup_id AS cgroup_id, x.container AS container, x.pod AS pod, x.rank AS rank," \
	" x.local_rank AS local_rank, x.world_size AS world_size, x.job_id AS job_id," \
	" c.communicator AS communicator, a.collective AS collective, c.bytes AS bytes," \
	" x.parent_plugin AS parent_plugin, x.parent_api AS parent_api, c.args AS args, c.stack_id AS stack_id," \
	" c.py_stack_id AS py_stack_id, x.gpu_bus AS gpu_bus"
#define CT_SQL_CALLS_FROM \
	" FROM call_rows c JOIN apis a ON a.id = c.api_id JOIN results r ON r.id = c.result_id" \
	" JOIN contexts x ON x.id = c.context_id"

#define CT_SQL_TABLES \
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;" \
	CT_SQL_CALL_TABLES \
	"CREATE VIEW calls AS SELECT " CT_SQL_CALLS_COLUMNS CT_SQL_CALLS_FROM ";" \
	"CREATE TABLE gpu(id INTEGER PRIMARY KEY, ts_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL," \
	" dur_ns INTEGER NOT NULL, op TEXT NOT NULL, pid INTEGER NOT NULL, device INTEGER NOT NULL," \
	" gpu_uuid TEXT, context INTEGER, stream INTEGER, name TEXT, grid_x INTEGER, grid_y INTEGER," \
	" grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER, shared_bytes INTEGER," \
	" bytes INTEGER, copy_kind TEXT, value INTEGER, correlation INTEGER, launch_tid INTEGER," \
	" launch_api TEXT, launch_ts_ns INTEGER, gpu_bus TEXT, graph_id INTEGER, graph_node INTEGER," \
	" captured_node INTEGER, captured_tid INTEGER, captured_api TEXT, captured_ts_ns INTEGER," \
	" captured_site TEXT);" \
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
	"CREATE INDEX calls_ts ON call_rows(ts_ns);" \
	"CREATE INDEX calls_pid ON call_rows(pid, ts_ns);" \
	"CREATE INDEX calls_api ON call_rows(api_id);" \
	"CREATE INDEX apis_api ON apis(api);" \
	"CREATE INDEX gpu_ts ON gpu(ts_ns);" \
	"CREATE INDEX gpu_name ON gpu(name);" \
	"CREATE INDEX ranges_ts ON ranges(ts_ns);" \
	"CREATE INDEX processes_pid ON processes(pid);"

#endif
