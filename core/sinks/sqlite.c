// SPDX-License-Identifier: MIT
/*
 * sqlite: the run as a SQLite database (schema: sqlschema.h, docs/sqlite.md).
 * Rows go in through prepared statements in batched transactions: one is
 * committed every `batch` rows and at each tick (about once a second), so
 * a reader sees whole batches while the run goes on, and the last one is
 * committed when the run ends, whatever ended it. The sink runs in the
 * reader's thread, as every sink does: an insert rate below the call rate
 * fills the ring, and what the kernel cannot reserve is counted as lost.
 * A call is a narrow row of call_rows: what repeats from call to call is
 * a row of a side table (apis, results, contexts) stored once and named by
 * its id, since SQLite's cost per row grows with its columns.
 *
 * The file is opened by the core's safe opener (sinkio.c), emptied or new;
 * SQLite then opens it through /proc/self/fd/N, and the file it opened is
 * checked to be that inode before anything is written. The rollback journal
 * is kept in memory: a journal file would be made by name beside the
 * database, in a folder the opener's checks do not cover; in memory it
 * still undoes a commit that failed (a full disk), so the file keeps the
 * batches before whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config/config.h"
#include "sinks/runmeta.h"
#include "sinks/sink.h"
#include "sinks/sinkio.h"
#include "sinks/sqlschema.h"
#include "sinks/stackfmt.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/u64map.h"

enum { ST_CALL, ST_API, ST_RESULT, ST_CONTEXT, ST_GPU, ST_STACK, ST_FRAME, ST_PY, ST_PYFRAME, ST_PROC, ST_PROC_END, ST_META, ST_RANGE, ST_N };

static const char *const stmt_sql[ST_N] = {
	[ST_CALL] = "INSERT INTO call_rows VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?,?)", /* SQ_CALL_COLS */
	[ST_API] = "INSERT INTO apis VALUES(NULL,?,?,?)",
	[ST_RESULT] = "INSERT INTO results VALUES(NULL,?,?,?)",
	[ST_CONTEXT] = "INSERT INTO contexts VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_GPU] = "INSERT INTO gpu VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_STACK] = "INSERT INTO stacks VALUES(NULL,?,?)",
	[ST_FRAME] = "INSERT INTO frames VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_PY] = "INSERT INTO py_stacks VALUES(NULL,?,?,?)",
	[ST_PYFRAME] = "INSERT INTO py_frames VALUES(?,?,?,?,?,?)",
	[ST_PROC] = "INSERT INTO processes VALUES(NULL,?,?,?,?,?,?,?,?,?,NULL)",
	[ST_PROC_END] = "UPDATE processes SET end_ns = ? WHERE id = ?",
	[ST_META] = "INSERT OR REPLACE INTO meta VALUES(?,?)",
	[ST_RANGE] = "INSERT INTO ranges VALUES(NULL,?,?,?,?,?,?,?,?,?)",
};

/*
 * A side table of call_rows (apis, results, contexts): each row stored once,
 * found again by its content. `key` is that content as bytes (sq_key_*);
 * `kept` maps their hash to a struct sq_kept, which holds the bytes, so that
 * two contents of one hash are told apart. At most SQ_KEPT_MAX rows are
 * kept (a traced program that renames its threads on every call makes a
 * context per call): past that the map starts again, and a content seen
 * again is stored again, under a new id.
 */
struct sq_kept {
	int64_t id;
	size_t len;
	char key[];
};

struct sq_side {
	struct ct_u64map kept;
	struct ct_sb key;
};

#define SQ_KEPT_MAX 65536

/* A number or NULL bound to a column of the call statement, as last bound. */
struct sq_bound {
	bool known, has;
	int64_t v;
};

#define SQ_CALL_COLS 13

struct sq_sink {
	struct ct_sink_common c;
	uint64_t batch;          /* rows per transaction */
	sqlite3 *db;
	sqlite3_stmt *st[ST_N];
	bool in_txn;
	uint64_t pending;        /* rows in the open transaction */
	uint64_t commits_put_off; /* COMMITs a reader kept busy (sq_commit_when) */
	struct ct_run_meta meta;
	struct ct_sb args, json;
	struct ct_u64map stacks, py_stacks; /* hash of the JSON text -> id */
	struct ct_u64map procs;  /* pid -> processes.id, while it lives */
	struct sq_side apis, results, contexts; /* side tables of call_rows */
	struct ct_u64map api_ids; /* address of a plugin's API row -> apis.id */
	struct sq_bound bound[SQ_CALL_COLS + 1]; /* the call statement's, by column */
	const char *plugins[CT_MAX_PLUGINS]; /* names of the plugins seen */
	int n_plugins;
};

static const struct ct_key sq_keys[] = {
	{ "batch", CT_KEY_U64, "65536", offsetof(struct sq_sink, batch),
	  "Rows per transaction (one is also committed about once a second)" },
	{ 0 },
};

/* A SQLite failure: said once with SQLite's words, as an errno for the core.
 * `what` is a statement; a long one (the schema) is not repeated. */
static int sq_fail(struct sq_sink *s, int rc, const char *what)
{
	ct_err("sink '%s' (sqlite): %s: %s: %s", s->c.name ? s->c.name : "sqlite", s->c.path ? s->c.path : "-",
	       strlen(what) > 40 ? "creating the tables" : what, s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
	switch (rc & 0xff) {
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_NOMEM:
		return -ENOMEM;
	default:
		return -EIO;
	}
}

static int sq_exec(struct sq_sink *s, const char *sql)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sq_fail(s, rc, sql);
}

/* Step a statement whose values are bound, and make it ready for the next
 * (the others bind some columns only: cleared to NULL). */
static int sq_step(struct sq_sink *s, int which)
{
	sqlite3_stmt *st = s->st[which];
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (which != ST_CALL)
		sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : sq_fail(s, rc, "insert");
}

/*
 * A reader that holds the file (the sqlite3 shell, a dashboard's query)
 * makes COMMIT busy: the rows stay in the open transaction, which is
 * committed at the next batch or tick, so the reader's query never stops
 * the sink. At the end (`last`) it is waited for (BUSY_LAST_MS).
 */
#define BUSY_MS 20
#define BUSY_LAST_MS 5000

static int sq_commit_when(struct sq_sink *s, bool last)
{
	int rc;

	if (!s->in_txn)
		return 0;
	if (last)
		sqlite3_busy_timeout(s->db, BUSY_LAST_MS);
	rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	s->pending = 0;
	if ((rc & 0xff) == SQLITE_BUSY && !last) {
		s->commits_put_off++;
		return 0;
	}
	s->in_txn = false;
	return rc == SQLITE_OK ? 0 : sq_fail(s, rc, "COMMIT");
}

static int sq_commit(struct sq_sink *s)
{
	return sq_commit_when(s, false);
}

/* A transaction for the next row, if none is open. */
static int sq_row_begin(struct sq_sink *s)
{
	int err;

	if (!s->in_txn) {
		if ((err = sq_exec(s, "BEGIN")))
			return err;
		s->in_txn = true;
	}
	return 0;
}

/* The row is in: the transaction is committed when it holds `batch` rows. */
static int sq_row_end(struct sq_sink *s)
{
	return ++s->pending >= s->batch ? sq_commit(s) : 0;
}

/* Text the statement reads in place (valid until its step); NULL as NULL. */
static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static void bind_i64(sqlite3_stmt *st, int i, int64_t v)
{
	sqlite3_bind_int64(st, i, v);
}

static void bind_opt(sqlite3_stmt *st, int i, bool has, int64_t v)
{
	if (has)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

static int meta_put(struct sq_sink *s, const char *key, const char *text, int64_t num)
{
	sqlite3_stmt *st = s->st[ST_META];

	bind_text(st, 1, key);
	if (text)
		bind_text(st, 2, text);
	else
		bind_i64(st, 2, num);
	return sq_step(s, ST_META);
}

/* Eight bytes at a time (a call's side-table keys are hashed on every
 * row): p must be readable up to n rounded up to 8, the bytes past n zero. */
static uint64_t hash_words(const char *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	for (size_t i = 0; i < n; i += sizeof(w)) {
		memcpy(&w, p + i, sizeof(w));
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h | 1; /* never 0 */
}

/* The hash of a buffer's bytes, zero-padded to whole words in the room
 * its writer reserved past them (SQ_PAD). */
#define SQ_PAD sizeof(uint64_t)

static uint64_t hash_sb(struct ct_sb *b)
{
	memset(b->p + b->len, 0, SQ_PAD);
	return hash_words(b->p, b->len);
}

/* The id of side's row with the content in side->key; 0: none yet (the
 * caller inserts it, then sq_side_keep). */
static int64_t sq_side_find(struct sq_side *side, uint64_t *h)
{
	struct sq_kept *k;

	*h = hash_sb(&side->key);
	k = ct_u64map_get(&side->kept, *h);
	return k && k->len == side->key.len && !memcmp(k->key, side->key.p, k->len) ? k->id : 0;
}

static void sq_side_forget(struct sq_side *side)
{
	ct_u64map_free_all(&side->kept, free);
}

static void sq_side_free(struct sq_side *side)
{
	sq_side_forget(side);
	ct_sb_free(&side->key);
}

/* The row just inserted, kept by its content (not kept: stored again when
 * seen again; never wrong). */
static void sq_side_keep(struct sq_side *side, uint64_t h, int64_t id)
{
	struct sq_kept *k = malloc(sizeof(*k) + side->key.len), *old;

	if (!k)
		return;
	if (side->kept.n >= SQ_KEPT_MAX)
		sq_side_forget(side);
	k->id = id;
	k->len = side->key.len;
	memcpy(k->key, side->key.p, k->len);
	old = ct_u64map_get(&side->kept, h);
	if (ct_u64map_put(&side->kept, h, k))
		free(k);
	else
		free(old);
}

/* Whether the JSON text in b (salted) was stored before: its id. */
static bool stored(const struct ct_u64map *m, struct ct_sb *b, uint64_t salt, uint64_t *h, int64_t *id)
{
	void *v;

	*h = hash_sb(b) ^ salt << 1;
	v = ct_u64map_get(m, *h);
	*id = (int64_t)(uintptr_t)v;
	return v != NULL;
}

static const char *const frame_kinds[] = { [CT_FRAME_NATIVE] = "native", [CT_FRAME_PYTHON] = "python",
					   [CT_FRAME_TRUNCATED] = "truncated", [CT_FRAME_UNWOUND] = "unwound" };

/* A stack's id, its rows written the first time its frames are seen. */
static int stack_id(struct sq_sink *s, const struct ct_callstack *cs, int64_t *id)
{
	struct ct_sb *b = &s->json;
	uint64_t h;
	int err;

	b->len = 0;
	if (!ct_sb_room(b, ct_stack_json_max(cs) + SQ_PAD))
		return -ENOMEM;
	b->len = (size_t)(ct_stack_json_w(b->p, cs) - b->p);
	b->p[b->len] = 0;
	if (stored(&s->stacks, b, 0, &h, id))
		return 0;
	bind_i64(s->st[ST_STACK], 1, cs->n);
	bind_text(s->st[ST_STACK], 2, b->p);
	if ((err = sq_step(s, ST_STACK)))
		return err;
	*id = sqlite3_last_insert_rowid(s->db);
	for (uint32_t i = 0; i < cs->n; i++) {
		const struct ct_frame_info *f = &cs->frames[i];
		sqlite3_stmt *st = s->st[ST_FRAME];

		bind_i64(st, 1, *id);
		bind_i64(st, 2, i);
		bind_text(st, 3, frame_kinds[f->kind <= CT_FRAME_UNWOUND ? f->kind : CT_FRAME_UNWOUND]);
		if (f->kind == CT_FRAME_NATIVE) {
			bind_text(st, 4, f->function);
			bind_i64(st, 5, (int64_t)f->offset);
			bind_text(st, 6, f->module);
			bind_i64(st, 7, (int64_t)f->addr);
			bind_text(st, 8, f->src_file);
			if (f->src_file)
				bind_i64(st, 9, f->src_line);
		} else if (f->kind == CT_FRAME_PYTHON) {
			bind_text(st, 10, f->py_function);
			bind_text(st, 11, f->py_file);
			bind_i64(st, 12, f->py_line);
		}
		if ((err = sq_step(s, ST_FRAME)))
			return err;
	}
	return ct_u64map_put(&s->stacks, h, (void *)(uintptr_t)*id);
}

static int py_stack_id(struct sq_sink *s, const struct ct_py_frames *py, int64_t *id)
{
	struct ct_sb *b = &s->json;
	uint64_t h;
	int err;

	b->len = 0;
	if (!ct_sb_room(b, ct_py_stack_json_max(py) + SQ_PAD))
		return -ENOMEM;
	b->len = (size_t)(ct_py_stack_json_w(b->p, py) - b->p);
	b->p[b->len] = 0;
	if (stored(&s->py_stacks, b, py->truncated, &h, id))
		return 0;
	bind_i64(s->st[ST_PY], 1, py->n);
	bind_i64(s->st[ST_PY], 2, py->truncated);
	bind_text(s->st[ST_PY], 3, b->p);
	if ((err = sq_step(s, ST_PY)))
		return err;
	*id = sqlite3_last_insert_rowid(s->db);
	for (uint32_t i = 0; i < py->n; i++) {
		sqlite3_stmt *st = s->st[ST_PYFRAME];

		bind_i64(st, 1, *id);
		bind_i64(st, 2, i);
		bind_text(st, 3, py->f[i].function);
		bind_text(st, 4, py->f[i].file);
		bind_i64(st, 5, py->f[i].line);
		bind_text(st, 6, py->f[i].why);
		if ((err = sq_step(s, ST_PYFRAME)))
			return err;
	}
	return ct_u64map_put(&s->py_stacks, h, (void *)(uintptr_t)*id);
}

/* The executable of a live process (a replayed trace's pids are not). */
static void proc_exe(const struct ct_event *ev, char *buf, size_t n)
{
	char link[32];
	ssize_t len;

	buf[0] = 0;
	if (!ev->rec)
		return;
	snprintf(link, sizeof(link), "/proc/%u/exe", ev->pid);
	len = readlink(link, buf, n - 1);
	buf[len > 0 ? len : 0] = 0;
}

/* A process's row, the first time one of its calls is seen. */
static int proc_seen(struct sq_sink *s, const struct ct_event *ev)
{
	sqlite3_stmt *st = s->st[ST_PROC];
	char exe[PATH_MAX];
	int err;

	if (ct_u64map_get(&s->procs, ev->pid))
		return 0;
	proc_exe(ev, exe, sizeof(exe));
	bind_i64(st, 1, ev->pid);
	bind_text(st, 2, ev->comm);
	bind_text(st, 3, exe[0] ? exe : NULL);
	if (ev->cgroup) {
		bind_text(st, 4, ev->cgroup->path);
		bind_text(st, 5, ev->cgroup->container);
		bind_text(st, 6, ev->cgroup->pod);
	}
	if (ev->env && ev->env->rank >= 0)
		bind_i64(st, 7, ev->env->rank);
	if (ev->env && ev->env->job_id[0])
		bind_text(st, 8, ev->env->job_id);
	bind_i64(st, 9, (int64_t)(ev->ts_ns + (uint64_t)s->meta.skew_ns));
	if ((err = sq_step(s, ST_PROC)))
		return err;
	return ct_u64map_put(&s->procs, ev->pid, (void *)(uintptr_t)sqlite3_last_insert_rowid(s->db));
}

static void plugin_seen(struct sq_sink *s, const char *name)
{
	for (int i = 0; i < s->n_plugins; i++)
		if (s->plugins[i] == name || !strcmp(s->plugins[i], name))
			return;
	if (s->n_plugins < CT_MAX_PLUGINS)
		s->plugins[s->n_plugins++] = name;
}

/* The communicator as jsonl writes it; NULL when nothing is known. */
static const char *comm_json(char *buf, size_t n, const struct ct_comm_info *c)
{
	int len = 0;

	if (!c || (c->rank < 0 && c->nranks < 0 && !c->id && !c->seq))
		return NULL;
	len += snprintf(buf + len, n - len, "{");
	if (c->rank >= 0)
		len += snprintf(buf + len, n - len, "\"rank\":%d,", c->rank);
	if (c->nranks >= 0)
		len += snprintf(buf + len, n - len, "\"nranks\":%d,", c->nranks);
	if (c->id)
		len += snprintf(buf + len, n - len, "\"id\":\"0x%" PRIx64 "\",", c->id);
	if (c->seq)
		len += snprintf(buf + len, n - len, "\"seq\":%" PRIu64 ",", c->seq);
	buf[len - 1] = '}';
	return buf;
}

/* A value of a side row: text (NULL: NULL), or an integer (!has: NULL). */
struct sq_val {
	bool is_text, has;
	int64_t i;
	const char *t;
};

#define SQ_TEXT(v) { true, false, 0, (v) }
#define SQ_INT(h, v) { false, (h), (v), NULL }

#define SQ_SIDE_COLS 16

/* The bytes of a side row's content, built on every call: each value
 * tagged, a text with its NUL, so that no two contents have the same bytes;
 * room reserved once. */
static int sq_side_key(struct ct_sb *b, const struct sq_val *v, int n)
{
	size_t len[SQ_SIDE_COLS], need = 0;
	char *w;

	for (int i = 0; i < n; i++) {
		len[i] = v[i].is_text ? (v[i].t ? strlen(v[i].t) + 1 : 0) : (v[i].has ? sizeof(v[i].i) : 0);
		need += 1 + len[i];
	}
	b->len = 0;
	if (!ct_sb_room(b, need + SQ_PAD))
		return -ENOMEM;
	w = b->p;
	for (int i = 0; i < n; i++) {
		*w++ = !len[i] ? 'n' : v[i].is_text ? 't' : 'i';
		if (len[i])
			memcpy(w, v[i].is_text ? (const void *)v[i].t : &v[i].i, len[i]);
		w += len[i];
	}
	b->len = need;
	return 0;
}

/* The id of the side row holding the n values v, inserted if new. */
static int sq_side_id(struct sq_sink *s, struct sq_side *side, int which, const struct sq_val *v, int n,
		      int64_t *id)
{
	sqlite3_stmt *st = s->st[which];
	uint64_t h;
	int err;

	if (sq_side_key(&side->key, v, n))
		return -ENOMEM;
	if ((*id = sq_side_find(side, &h)))
		return 0;
	for (int i = 0; i < n; i++) {
		if (v[i].is_text)
			bind_text(st, i + 1, v[i].t);
		else
			bind_opt(st, i + 1, v[i].has, v[i].i);
	}
	if ((err = sq_step(s, which)))
		return err;
	*id = sqlite3_last_insert_rowid(s->db);
	sq_side_keep(side, h, *id);
	return 0;
}

/* An API's id, found first by the address of its row in its plugin's table
 * (the plugins are loaded before the sinks open and unloaded after they
 * close: an address is one API for the sink's life), else by its content. */
static int api_id(struct sq_sink *s, const struct ct_event *ev, int64_t *id)
{
	void *known = ct_u64map_get(&s->api_ids, (uintptr_t)ev->api);
	int err;

	if (known) {
		*id = (int64_t)(uintptr_t)known;
		return 0;
	}
	const struct sq_val v[] = { SQ_TEXT(ev->plugin->name), SQ_TEXT(ev->api->symbol),
				    SQ_INT(true, !!(ev->api->flags & (CT_API_COLLECTIVE | CT_API_P2P))) };

	if ((err = sq_side_id(s, &s->apis, ST_API, v, 3, id)))
		return err;
	ct_u64map_put(&s->api_ids, (uintptr_t)ev->api, (void *)(uintptr_t)*id); /* not kept: found by content */
	return 0;
}

static int result_id(struct sq_sink *s, const struct ct_event *ev, int64_t *id)
{
	bool has = !ev->entry_only && ev->has_result;
	const struct sq_val v[] = { SQ_INT(has, ev->result), SQ_TEXT(has ? ev->result_name : NULL),
				    SQ_INT(true, ev->is_error) };

	return sq_side_id(s, &s->results, ST_RESULT, v, 3, id);
}

/* Where the call ran: the thread's name, the calls it was made in (depth,
 * the other plugin's), its device, GPU, cgroup and job. */
static int context_id(struct sq_sink *s, const struct ct_event *ev, int64_t *id)
{
	const struct ct_cgroup *cg = ev->cgroup;
	const struct ct_proc_env *env = ev->env;
	const struct sq_val v[] = {
		SQ_TEXT(ev->comm),
		SQ_INT(true, ev->depth),
		SQ_TEXT(ev->parent_plugin),
		SQ_TEXT(ev->parent_api),
		SQ_INT(ev->device >= 0, ev->device),
		SQ_TEXT(ct_device_from_name(ev->device_from)),
		SQ_TEXT(ev->gpu ? ev->gpu->uuid : NULL),
		SQ_TEXT(ev->gpu && ev->gpu->bus[0] ? ev->gpu->bus : NULL),
		SQ_TEXT(cg ? cg->path : NULL),
		SQ_INT(cg, cg ? (int64_t)cg->id : 0),
		SQ_TEXT(cg ? cg->container : NULL),
		SQ_TEXT(cg ? cg->pod : NULL),
		SQ_INT(env && env->rank >= 0, env ? env->rank : 0),
		SQ_INT(env && env->local_rank >= 0, env ? env->local_rank : 0),
		SQ_INT(env && env->world_size >= 0, env ? env->world_size : 0),
		SQ_TEXT(env && env->job_id[0] ? env->job_id : NULL),
	};

	_Static_assert(sizeof(v) / sizeof(v[0]) <= SQ_SIDE_COLS, "a side row of more than SQ_SIDE_COLS columns");
	return sq_side_id(s, &s->contexts, ST_CONTEXT, v, (int)(sizeof(v) / sizeof(v[0])), id);
}

/* A number (or NULL: !has) into column i of the call statement, bound only
 * if it differs from the value bound there before: bindings outlive a
 * reset, and most of a call's columns (the NULLs, the pid, the side ids)
 * are the last call's. */
static void call_bind(struct sq_sink *s, int i, bool has, int64_t v)
{
	struct sq_bound *b = &s->bound[i];

	if (b->known && b->has == has && (!has || b->v == v))
		return;
	*b = (struct sq_bound){ true, has, has ? v : 0 };
	bind_opt(s->st[ST_CALL], i, has, v);
}

/* Text into column i of the call statement (read in place until the step). */
static void call_bind_text(struct sq_sink *s, int i, const char *v, size_t n)
{
	if (!v) {
		call_bind(s, i, false, 0);
		return;
	}
	s->bound[i].known = false;
	sqlite3_bind_text(s->st[ST_CALL], i, v, (int)n, SQLITE_STATIC);
}

/* A call as a row of call_rows, what repeats named by its side rows' ids.
 * Every column has a value bound, NULL where it has none: the hot
 * statement is not cleared between rows. */
static int sq_event(void *ctx, const struct ct_event *ev)
{
	struct sq_sink *s = ctx;
	uint32_t flags = ev->api->flags;
	bool timed = !ev->entry_only, coll = flags & (CT_API_COLLECTIVE | CT_API_P2P);
	int64_t sid = 0, pid = 0, api = 0, res = 0, where = 0;
	char comm[128];
	const char *cj;
	int err;

	if ((err = sq_row_begin(s)) || (err = proc_seen(s, ev)))
		return err;
	if (ev->stack && (err = stack_id(s, ev->stack, &sid)))
		return err;
	if (ev->py_stack && (err = py_stack_id(s, ev->py_stack, &pid)))
		return err;
	if ((err = api_id(s, ev, &api)) || (err = result_id(s, ev, &res)) || (err = context_id(s, ev, &where)))
		return err;
	if ((err = ct_args_json(&s->args, ev)))
		return err;
	plugin_seen(s, ev->plugin->name);
	cj = comm_json(comm, sizeof(comm), ev->comm_info);
	bind_i64(s->st[ST_CALL], 1, (int64_t)(ev->ts_ns + (uint64_t)s->meta.skew_ns));
	call_bind(s, 2, timed, (int64_t)ev->dur_ns);
	call_bind(s, 3, true, ev->pid);
	call_bind(s, 4, true, ev->tid);
	call_bind(s, 5, true, api);
	call_bind(s, 6, true, res);
	call_bind(s, 7, true, where);
	call_bind(s, 8, timed && ev->has_ret_handle, (int64_t)ev->ret_handle);
	call_bind(s, 9, coll || ct_api_has_bytes(flags), (int64_t)ct_event_bytes(ev));
	call_bind_text(s, 10, cj, cj ? strlen(cj) : 0);
	call_bind_text(s, 11, s->args.p, s->args.len);
	call_bind(s, 12, sid, sid);
	call_bind(s, 13, pid, pid);
	if ((err = sq_step(s, ST_CALL)))
		return err;
	return sq_row_end(s);
}

static const char *const gpu_ops[] = { [CT_GPU_KERNEL] = "kernel", [CT_GPU_MEMCPY] = "memcpy",
				       [CT_GPU_MEMSET] = "memset" };

static int sq_gpu(void *ctx, const struct ct_gpu_event *g)
{
	struct sq_sink *s = ctx;
	sqlite3_stmt *st = s->st[ST_GPU];
	int64_t ts = (int64_t)(g->ts_ns + (uint64_t)s->meta.skew_ns);
	int err;

	if (g->kind < CT_GPU_KERNEL || g->kind > CT_GPU_MEMSET)
		return 0;
	if ((err = sq_row_begin(s)))
		return err;
	bind_i64(st, 1, ts);
	bind_i64(st, 2, ts + (int64_t)g->dur_ns);
	bind_i64(st, 3, (int64_t)g->dur_ns);
	bind_text(st, 4, gpu_ops[g->kind]);
	bind_i64(st, 5, g->pid);
	bind_i64(st, 6, g->device);
	if (g->gpu) {
		bind_text(st, 7, g->gpu->uuid);
		bind_text(st, 25, g->gpu->bus[0] ? g->gpu->bus : NULL);
	}
	bind_i64(st, 8, g->context);
	bind_i64(st, 9, g->stream);
	if (g->kind == CT_GPU_KERNEL) {
		bind_text(st, 10, g->name);
		for (int i = 0; i < 3; i++) {
			bind_i64(st, 11 + i, g->grid[i]);
			bind_i64(st, 14 + i, g->block[i]);
		}
		bind_i64(st, 17, g->shared_bytes);
	} else {
		bind_i64(st, 18, (int64_t)g->bytes);
		if (g->kind == CT_GPU_MEMCPY)
			bind_text(st, 19, g->copy_kind);
		else
			bind_i64(st, 20, g->set_value);
	}
	bind_i64(st, 21, g->correlation);
	if (g->has_launch) {
		bind_i64(st, 22, g->launch_tid);
		bind_text(st, 23, g->launch_api);
		bind_i64(st, 24, (int64_t)(g->launch_ts_ns + (uint64_t)s->meta.skew_ns));
	}
	if (g->graph_node) { /* run from a CUDA graph: its node and the call that captured it */
		bind_i64(st, 26, g->graph_id);
		bind_i64(st, 27, (int64_t)g->graph_node);
		if (g->has_capture) {
			bind_i64(st, 28, (int64_t)g->capture_node);
			bind_i64(st, 29, g->capture_tid);
			bind_text(st, 30, g->capture_api);
			bind_i64(st, 31, (int64_t)(g->capture_ts_ns + (uint64_t)s->meta.skew_ns));
			bind_text(st, 32, g->capture_site);
		}
	}
	if ((err = sq_step(s, ST_GPU)))
		return err;
	return sq_row_end(s);
}

/* An NVTX range or mark (docs/nvtx.md) as a row of `ranges`. */
static int sq_nvtx(void *ctx, const struct ct_nvtx_event *r)
{
	struct sq_sink *s = ctx;
	sqlite3_stmt *st = s->st[ST_RANGE];
	int err;

	if ((err = sq_row_begin(s)))
		return err;
	bind_i64(st, 1, (int64_t)(r->ts_ns + (uint64_t)s->meta.skew_ns));
	bind_i64(st, 2, (int64_t)((r->mark ? r->ts_ns : r->end_ns) + (uint64_t)s->meta.skew_ns));
	bind_i64(st, 3, r->pid);
	bind_i64(st, 4, r->tid);
	bind_text(st, 5, r->domain);
	bind_text(st, 6, r->name);
	bind_i64(st, 7, r->mark ? -1 : r->depth);
	bind_i64(st, 8, r->mark);
	bind_i64(st, 9, r->open);
	if ((err = sq_step(s, ST_RANGE)))
		return err;
	return sq_row_end(s);
}

static void sq_proc_exit(void *ctx, uint32_t pid, uint64_t ts_ns)
{
	struct sq_sink *s = ctx;
	void *id = ct_u64map_del(&s->procs, pid);

	if (!id || sq_row_begin(s))
		return;
	bind_i64(s->st[ST_PROC_END], 1, (int64_t)(ts_ns + (uint64_t)s->meta.skew_ns));
	bind_i64(s->st[ST_PROC_END], 2, (int64_t)(uintptr_t)id);
	if (!sq_step(s, ST_PROC_END))
		sq_row_end(s);
}

/* The command line of the run, its words separated by spaces (bounded). */
static void command_line(char *buf, size_t n)
{
	FILE *f = fopen("/proc/self/cmdline", "re");
	size_t len = f ? fread(buf, 1, n - 1, f) : 0;

	if (f)
		fclose(f);
	buf[len] = 0;
	for (size_t i = 0; i + 1 < len; i++)
		if (!buf[i])
			buf[i] = ' ';
}

static int sq_schema(struct sq_sink *s)
{
	char sql[64], cmd[4096];
	int err;

	/* Pages of 16 KiB: 5% faster inserts than 4 KiB's, and an empty database
	 * of 0.3 MB. No spill: a transaction's pages reach the file only at its
	 * commit, so that a tracer killed between commits (its journal in memory
	 * lost) leaves the batches before whole. */
	if ((err = sq_exec(s, "PRAGMA page_size=16384; PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;"
			      "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-16384; PRAGMA cache_spill=OFF;")))
		return err;
	snprintf(sql, sizeof(sql), "PRAGMA user_version=%d;", CT_SQL_VERSION);
	if ((err = sq_exec(s, "BEGIN;" CT_SQL_TABLES)) || (err = sq_exec(s, sql)))
		return err;
	for (int i = 0; i < ST_N; i++) {
		int rc = sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i], NULL);

		if (rc != SQLITE_OK)
			return sq_fail(s, rc, stmt_sql[i]);
	}
	ct_run_meta_read(&s->meta);
	command_line(cmd, sizeof(cmd));
	if ((err = meta_put(s, "format", CT_SQL_FORMAT, 0)) ||
	    (err = meta_put(s, "schema_version", NULL, CT_SQL_VERSION)) ||
	    (err = meta_put(s, "host", s->meta.host, 0)) || (err = meta_put(s, "boot_id", s->meta.boot_id, 0)) ||
	    (err = meta_put(s, "tracer_pid", NULL, s->meta.tracer_pid)) ||
	    (err = meta_put(s, "wall_ns", NULL, (int64_t)s->meta.wall_ns)) ||
	    (err = meta_put(s, "mono_ns", NULL, (int64_t)s->meta.mono_ns)) ||
	    (err = meta_put(s, "wall_offset_ns", NULL, (int64_t)(s->meta.wall_ns - s->meta.mono_ns))) ||
	    (err = meta_put(s, "command", cmd, 0)))
		return err;
	if (s->meta.skew_ns && (err = meta_put(s, "test_clock_skew_ns", NULL, s->meta.skew_ns)))
		return err;
	s->in_txn = true;
	return sq_commit(s);
}

static int sq_open(void *ctx)
{
	struct sq_sink *s = ctx;
	int fd = s->c.out ? fileno(s->c.out) : -1, rc;
	char name[40];
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ct_err("sqlite: %s is not a regular file: a database needs one (-o sqlite:FILE)",
		       s->c.path ? s->c.path : "standard output");
		return -EINVAL;
	}
	if (!s->batch)
		s->batch = 1;
	/* No count of the library's memory: a lock and a sum on every malloc.
	 * Only before the library's first use; refused, harmlessly, after. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	fflush(s->c.out);
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	rc = sqlite3_open_v2(name, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE,
			     NULL);
	if (rc != SQLITE_OK)
		return sq_fail(s, rc, "open");
	if (!ct_fd_opened_again(fd, &st)) {
		ct_err("sqlite: %s changed while it was opened (another file is there now): refused", s->c.path);
		return -EPERM;
	}
	sqlite3_busy_timeout(s->db, BUSY_MS);
	return sq_schema(s);
}

static int sq_tick(void *ctx, uint64_t now_ns)
{
	return sq_commit(ctx);
}

/* The run's totals into meta, the indexes, the last commit. */
static int sq_close(void *ctx, const struct ct_run_stats *rs)
{
	struct sq_sink *s = ctx;
	char plugins[CT_MAX_PLUGINS * 33] = "";
	int err;
	const struct {
		const char *key;
		uint64_t v;
	} totals[] = {
		{ "start_ns", rs->start_ns }, { "end_ns", rs->end_ns },     { "events", rs->events },
		{ "lost", rs->lost },         { "unpaired", rs->unpaired }, { "too_deep", rs->too_deep },
		{ "filtered", rs->filtered }, { "gpu_events", rs->gpu_events }, { "gpu_lost", rs->gpu_lost },
	};

	if (!s->db)
		return 0;
	if ((err = sq_row_begin(s)))
		return err;
	for (size_t i = 0; i < sizeof(totals) / sizeof(totals[0]); i++)
		if ((err = meta_put(s, totals[i].key, NULL, (int64_t)totals[i].v)))
			return err;
	for (int i = 0; i < s->n_plugins; i++)
		snprintf(plugins + strlen(plugins), sizeof(plugins) - strlen(plugins), "%s%.32s", i ? "," : "",
			 s->plugins[i]);
	if ((err = meta_put(s, "plugins", plugins, 0)) || (err = sq_exec(s, CT_SQL_INDEXES)))
		return err;
	if (s->commits_put_off)
		ct_info("sink '%s' (sqlite): %llu commits waited for a reader of the database", s->c.name ? s->c.name : "sqlite",
			(unsigned long long)s->commits_put_off);
	return sq_commit_when(s, true);
}

static void sq_destroy(void *ctx)
{
	struct sq_sink *s = ctx;

	for (int i = 0; i < ST_N; i++)
		sqlite3_finalize(s->st[i]);
	/* A transaction still open here (the run failed) is committed: what
	 * was written stays readable. */
	if (s->db && s->in_txn)
		sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(s->db);
	ct_sb_free(&s->args);
	ct_sb_free(&s->json);
	ct_u64map_free(&s->stacks);
	ct_u64map_free(&s->py_stacks);
	ct_u64map_free(&s->procs);
	sq_side_free(&s->apis);
	ct_u64map_free(&s->api_ids);
	sq_side_free(&s->results);
	sq_side_free(&s->contexts);
}

const struct ct_sink_ops ct_sink_sqlite = {
	.type = "sqlite",
	.where_help = "a SQLite database (schema: docs/sqlite.md)",
	.file_ext = "db",
	.help = "The run as a SQLite database: calls, GPU activity, stacks, processes (docs/sqlite.md)",
	.keys = sq_keys,
	.ctx_size = sizeof(struct sq_sink),
	.open = sq_open,
	.event = sq_event,
	.tick = sq_tick,
	.close = sq_close,
	.destroy = sq_destroy,
	.proc_exit = sq_proc_exit,
	.gpu = sq_gpu,
	.nvtx = sq_nvtx,
};
