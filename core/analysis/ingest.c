// SPDX-License-Identifier: MIT
/*
 * A jsonl trace line read for the analysis (docs/events.md): only the keys
 * it uses, straight from the line, without the plugins' tables (report's
 * replay needs them for the sinks; the analysis needs names and times).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "analysis/analysis.h"
#include "analysis/apiclass.h"
#include "report/json.h"
#include "util/log.h"

#define NAME_MAX_BYTES 4200 /* a name is cut at 4 KiB by the tracer; more is cut here */

enum line_kind { L_CALL, L_GPU, L_RANGE, L_META, L_OTHER };

struct line {
	struct ct_an *a;
	enum line_kind kind;
	bool has_ts, has_dur, has_end;
	uint64_t ts, dur, end;
	struct ct_an_rec r;
	bool has_py, has_stack, has_nvtx;
	int64_t version;
	uint32_t fline;  /* the frame being read */
	bool has_fline;
	/* Buffers: from here on not cleared for each line (written before read). */
	char api[128], kname[NAME_MAX_BYTES], name[NAME_MAX_BYTES], site[NAME_MAX_BYTES + 64];
	char fn[512], file[1024], module[512], capture_api[128];
};

static int frame_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct line *l = ctx;

	if (!strcmp(key, "function"))
		return ct_jp_null(j) ? 0 : ct_jp_string(j, l->fn, sizeof(l->fn));
	if (!strcmp(key, "file"))
		return ct_jp_null(j) ? 0 : ct_jp_string(j, l->file, sizeof(l->file));
	if (!strcmp(key, "module"))
		return ct_jp_null(j) ? 0 : ct_jp_string(j, l->module, sizeof(l->module));
	if (!strcmp(key, "line"))
		return ct_jp_null(j) ? 0 : (l->has_fline = true, ct_jp_u32(j, &l->fline));
	return 1;
}

static int read_frame(struct line *l, struct ct_jp *j)
{
	l->fn[0] = l->file[0] = l->module[0] = 0;
	l->has_fline = false;
	l->fline = 0;
	if (ct_jp_peek(j) != '{')
		return 1;
	return ct_jp_object(j, frame_key, l);
}

/* "function (file:line)": the innermost frame names the line that called. */
static void set_site(struct line *l, bool python)
{
	if (python || (l->file[0] && l->has_fline))
		snprintf(l->site, sizeof(l->site), "%s (%s:%u)", l->fn[0] ? l->fn : "?", l->file[0] ? l->file : "?",
			 l->fline);
	else
		snprintf(l->site, sizeof(l->site), "%s (%s)", l->fn[0] ? l->fn : "?", l->module[0] ? l->module : "?");
	l->r.site = l->site;
}

static int py_frame(void *ctx, size_t i, struct ct_jp *j)
{
	struct line *l = ctx;
	int err;

	/* Past the innermost frame only the step function is looked for. */
	if (i > 0 && (!l->a->o.py_function || l->r.in_fn))
		return 1;
	err = read_frame(l, j);
	if (err)
		return err;
	if (i == 0)
		set_site(l, true);
	if (!l->r.in_fn && l->a->o.py_function && !strcmp(l->fn, l->a->o.py_function))
		l->r.in_fn = true, l->r.fn_line = l->fline;
	return 0;
}

static int native_frame(void *ctx, size_t i, struct ct_jp *j)
{
	struct line *l = ctx;
	int err;

	if (i != 0)
		return 1;
	err = read_frame(l, j);
	if (!err && !l->r.site)
		set_site(l, false);
	return err;
}

static int nvtx_name(void *ctx, size_t i, struct ct_jp *j)
{
	struct line *l = ctx;
	char name[1024];
	int err;

	(void)i;
	if (ct_jp_peek(j) != '"')
		return 1;
	err = ct_jp_string(j, name, sizeof(name));
	if (!err && l->a->o.range_pattern && fnmatch(l->a->o.range_pattern, name, 0) == 0)
		l->r.nvtx_match = true;
	return err;
}

static int arg_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct line *l = ctx;

	/* cudaLaunchKernel's func, cuLaunchKernel's f, hip's and OpenCL's kernel. */
	if ((!strcmp(key, "func") || !strcmp(key, "f") || !strcmp(key, "kernel")) && ct_jp_peek(j) == '"') {
		l->r.kname = l->kname;
		return ct_jp_string(j, l->kname, sizeof(l->kname));
	}
	return 1;
}

static int corr_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct line *l = ctx;

	if (ct_jp_null(j))
		return 0;
	if (!strcmp(key, "tid"))
		return ct_jp_u32(j, &l->r.corr_tid);
	if (!strcmp(key, "ts_ns"))
		return ct_jp_u64(j, &l->r.corr_ts);
	return 1;
}

/* A GPU line's "captured_by": the call that made its CUDA graph node (its site into r.site). */
static int capture_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct line *l = ctx;

	if (ct_jp_null(j))
		return 0;
	if (!strcmp(key, "api"))
		return l->r.capture_api = l->capture_api, ct_jp_string(j, l->capture_api, sizeof(l->capture_api));
	if (!strcmp(key, "site"))
		return l->r.site = l->site, ct_jp_string(j, l->site, sizeof(l->site));
	return 1;
}

/* A copy's side (CUPTI's memory kind): pageable host memory makes it staged. */
static int host_kind(struct line *l, struct ct_jp *j)
{
	char s[32];
	int err;

	if (ct_jp_peek(j) != '"')
		return 1;
	err = ct_jp_string(j, s, sizeof(s));
	l->r.pageable |= !strcmp(s, "pageable");
	return err;
}

static int line_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct line *l = ctx;
	char s[32];
	int err;

	switch (key[0]) {
	case 'a':
		if (!strcmp(key, "api"))
			return ct_jp_string(j, l->api, sizeof(l->api));
		/* Only a launch's arguments are read (its kernel's name); "api" comes first. */
		if (!strcmp(key, "args") && ct_jp_peek(j) == '{' && ct_an_api_class(l->a, l->api) == CT_CLASS_LAUNCH)
			return ct_jp_object(j, arg_key, l);
		break;
	case 'b':
		if (!strcmp(key, "bytes"))
			return ct_jp_null(j) ? 0 : ct_jp_u64(j, &l->r.bytes);
		break;
	case 'c':
		if (!strcmp(key, "correlation") && ct_jp_peek(j) == '{')
			return ct_jp_object(j, corr_key, l);
		if (!strcmp(key, "captured_by") && ct_jp_peek(j) == '{')
			return ct_jp_object(j, capture_key, l);
		break;
	case 'd':
		if (!strcmp(key, "dur_ns"))
			return l->has_dur = true, ct_jp_u64(j, &l->dur);
		if (!strcmp(key, "dst_kind"))
			return host_kind(l, j);
		break;
	case 'e':
		if (!strcmp(key, "end_ns"))
			return l->has_end = true, ct_jp_u64(j, &l->end);
		break;
	case 'g':
		if (!strcmp(key, "graph_node"))
			return ct_jp_u64(j, &l->r.graph_node);
		if (!strcmp(key, "graph_id"))
			return ct_jp_u32(j, &l->r.graph_id);
		break;
	case 'k':
		if (!strcmp(key, "kind")) {
			err = ct_jp_string(j, s, sizeof(s));
			l->kind = !strcmp(s, "gpu") ? L_GPU : !strcmp(s, "range") ? L_RANGE : !strcmp(s, "meta") ? L_META : L_OTHER;
			return err;
		}
		break;
	case 'n':
		if (!strcmp(key, "name"))
			return ct_jp_null(j) ? 0 : (l->r.name = l->name, ct_jp_string(j, l->name, sizeof(l->name)));
		if (!strcmp(key, "nvtx") && ct_jp_peek(j) == '[')
			return l->has_nvtx = true, ct_jp_array(j, nvtx_name, l);
		break;
	case 'o':
		if (!strcmp(key, "op")) {
			err = ct_jp_string(j, s, sizeof(s));
			l->r.op = !strcmp(s, "memcpy") ? CT_AN_MEMCPY : !strcmp(s, "memset") ? CT_AN_MEMSET : CT_AN_KERNEL;
			return err;
		}
		break;
	case 'p':
		if (!strcmp(key, "pid"))
			return ct_jp_u32(j, &l->r.pid);
		if (!strcmp(key, "py_stack") && ct_jp_peek(j) == '[')
			return l->has_py = true, ct_jp_array(j, py_frame, l);
		break;
	case 's':
		if (!strcmp(key, "stack") && ct_jp_peek(j) == '[')
			return l->has_stack = true, ct_jp_array(j, native_frame, l);
		if (!strcmp(key, "src_kind"))
			return host_kind(l, j);
		break;
	case 't':
		if (!strcmp(key, "ts_ns"))
			return l->has_ts = true, ct_jp_u64(j, &l->ts);
		if (!strcmp(key, "tid"))
			return ct_jp_u32(j, &l->r.tid);
		break;
	case 'v':
		if (!strcmp(key, "version"))
			return ct_jp_i64(j, &l->version);
		break;
	}
	return 1;
}

int ct_an_line(struct ct_an *a, const char *text, size_t len, const char *path, long lineno)
{
	struct line l;
	struct ct_jp j = { text, text + len };
	int err;

	/* The big buffers are written before they are read; only the head is cleared. */
	memset(&l, 0, offsetof(struct line, api));
	l.api[0] = l.kname[0] = l.name[0] = l.site[0] = l.capture_api[0] = 0;
	l.a = a;
	l.kind = L_CALL;
	err = ct_jp_object(&j, line_key, &l);
	if (!err && !ct_jp_at_end(&j))
		err = -EINVAL;
	if (err == -ENOMEM)
		return err;
	if (err || (l.kind != L_META && l.kind != L_OTHER && !l.has_ts)) {
		if (!a->seen.bad_lines++)
			ct_warn("analysis: %s:%ld: not a trace line (not whole JSON, or no ts_ns); skipped", path, lineno);
		return -EINVAL;
	}
	l.r.ts = l.ts;
	switch (l.kind) {
	case L_META:
		a->seen.meta = true;
		a->seen.version = l.version;
		return 0;
	case L_OTHER:
		return 0;
	case L_RANGE:
		a->seen.ranges++;
		return ct_an_range(a, l.r.pid, l.ts, l.has_end ? l.end : l.ts + l.dur, l.name);
	case L_GPU:
		a->seen.gpu++;
		l.r.end = l.has_end ? l.end : l.ts + l.dur;
		return ct_an_gpu(a, &l.r);
	case L_CALL:
		break;
	}
	a->seen.calls++;
	a->seen.nvtx_calls += l.has_nvtx;
	a->seen.py_calls += l.has_py;
	a->seen.stack_calls += l.has_stack;
	l.r.api = l.api;
	l.r.end = l.ts + (l.has_dur ? l.dur : 0);
	return ct_an_call(a, &l.r);
}
