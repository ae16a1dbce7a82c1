// SPDX-License-Identifier: MIT
/*
 * The sqlite sink on hand-built events: what it writes, read back by the
 * report's reader (report/sqlread.c), is the text the jsonl sink writes for
 * the same calls and GPU activity, line for line; a transaction is committed
 * every `batch` rows and at each tick, so another reader sees them before the
 * run ends; stacks are stored once, and so is the text calls repeat (the API,
 * the result, the thread's context), found again by its content.
 */
#include <sqlite3.h>
#include "test_sink_fixture.h"
#include "report/tracefile.h"

/* Close as the core does, keeping the file (fx_sink_close removes it). */
static void close_keep(struct fx_sink *s, const struct ct_run_stats *st)
{
	struct ct_sink_common *c = s->ctx;

	assert_int_equal(s->ops->close(s->ctx, st), 0);
	if (s->ops->destroy)
		s->ops->destroy(s->ctx);
	ct_keys_free(s->ops->keys, s->ctx);
	fclose(c->out);
	free(s->ctx);
}

/* The trace's lines after the meta line, joined by \n. */
static char *lines(const char *path)
{
	struct ct_tracefile t;
	const char *line;
	size_t len, n = 0;
	char *all = NULL;

	assert_int_equal(ct_tracefile_open(&t, path, "test"), 0);
	while (ct_tracefile_next(&t, &line, &len) > 0) {
		all = realloc(all, n + len + 2);
		assert_non_null(all);
		memcpy(all + n, line, len);
		n += len;
		all[n++] = '\n';
	}
	ct_tracefile_close(&t);
	all = realloc(all, n + 1);
	all[n] = 0;
	return all;
}

static int64_t count(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t n = -1;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

static const struct ct_frame_info frames[2] = {
	{ .kind = CT_FRAME_NATIVE, .addr = 0x401234, .module = "/usr/bin/app", .function = "main", .offset = 0x34,
	  .src_file = "app.c", .src_line = 12 },
	{ .kind = CT_FRAME_TRUNCATED },
};
static const struct ct_callstack stack = { frames, 2, 77 };

static const struct ct_gpu_info gpu0 = { 0, "GPU-12345678-1234-1234-1234-123456789abc", "0000:3b:00.0" };

static void feed(struct fx_sink *s)
{
	struct ct_event ev[4] = {
		fx_event(FX_MALLOC, 10, 10, 100, 2000, 0, U(0x7f0000001000), U(4096)),
		fx_event(FX_MEMCPY, 10, 11, 200, 3000, 2, U(0x7f0000001000), U(0x1000), U(512), U(1)),
		fx_event(FX_MARK, 10, 10, 300, 0, 0, "epoch 1"),
		fx_event(FX_NAMED, 10, 10, 400, 50, 7, "a \"quoted\"\nname"),
	};
	struct ct_gpu_event g[3] = {
		{ .kind = CT_GPU_KERNEL, .pid = 10, .ts_ns = FX_WALL + 500, .dur_ns = 900, .device = 1, .context = 2,
		  .stream = 7, .name = "scale(float*, int)", .grid = { 64, 1, 1 }, .block = { 256, 1, 1 },
		  .shared_bytes = 1024, .correlation = 41, .has_launch = true, .launch_tid = 11,
		  .launch_api = "cudaLaunchKernel", .launch_ts_ns = FX_WALL + 450, .gpu = &gpu0 },
		{ .kind = CT_GPU_MEMCPY, .pid = 10, .ts_ns = FX_WALL + 600, .dur_ns = 80, .bytes = 512,
		  .copy_kind = "HtoD", .correlation = 42 },
		{ .kind = CT_GPU_MEMSET, .pid = 10, .ts_ns = FX_WALL + 700, .dur_ns = 20, .bytes = 64,
		  .set_value = 255, .correlation = 43, .has_launch = true, .launch_tid = 10, .launch_api = "cudaMemset",
		  .launch_ts_ns = FX_WALL + 690 },
	};

	ev[0].stack = ev[1].stack = &stack; /* the same stack twice: one row */
	ev[0].device = 1;
	ev[0].device_from = CT_DEVICE_FROM_CALL;
	ev[0].gpu = &gpu0;
	ev[3].has_ret_handle = true;
	ev[3].ret_handle = 0xabc;
	ev[1].depth = 1; /* made inside another plugin's call */
	ev[1].parent_plugin = "cuda";
	ev[1].parent_api = "cuMemcpy";
	for (int i = 0; i < 4; i++)
		fx_sink_event(s, &ev[i]);
	for (int i = 0; i < 3; i++)
		assert_int_equal(s->ops->gpu(s->ctx, &g[i]), 0);
}

/* The database read back is the jsonl the jsonl sink wrote, line for line. */
static void test_reads_back_as_jsonl(void **state)
{
	struct ct_run_stats st = { .events = 4, .gpu_events = 3 };
	struct fx_sink db, jl;
	char *a, *b;

	fx_sink_open(&db, "sqlite", NULL);
	fx_sink_open(&jl, "jsonl", NULL);
	feed(&db);
	feed(&jl);
	close_keep(&db, &st);
	close_keep(&jl, &st);
	a = lines(jl.path);
	b = lines(db.path);
	assert_string_equal(b, a);
	assert_non_null(strstr(a, "\"op\":\"memset\"")); /* all three GPU lines are there */
	assert_int_equal(count(db.path, "SELECT count(*) FROM stacks"), 1);
	assert_int_equal(count(db.path, "SELECT count(*) FROM frames WHERE stack_id = 1"), 2);
	assert_int_equal(count(db.path, "SELECT count(*) FROM calls WHERE stack_id = 1"), 2);
	assert_int_equal(count(db.path, "SELECT sum(dur_ns) FROM gpu WHERE op = 'kernel' AND name = "
					"'scale(float*, int)' AND launch_api = 'cudaLaunchKernel'"), 900);
	assert_int_equal(count(db.path, "SELECT bytes FROM calls WHERE api = 'xMemcpy'"), 512);
	assert_int_equal(count(db.path, "SELECT value FROM meta WHERE key = 'gpu_events'"), 3);
	free(a);
	free(b);
	unlink(db.path);
	unlink(jl.path);
}

/* A context seen again is the same row of contexts; one the sink stopped
 * remembering (past 65,536 others) is stored again, and the view reads
 * both the same. */
static void test_side_rows(void **state)
{
	struct ct_run_stats st = { 0 };
	struct ct_event ev = fx_event(FX_MALLOC, 10, 10, 100, 2000, 0, U(0x1000), U(64));
	struct fx_sink db;
	char comm[16];

	fx_sink_open(&db, "sqlite", NULL);
	for (int i = 0; i < 100000; i++) {
		snprintf(comm, sizeof(comm), "t%d", i % 3 ? i : 0); /* t0 every third call */
		ev.comm = comm;
		fx_sink_event(&db, &ev);
	}
	close_keep(&db, &st);
	assert_int_equal(count(db.path, "SELECT count(*) FROM calls"), 100000);
	assert_int_equal(count(db.path, "SELECT count(*) FROM calls WHERE comm = 't0'"), 33334);
	assert_int_equal(count(db.path, "SELECT count(*) FROM calls WHERE comm = 't99998'"), 1);
	assert_int_equal(count(db.path, "SELECT count(*) FROM apis"), 1);
	assert_int_equal(count(db.path, "SELECT count(*) FROM results"), 1);
	/* 66,667 distinct: t0 once until the 65,536 kept are forgotten, then once more */
	assert_int_equal(count(db.path, "SELECT count(*) FROM contexts"), 66668);
	assert_int_equal(count(db.path, "SELECT count(*) FROM contexts WHERE comm = 't0'"), 2);
	unlink(db.path);
}

/* Rows are committed every `batch` rows and at each tick: another reader sees
 * them while the run goes on, not only at its end. */
static void test_batches(void **state)
{
	struct ct_run_stats st = { 0 };
	struct ct_event ev = fx_event(FX_MALLOC, 10, 10, 100, 2000, 0, U(0x1000), U(64));
	struct fx_sink db;

	fx_sink_open(&db, "sqlite", "batch", "3", NULL);
	for (int i = 0; i < 7; i++)
		fx_sink_event(&db, &ev);
	/* two batches of 3 committed; the seventh row in the open transaction */
	assert_int_equal(count(db.path, "SELECT count(*) FROM calls"), 6);
	assert_int_equal(db.ops->tick(db.ctx, 0), 0);
	assert_int_equal(count(db.path, "SELECT count(*) FROM calls"), 7);
	close_keep(&db, &st);
	assert_int_equal(count(db.path, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'calls_ts'"),
			 1);
	unlink(db.path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_back_as_jsonl),
		cmocka_unit_test(test_batches),
		cmocka_unit_test(test_side_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
