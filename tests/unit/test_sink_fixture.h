/* SPDX-License-Identifier: MIT */
/*
 * Shared by the sink unit tests: a made-up runtime whose API table carries
 * the flags and roles a real plugin's does (the sinks must never need more),
 * a builder for decoded events, and a harness that runs one sink over a
 * temporary file the way the core does: defaults, keys, open, events, close.
 */
#ifndef TEST_SINK_FIXTURE_H
#define TEST_SINK_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "record.h"
#include "sinks/sink.h"

static const struct ct_enum_entry fx_kind_v[] = {
	{ 0, "xHostToHost" }, { 1, "xHostToDevice" }, { 2, "xDeviceToHost" }, { 3, "xDeviceToDevice" },
};
static const struct ct_enum fx_kinds = { fx_kind_v, 4 };
static const struct ct_enum_entry fx_err_v[] = { { 0, "xSuccess" }, { 2, "xErrorMemory" } };
static const struct ct_enum fx_errs = { fx_err_v, 2 };

enum {
	FX_MALLOC, FX_FREE, FX_MEMCPY, FX_LAUNCH, FX_MALLOC_HOST, FX_FREE_HOST, FX_MARK,
	FX_MEMCPY2D, FX_SYNC, FX_MEMSET, FX_NAMED, FX_N
};

#define FX_ARG(n, k, s, r) { .name = (n), .kind = (k), CT_SLOT(s), .size = 8, .role = (r) }

static const struct ct_api fx_apis[FX_N] = {
	[FX_MALLOC] = { .symbol = "xMalloc", .flags = CT_API_ALLOC | CT_API_DEVICE_MEM, .n_args = 2,
			.args = (const struct ct_arg[]){ FX_ARG("devPtr", CT_ARG_PTR, 0, CT_ROLE_ALLOC_PTR),
				  FX_ARG("size", CT_ARG_SIZE, 1, CT_ROLE_BYTES) } },
	[FX_FREE] = { .symbol = "xFree", .flags = CT_API_FREE | CT_API_DEVICE_MEM, .n_args = 1,
		      .args = (const struct ct_arg[]){ FX_ARG("devPtr", CT_ARG_PTR, 0, CT_ROLE_FREE_PTR) } },
	[FX_MEMCPY] = { .symbol = "xMemcpy", .flags = CT_API_COPY, .n_args = 4,
			.args = (const struct ct_arg[]){ FX_ARG("dst", CT_ARG_PTR, 0, CT_ROLE_NONE),
				  FX_ARG("src", CT_ARG_PTR, 1, CT_ROLE_NONE),
				  FX_ARG("count", CT_ARG_SIZE, 2, CT_ROLE_BYTES),
				  { .name = "kind", .kind = CT_ARG_ENUM, CT_SLOT(3), .size = 4,
				    .role = CT_ROLE_COPY_KIND, .names = &fx_kinds } } },
	[FX_LAUNCH] = { .symbol = "xLaunchKernel", .flags = CT_API_LAUNCH, .n_args = 2,
			.args = (const struct ct_arg[]){ FX_ARG("func", CT_ARG_PTR, 0, CT_ROLE_KERNEL),
				  { .name = "grid", .kind = CT_ARG_DIM3, CT_SLOT(1), .size = 12, .role = CT_ROLE_GRID } } },
	[FX_MALLOC_HOST] = { .symbol = "xMallocHost", .flags = CT_API_ALLOC | CT_API_HOST_MEM, .n_args = 2,
			     .args = (const struct ct_arg[]){ FX_ARG("ptr", CT_ARG_PTR, 0, CT_ROLE_ALLOC_PTR),
				       FX_ARG("size", CT_ARG_SIZE, 1, CT_ROLE_BYTES) } },
	[FX_FREE_HOST] = { .symbol = "xFreeHost", .flags = CT_API_FREE | CT_API_HOST_MEM, .n_args = 1,
			   .args = (const struct ct_arg[]){ FX_ARG("ptr", CT_ARG_PTR, 0, CT_ROLE_FREE_PTR) } },
	[FX_MARK] = { .symbol = "xMark", .flags = CT_API_ENTRY_ONLY, .n_args = 1,
		      .args = (const struct ct_arg[]){ { .name = "label", .kind = CT_ARG_STRING, .area = CT_AREA_STR } } },
	[FX_MEMCPY2D] = { .symbol = "xMemcpy2D", .flags = CT_API_COPY, .n_args = 3,
			  .args = (const struct ct_arg[]){ FX_ARG("width", CT_ARG_SIZE, 0, CT_ROLE_BYTES),
				    FX_ARG("height", CT_ARG_SIZE, 1, CT_ROLE_HEIGHT),
				    { .name = "kind", .kind = CT_ARG_ENUM, CT_SLOT(2), .size = 4,
				      .role = CT_ROLE_COPY_KIND, .names = &fx_kinds } } },
	[FX_SYNC] = { .symbol = "xDeviceSynchronize", .flags = CT_API_SYNC },
	[FX_MEMSET] = { .symbol = "xMemset", .flags = CT_API_SET, .n_args = 3,
			.args = (const struct ct_arg[]){ FX_ARG("devPtr", CT_ARG_PTR, 0, CT_ROLE_NONE),
				  { .name = "value", .kind = CT_ARG_INT, CT_SLOT(1), .size = 4 },
				  FX_ARG("count", CT_ARG_SIZE, 2, CT_ROLE_BYTES) } },
	[FX_NAMED] = { .symbol = "xSetName", .flags = 0, .n_args = 1,
		       .args = (const struct ct_arg[]){ { .name = "name", .kind = CT_ARG_STRING, .area = CT_AREA_STR } } },
};

static const struct ct_plugin fx_plugin = {
	CT_PLUGIN_HEAD, .name = "fake",
	.apis = fx_apis, .n_apis = FX_N, .errors = &fx_errs, .success_name = "xSuccess",
};

/* A second runtime, to check that runtimes are kept apart. */
static const struct ct_plugin fx_plugin2 = {
	.abi_version = CT_ABI_VERSION, .sz = sizeof(struct ct_plugin), .name = "other",
	.apis = fx_apis, .n_apis = FX_N, .errors = &fx_errs, .success_name = "xSuccess",
};

#define FX_WALL 1700000000000000000ull /* 2023-11-14T22:13:20Z */
#define FX_MONO 5000000000ull          /* CLOCK_MONOTONIC at the same instant */

/*
 * An event of API `api` from `pid`/`tid` that starts `ts` ns after FX_WALL,
 * lasts `dur` ns and returns `result` (0 success, 2 xErrorMemory, else
 * unnamed). The variadic values are the arguments' values in table order;
 * strings take a const char *, DIM3 three values, everything else a uint64_t.
 */
static inline struct ct_event fx_event_v(const struct ct_plugin *pl, unsigned api, uint32_t pid, uint32_t tid,
				  uint64_t ts, uint64_t dur, int64_t result, va_list ap)
{
	struct ct_event ev = { 0 };
	const struct ct_api *a = &pl->apis[api];

	ev.plugin = pl;
	ev.api = a;
	ev.api_idx = api;
	ev.ts_ns = FX_WALL + ts;
	ev.mono_ns = FX_MONO + ts;
	ev.pid = pid;
	ev.tid = tid;
	ev.comm = tid == pid ? "app" : "app-worker";
	ev.device = -1; /* as decoded: no call of the thread said */
	ev.entry_only = a->flags & CT_API_ENTRY_ONLY;
	if (!ev.entry_only) {
		ev.dur_ns = dur;
		ev.has_result = true;
		ev.result = result;
		ev.result_name = result == 0 ? "xSuccess" : result == 2 ? "xErrorMemory" : NULL;
		ev.is_error = result != 0;
	}
	ev.n_fields = a->n_args;
	for (unsigned i = 0; i < a->n_args; i++) {
		struct ct_field *f = &ev.fields[i];

		f->arg = &a->args[i];
		f->valid = true;
		if (f->arg->kind == CT_ARG_STRING) {
			f->str = va_arg(ap, const char *);
		} else if (f->arg->kind == CT_ARG_DIM3) {
			f->n3 = 3;
			for (int j = 0; j < 3; j++)
				f->v3[j] = va_arg(ap, uint64_t);
		} else {
			f->v = va_arg(ap, uint64_t);
		}
		if (f->arg->kind == CT_ARG_ENUM && f->arg->names)
			for (size_t j = 0; j < f->arg->names->n; j++)
				if ((uint64_t)f->arg->names->v[j].value == f->v)
					f->enum_name = f->arg->names->v[j].name;
	}
	return ev;
}

static inline struct ct_event fx_event(unsigned api, uint32_t pid, uint32_t tid, uint64_t ts,
				       uint64_t dur, int64_t result, ...)
{
	struct ct_event ev;
	va_list ap;

	va_start(ap, result);
	ev = fx_event_v(&fx_plugin, api, pid, tid, ts, dur, result, ap);
	va_end(ap);
	return ev;
}

static inline struct ct_event fx_event_pl(const struct ct_plugin *pl, unsigned api, uint32_t pid,
					  uint32_t tid, uint64_t ts, uint64_t dur, int64_t result, ...)
{
	struct ct_event ev;
	va_list ap;

	va_start(ap, result);
	ev = fx_event_v(pl, api, pid, tid, ts, dur, result, ap);
	va_end(ap);
	return ev;
}

#define U(x) ((uint64_t)(x))

/* One sink over a temporary file, run as the core runs it. */
struct fx_sink {
	const struct ct_sink_ops *ops;
	void *ctx;
	char path[64];
};

/* kv: "key", "value", ..., NULL */
static inline void fx_sink_open(struct fx_sink *s, const char *type, ...)
{
	struct ct_sink_common *c;
	const char *k;
	va_list ap;
	int fd;

	s->ops = ct_sink_find(type);
	assert_non_null(s->ops);
	s->ctx = calloc(1, s->ops->ctx_size);
	assert_non_null(s->ctx);
	assert_int_equal(ct_keys_defaults(s->ops->keys, s->ctx), 0);
	va_start(ap, type);
	while ((k = va_arg(ap, const char *))) {
		const char *v = va_arg(ap, const char *);
		char why[256];
		const struct ct_key *key = ct_key_find(s->ops->keys, k);

		assert_non_null(key);
		assert_int_equal(ct_key_set(key, s->ctx, v, why, sizeof(why)), 0);
	}
	va_end(ap);
	strcpy(s->path, "/tmp/ct-sink-test.XXXXXX");
	fd = mkstemp(s->path);
	assert_true(fd >= 0);
	c = s->ctx;
	c->name = "test";
	c->out = fdopen(fd, "w");
	assert_non_null(c->out);
	if (s->ops->open)
		assert_int_equal(s->ops->open(s->ctx), 0);
}

static inline void fx_sink_event(struct fx_sink *s, const struct ct_event *ev)
{
	assert_int_equal(s->ops->event(s->ctx, ev), 0);
}

static inline char *fx_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

/* What the file holds now, without closing the sink (a crash's view). */
static inline char *fx_sink_peek(struct fx_sink *s)
{
	return fx_read_file(s->path);
}

/* Close as the core does at exit; return the file's text (free it). */
static inline char *fx_sink_close(struct fx_sink *s, const struct ct_run_stats *st)
{
	struct ct_sink_common *c = s->ctx;
	char *text;

	if (s->ops->close)
		assert_int_equal(s->ops->close(s->ctx, st), 0);
	if (s->ops->destroy)
		s->ops->destroy(s->ctx);
	ct_keys_free(s->ops->keys, s->ctx);
	fclose(c->out);
	text = fx_read_file(s->path);
	unlink(s->path);
	free(s->ctx);
	return text;
}

/* Run python3 on `script` with the file's text on stdin; 0 means it passed. */
static inline int fx_python(const char *script, const char *text)
{
	char path[] = "/tmp/ct-sink-py.XXXXXX";
	char cmd[256];
	int fd = mkstemp(path), rc;
	FILE *f = fdopen(fd, "w");

	assert_non_null(f);
	fputs(script, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "python3 %s", path);
	f = popen(cmd, "w");
	assert_non_null(f);
	fputs(text, f);
	rc = pclose(f);
	unlink(path);
	return rc;
}

/* Show both texts when a golden comparison fails. */
#define assert_text_equal(got, want)                                                     \
	do {                                                                             \
		if (strcmp((got), (want))) {                                             \
			print_error("--- got ---\n%s--- want ---\n%s---\n", (got), (want)); \
			fail();                                                          \
		}                                                                        \
	} while (0)

#endif
