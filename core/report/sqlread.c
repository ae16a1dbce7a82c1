// SPDX-License-Identifier: MIT
/*
 * A database of the sqlite sink read as a jsonl trace: each row of calls,
 * then of gpu, made again into the line jsonl writes for it
 * (docs/events.md), so that report and merge read both with one parser.
 * The file is hostile input: opened read-only and immutable (no lock, no
 * journal looked for), views and triggers off, the tables checked to be
 * tables of the schema's version it says (1 or 2: sinks/sqlschema.h), every value bounded in length; a line
 * number in a message is the row's id in its table.
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "report/sqlread.h"
#include "report/tracefile.h"
#include "sinks/sinkio.h"
#include "sinks/sqlschema.h"
#include "util/log.h"
#include "util/strbuf.h"

/* A value longer than a trace's line is an error; a row whose values
 * together are is skipped, counted and said, as a jsonl trace's long line. */
#define SQLREAD_VALUE_MAX CT_TRACE_LINE_MAX

struct ct_sqlread {
	sqlite3 *db;
	sqlite3_stmt *calls, *gpu;
	int fd;
	struct ct_sb line;
};

/* The calls of a database of version 1 (a table) or 2 (call_rows and its
 * side tables, joined here as the view `calls` joins them: views are off). */
#define CALLS_SQL(calls) \
	"SELECT c.id, ts_ns, plugin, api, pid, tid, comm, depth, device, device_from, gpu_uuid, gpu_bus, cgroup," \
	" cgroup_id, container, pod, rank, local_rank, world_size, job_id, communicator, collective, bytes," \
	" parent_plugin, parent_api, p.json, p.truncated, dur_ns, result, result_name, error, ret, args, s.json" \
	" FROM " calls " c LEFT JOIN stacks s ON s.id = c.stack_id LEFT JOIN py_stacks p ON p.id = c.py_stack_id" \
	" ORDER BY c.id"

/* The GPU records; a version 1 database has no CUDA graph columns. */
#define GPU_SQL(graph) \
	"SELECT id, ts_ns, op, pid, device, gpu_uuid, gpu_bus, context, stream, end_ns, dur_ns, name, grid_x, grid_y," \
	" grid_z, block_x, block_y, block_z, shared_bytes, bytes, copy_kind, value, correlation, launch_tid," \
	" launch_api, launch_ts_ns, " graph " FROM gpu ORDER BY id"
enum { G_ID, G_TS, G_OP, G_PID, G_DEVICE, G_UUID, G_BUS, G_CONTEXT, G_STREAM, G_END, G_DUR, G_NAME, G_GRID,
       G_BLOCK = G_GRID + 3, G_SHARED = G_BLOCK + 3, G_BYTES, G_COPY_KIND, G_VALUE, G_CORR, G_LTID, G_LAPI,
       G_LTS, G_GRAPH, G_NODE, G_CNODE, G_CTID, G_CAPI, G_CTS, G_CSITE, G_N };

static const struct {
	const char *calls_sql, *gpu_sql;
	const char *tables; /* the tables it must have, and how many */
	int n_tables;
} versions[] = {
	[1] = { CALLS_SQL("calls"), GPU_SQL("NULL, NULL, NULL, NULL, NULL, NULL, NULL"),
		"('meta','calls','gpu','stacks','py_stacks')", 5 },
	[2] = { CALLS_SQL("(SELECT " CT_SQL_CALLS_COLUMNS CT_SQL_CALLS_FROM ")"),
		GPU_SQL("graph_id, graph_node, captured_node, captured_tid, captured_api, captured_ts_ns, captured_site"),
		"('meta','call_rows','apis','results','contexts','gpu','stacks','py_stacks')", 8 },
};
_Static_assert(sizeof(versions) / sizeof(versions[0]) == CT_SQL_VERSION + 1, "a reader for each version");
enum { C_ID, C_TS, C_PLUGIN, C_API, C_PID, C_TID, C_COMM, C_DEPTH, C_DEVICE, C_DEVICE_FROM, C_GPU_UUID, C_GPU_BUS,
       C_CGROUP, C_CGROUP_ID, C_CONTAINER, C_POD, C_RANK, C_LOCAL_RANK, C_WORLD_SIZE, C_JOB_ID, C_COMMUNICATOR,
       C_COLLECTIVE, C_BYTES, C_PARENT_PLUGIN, C_PARENT_API, C_PY, C_PY_TRUNC, C_DUR, C_RESULT, C_RESULT_NAME,
       C_ERROR, C_RET, C_ARGS, C_STACK, C_N };

static bool is_null(sqlite3_stmt *st, int c)
{
	return sqlite3_column_type(st, c) == SQLITE_NULL;
}

static const char *text(sqlite3_stmt *st, int c)
{
	return (const char *)sqlite3_column_text(st, c);
}

/* The bytes of a row's values; its line takes at most 6 times that
 * (escaped) and its keys. */
static size_t row_bytes(sqlite3_stmt *st, int n)
{
	size_t sum = 0;

	for (int c = 0; c < n; c++)
		sum += (size_t)sqlite3_column_bytes(st, c);
	return sum;
}

static void key(struct ct_sb *b, const char *k)
{
	ct_sb_put(b, k, strlen(k));
}

static void num(struct ct_sb *b, const char *k, sqlite3_stmt *st, int c)
{
	key(b, k);
	ct_sb_i64(b, sqlite3_column_int64(st, c));
}

static void opt_num(struct ct_sb *b, const char *k, sqlite3_stmt *st, int c)
{
	if (!is_null(st, c))
		num(b, k, st, c);
}

static void str_or_null(struct ct_sb *b, const char *k, sqlite3_stmt *st, int c)
{
	key(b, k);
	if (is_null(st, c))
		ct_sb_lit(b, "null");
	else
		ct_sb_json_str(b, text(st, c));
}

static void opt_str(struct ct_sb *b, const char *k, sqlite3_stmt *st, int c)
{
	if (!is_null(st, c))
		str_or_null(b, k, st, c);
}

/* A column that holds JSON (args, stacks, the communicator): as it is; the
 * line's parser checks it. */
static void raw(struct ct_sb *b, const char *k, sqlite3_stmt *st, int c)
{
	key(b, k);
	ct_sb_put(b, text(st, c) ? text(st, c) : "null", text(st, c) ? (size_t)sqlite3_column_bytes(st, c) : 4);
}

static void call_line(struct ct_sb *b, sqlite3_stmt *st, const char *host)
{
	num(b, "{\"ts_ns\":", st, C_TS);
	str_or_null(b, ",\"plugin\":", st, C_PLUGIN);
	str_or_null(b, ",\"api\":", st, C_API);
	num(b, ",\"pid\":", st, C_PID);
	num(b, ",\"tid\":", st, C_TID);
	str_or_null(b, ",\"comm\":", st, C_COMM);
	num(b, ",\"depth\":", st, C_DEPTH);
	if (is_null(st, C_DEVICE))
		ct_sb_lit(b, ",\"device\":null");
	else
		num(b, ",\"device\":", st, C_DEVICE);
	opt_str(b, ",\"device_from\":", st, C_DEVICE_FROM);
	opt_str(b, ",\"gpu_uuid\":", st, C_GPU_UUID);
	opt_str(b, ",\"gpu_bus\":", st, C_GPU_BUS);
	if (!is_null(st, C_CGROUP_ID)) {
		str_or_null(b, ",\"cgroup\":", st, C_CGROUP);
		if (is_null(st, C_CGROUP))
			num(b, ",\"cgroup_id\":", st, C_CGROUP_ID);
	}
	opt_str(b, ",\"container\":", st, C_CONTAINER);
	opt_str(b, ",\"pod\":", st, C_POD);
	opt_num(b, ",\"rank\":", st, C_RANK);
	opt_num(b, ",\"local_rank\":", st, C_LOCAL_RANK);
	opt_num(b, ",\"world_size\":", st, C_WORLD_SIZE);
	opt_str(b, ",\"job_id\":", st, C_JOB_ID);
	if (!is_null(st, C_RANK) || !is_null(st, C_LOCAL_RANK) || !is_null(st, C_WORLD_SIZE) ||
	    !is_null(st, C_JOB_ID)) {
		key(b, ",\"host\":");
		ct_sb_json_str(b, host);
	}
	if (!is_null(st, C_COMMUNICATOR))
		raw(b, ",\"communicator\":", st, C_COMMUNICATOR);
	/* jsonl writes bytes on collectives alone (the other calls' come from their arguments) */
	if (sqlite3_column_int64(st, C_COLLECTIVE))
		opt_num(b, ",\"bytes\":", st, C_BYTES);
	if (!is_null(st, C_PARENT_API)) {
		str_or_null(b, ",\"parent\":{\"plugin\":", st, C_PARENT_PLUGIN);
		str_or_null(b, ",\"api\":", st, C_PARENT_API);
		ct_sb_ch(b, '}');
	}
	if (!is_null(st, C_PY)) {
		raw(b, ",\"py_stack\":", st, C_PY);
		if (sqlite3_column_int64(st, C_PY_TRUNC))
			ct_sb_lit(b, ",\"py_stack_truncated\":true");
	}
	if (is_null(st, C_DUR)) {
		ct_sb_lit(b, ",\"entry_only\":true");
	} else {
		num(b, ",\"dur_ns\":", st, C_DUR);
		if (!is_null(st, C_RESULT)) {
			num(b, ",\"result\":", st, C_RESULT);
			str_or_null(b, ",\"result_name\":", st, C_RESULT_NAME);
			key(b, sqlite3_column_int64(st, C_ERROR) ? ",\"error\":true" : ",\"error\":false");
		}
		opt_str(b, ",\"ret\":", st, C_RET);
	}
	raw(b, ",\"args\":", st, C_ARGS);
	if (!is_null(st, C_STACK))
		raw(b, ",\"stack\":", st, C_STACK);
	ct_sb_ch(b, '}');
}

static void gpu_line(struct ct_sb *b, sqlite3_stmt *st)
{
	const char *op = text(st, G_OP) ? text(st, G_OP) : "";

	num(b, "{\"ts_ns\":", st, G_TS);
	str_or_null(b, ",\"kind\":\"gpu\",\"op\":", st, G_OP);
	num(b, ",\"pid\":", st, G_PID);
	num(b, ",\"device\":", st, G_DEVICE);
	opt_str(b, ",\"gpu_uuid\":", st, G_UUID);
	opt_str(b, ",\"gpu_bus\":", st, G_BUS);
	num(b, ",\"context\":", st, G_CONTEXT);
	num(b, ",\"stream\":", st, G_STREAM);
	num(b, ",\"end_ns\":", st, G_END);
	num(b, ",\"dur_ns\":", st, G_DUR);
	if (!strcmp(op, "kernel")) {
		str_or_null(b, ",\"name\":", st, G_NAME);
		for (int d = 0; d < 2; d++) {
			key(b, d ? ",\"block\":[" : ",\"grid\":[");
			for (int i = 0; i < 3; i++) {
				if (i)
					ct_sb_ch(b, ',');
				ct_sb_i64(b, sqlite3_column_int64(st, (d ? G_BLOCK : G_GRID) + i));
			}
			ct_sb_ch(b, ']');
		}
		num(b, ",\"shared_bytes\":", st, G_SHARED);
	} else {
		num(b, ",\"bytes\":", st, G_BYTES);
		if (!strcmp(op, "memcpy"))
			str_or_null(b, ",\"copy_kind\":", st, G_COPY_KIND);
		else
			num(b, ",\"value\":", st, G_VALUE);
	}
	num(b, ",\"correlation\":{\"id\":", st, G_CORR);
	if (is_null(st, G_LTID)) {
		ct_sb_lit(b, ",\"tid\":null,\"api\":null,\"ts_ns\":null}");
	} else {
		num(b, ",\"tid\":", st, G_LTID);
		str_or_null(b, ",\"api\":", st, G_LAPI);
		num(b, ",\"ts_ns\":", st, G_LTS);
		ct_sb_ch(b, '}');
	}
	if (!is_null(st, G_NODE)) { /* as jsonl's put_graph writes it */
		num(b, ",\"graph_id\":", st, G_GRAPH);
		num(b, ",\"graph_node\":", st, G_NODE);
		if (is_null(st, G_CNODE)) {
			ct_sb_lit(b, ",\"captured_by\":null");
		} else {
			num(b, ",\"captured_by\":{\"node\":", st, G_CNODE);
			num(b, ",\"tid\":", st, G_CTID);
			str_or_null(b, ",\"api\":", st, G_CAPI);
			num(b, ",\"ts_ns\":", st, G_CTS);
			str_or_null(b, ",\"site\":", st, G_CSITE);
			ct_sb_ch(b, '}');
		}
	}
	ct_sb_ch(b, '}');
}

int ct_sqlread_next(struct ct_tracefile *t, const char **line, size_t *len)
{
	struct ct_sqlread *q = t->db;

	for (;;) {
		sqlite3_stmt *st = q->calls ? q->calls : q->gpu;
		size_t n;
		int rc;

		if (!st)
			return 0;
		rc = sqlite3_step(st);
		if (rc == SQLITE_DONE && st == q->gpu && t->long_lines)
			ct_warn("%s: %s: %ld rows longer than %d bytes were skipped", t->who, t->path, t->long_lines,
				CT_TRACE_LINE_MAX);
		if (rc == SQLITE_DONE) {
			if (st == q->calls) {
				sqlite3_finalize(q->calls);
				q->calls = NULL;
			} else {
				sqlite3_finalize(q->gpu);
				q->gpu = NULL;
			}
			continue;
		}
		if (rc != SQLITE_ROW) {
			ct_err("%s: reading %s failed: %s (a damaged database?)", t->who, t->path, sqlite3_errmsg(q->db));
			return -EIO;
		}
		t->lineno = (long)sqlite3_column_int64(st, 0);
		n = row_bytes(st, st == q->calls ? C_N : G_N);
		if (n > CT_TRACE_LINE_MAX) {
			if (!t->long_lines++)
				ct_warn("%s: %s:%ld: a row of more than %d bytes is skipped (a damaged or hostile "
					"database?)", t->who, t->path, t->lineno, CT_TRACE_LINE_MAX);
			continue;
		}
		q->line.len = 0;
		if (!ct_sb_room(&q->line, 6 * n + 32 * C_N + 8192)) /* values, keys and numbers, the host */
			return -ENOMEM;
		if (st == q->calls)
			call_line(&q->line, st, t->host);
		else
			gpu_line(&q->line, st);
		*line = q->line.p;
		*len = q->line.len;
		return 1;
	}
}

/* meta's value for key as text into buf, or as a number into v. */
static int meta_get(struct ct_sqlread *q, const char *k, char *buf, size_t n, int64_t *v)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(q->db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return -EINVAL;
	sqlite3_bind_text(st, 1, k, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && buf)
		snprintf(buf, n, "%s", text(st, 0) ? text(st, 0) : "");
	if (rc == SQLITE_ROW && v)
		*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -ENOENT;
}

/* How many of the tables named (a list in SQL) the database has, as tables. */
static int tables_found(struct ct_sqlread *q, const char *names)
{
	char sql[256];
	sqlite3_stmt *st;
	int n = -1;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN %s", names);
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

static int check(struct ct_tracefile *t, struct ct_sqlread *q)
{
	char format[64] = "";
	int64_t version = 0, wall = 0, mono = 0;
	int found = tables_found(q, "('meta')");

	if (found != 1 || meta_get(q, "format", format, sizeof(format), NULL) || strcmp(format, CT_SQL_FORMAT)) {
		ct_err("%s: %s is a SQLite database but not one of cudatracer's sqlite sink (docs/sqlite.md)%s%s",
		       t->who, t->path, found < 0 ? ": " : "", found < 0 ? sqlite3_errmsg(q->db) : "");
		return -EINVAL;
	}
	if (meta_get(q, "schema_version", NULL, 0, &version) || version < 1 || version > CT_SQL_VERSION) {
		ct_err("%s: %s: schema version %" PRId64 ", this cudatracer reads versions 1 to %d", t->who, t->path,
		       version, CT_SQL_VERSION);
		return -EINVAL;
	}
	if (tables_found(q, versions[version].tables) != versions[version].n_tables) {
		ct_err("%s: %s: its tables are not those of schema version %" PRId64 " (docs/sqlite.md)", t->who,
		       t->path, version);
		return -EINVAL;
	}
	if (meta_get(q, "wall_offset_ns", NULL, 0, &t->wall_offset_ns)) {
		ct_err("%s: %s: meta has no wall_offset_ns", t->who, t->path);
		return -EINVAL;
	}
	meta_get(q, "host", t->host, sizeof(t->host), NULL);
	meta_get(q, "boot_id", t->boot_id, sizeof(t->boot_id), NULL);
	meta_get(q, "wall_ns", NULL, 0, &wall);
	meta_get(q, "mono_ns", NULL, 0, &mono);
	t->wall_ns = (uint64_t)wall;
	t->mono_ns = (uint64_t)mono;
	if (sqlite3_prepare_v2(q->db, versions[version].calls_sql, -1, &q->calls, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->db, versions[version].gpu_sql, -1, &q->gpu, NULL) != SQLITE_OK) {
		ct_err("%s: %s: its tables are not this schema's: %s", t->who, t->path, sqlite3_errmsg(q->db));
		return -EINVAL;
	}
	return 0;
}

int ct_sqlread_open(struct ct_tracefile *t, int fd)
{
	struct ct_sqlread *q = calloc(1, sizeof(*q));
	struct stat st;
	char name[64];
	int rc;

	if (!q) {
		close(fd);
		return -ENOMEM;
	}
	q->fd = fd;
	t->db = q;
	snprintf(name, sizeof(name), "file:/proc/self/fd/%d?immutable=1", fd);
	rc = sqlite3_open_v2(name, &q->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		ct_err("%s: cannot open the database %s: %s", t->who, t->path,
		       q->db ? sqlite3_errmsg(q->db) : sqlite3_errstr(rc));
		return -EINVAL;
	}
	if (fstat(fd, &st) || !ct_fd_opened_again(fd, &st)) {
		ct_err("%s: %s changed while it was opened (another file is there now): refused", t->who, t->path);
		return -EINVAL;
	}
	sqlite3_limit(q->db, SQLITE_LIMIT_LENGTH, SQLREAD_VALUE_MAX);
	sqlite3_db_config(q->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(q->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(q->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
	sqlite3_db_config(q->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
	return check(t, q);
}

void ct_sqlread_close(struct ct_tracefile *t)
{
	struct ct_sqlread *q = t->db;

	if (!q)
		return;
	sqlite3_finalize(q->calls);
	sqlite3_finalize(q->gpu);
	sqlite3_close(q->db);
	close(q->fd);
	ct_sb_free(&q->line);
	free(q);
	t->db = NULL;
}
