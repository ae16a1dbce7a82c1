// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "report/gpuline.h"
#include "report/json.h"
#include "report/replay.h"

struct gl {
	struct ct_gpuline *g;
	bool gpu, has_ts, has_end;
	uint64_t end;
	uint32_t *dim;
};

static int dim_elem(void *ctx, size_t i, struct ct_jp *j)
{
	struct gl *l = ctx;

	return i < 3 ? ct_jp_u32(j, &l->dim[i]) : 1;
}

static int opt_string(struct ct_jp *j, char *out, size_t cap, const char **set)
{
	if (ct_jp_null(j))
		return 0;
	*set = out;
	return ct_jp_string(j, out, cap);
}

static int corr_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct gl *l = ctx;
	struct ct_gpu_event *ev = &l->g->ev;

	if (!strcmp(key, "id"))
		return ct_jp_u32(j, &ev->correlation);
	if (ct_jp_null(j))
		return 0;
	if (!strcmp(key, "tid"))
		return ev->has_launch = true, ct_jp_u32(j, &ev->launch_tid);
	if (!strcmp(key, "api"))
		return ct_jp_string(j, l->g->launch_api, sizeof(l->g->launch_api));
	if (!strcmp(key, "ts_ns"))
		return ct_jp_u64(j, &ev->launch_ts_ns);
	return 1;
}

/* "captured_by":{"node","tid","api","ts_ns","site"} (a trace since CUDA graph nodes: docs/events.md) */
static int capture_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct gl *l = ctx;
	struct ct_gpu_event *ev = &l->g->ev;

	l->g->ev.has_capture = true;
	if (!strcmp(key, "node"))
		return ct_jp_u64(j, &ev->capture_node);
	if (!strcmp(key, "tid"))
		return ct_jp_u32(j, &ev->capture_tid);
	if (!strcmp(key, "ts_ns"))
		return ct_jp_u64(j, &ev->capture_ts_ns);
	if (!strcmp(key, "api"))
		return opt_string(j, l->g->capture_api, sizeof(l->g->capture_api), &ev->capture_api);
	if (!strcmp(key, "site"))
		return opt_string(j, l->g->capture_site, sizeof(l->g->capture_site), &ev->capture_site);
	return 1;
}

static int key(void *ctx, const char *k, struct ct_jp *j)
{
	struct gl *l = ctx;
	struct ct_gpu_event *ev = &l->g->ev;
	char s[16];
	int err;

	if (!strcmp(k, "kind")) {
		err = ct_jp_string(j, s, sizeof(s));
		l->gpu = !strcmp(s, "gpu");
		return err;
	}
	if (!strcmp(k, "ts_ns"))
		return l->has_ts = true, ct_jp_u64(j, &ev->ts_ns);
	if (!strcmp(k, "end_ns"))
		return l->has_end = true, ct_jp_u64(j, &l->end);
	if (!strcmp(k, "op")) {
		err = ct_jp_string(j, s, sizeof(s));
		ev->kind = !strcmp(s, "kernel") ? CT_GPU_KERNEL : !strcmp(s, "memcpy") ? CT_GPU_MEMCPY :
			   !strcmp(s, "memset") ? CT_GPU_MEMSET : 0;
		return err;
	}
	if (!strcmp(k, "pid"))
		return ct_jp_u32(j, &ev->pid);
	if (!strcmp(k, "device"))
		return ct_jp_u32(j, &ev->device);
	if (!strcmp(k, "gpu_uuid"))
		return ct_replay_gpu_text(j, l->g->gpu.uuid, sizeof(l->g->gpu.uuid), true);
	if (!strcmp(k, "gpu_bus"))
		return ct_replay_gpu_text(j, l->g->gpu.bus, sizeof(l->g->gpu.bus), false);
	if (!strcmp(k, "context"))
		return ct_jp_u32(j, &ev->context);
	if (!strcmp(k, "stream"))
		return ct_jp_u32(j, &ev->stream);
	if (!strcmp(k, "name"))
		return opt_string(j, l->g->name, sizeof(l->g->name), &ev->name);
	if ((!strcmp(k, "grid") || !strcmp(k, "block")) && ct_jp_peek(j) == '[') {
		l->dim = k[0] == 'g' ? ev->grid : ev->block;
		return ct_jp_array(j, dim_elem, l);
	}
	if (!strcmp(k, "shared_bytes"))
		return ct_jp_u32(j, &ev->shared_bytes);
	if (!strcmp(k, "bytes"))
		return ct_jp_u64(j, &ev->bytes);
	if (!strcmp(k, "value"))
		return ct_jp_u32(j, &ev->set_value);
	if (!strcmp(k, "copy_kind"))
		return opt_string(j, l->g->copy_kind, sizeof(l->g->copy_kind), &ev->copy_kind);
	if (!strcmp(k, "src_kind"))
		return opt_string(j, l->g->src_kind, sizeof(l->g->src_kind), &ev->src_kind);
	if (!strcmp(k, "dst_kind"))
		return opt_string(j, l->g->dst_kind, sizeof(l->g->dst_kind), &ev->dst_kind);
	if (!strcmp(k, "correlation") && ct_jp_peek(j) == '{')
		return ct_jp_object(j, corr_key, l);
	if (!strcmp(k, "graph_id"))
		return ct_jp_u32(j, &ev->graph_id);
	if (!strcmp(k, "graph_node"))
		return ct_jp_u64(j, &ev->graph_node);
	if (!strcmp(k, "captured_by") && ct_jp_peek(j) == '{')
		return ct_jp_object(j, capture_key, l);
	return 1;
}

int ct_gpuline_read(struct ct_gpuline *g, const char *line, size_t len, int64_t wall_offset_ns)
{
	struct ct_jp j = { line, line + len };
	struct gl l = { .g = g };

	/* Only a line that says it is GPU activity is read whole. */
	if (!memmem(line, len, "\"kind\":\"gpu\"", 12))
		return 0;
	memset(&g->ev, 0, sizeof(g->ev));
	memset(&g->gpu, 0, sizeof(g->gpu));
	if (ct_jp_object(&j, key, &l) || !ct_jp_at_end(&j))
		return l.gpu ? -EINVAL : 0;
	if (!l.gpu)
		return 0;
	if (!l.has_ts || !g->ev.kind)
		return -EINVAL;
	g->ev.dur_ns = l.has_end && l.end > g->ev.ts_ns ? l.end - g->ev.ts_ns : 0;
	g->ev.mono_ns = g->ev.ts_ns - (uint64_t)wall_offset_ns;
	if (g->ev.has_launch) {
		g->ev.launch_api = g->launch_api;
		g->ev.launch_mono_ns = g->ev.launch_ts_ns - (uint64_t)wall_offset_ns;
	}
	if (g->ev.has_capture)
		g->ev.capture_mono_ns = g->ev.capture_ts_ns - (uint64_t)wall_offset_ns;
	return 1;
}

struct rl {
	struct ct_rangeline *r;
	bool range, has_ts, has_end;
};

static int range_key(void *ctx, const char *k, struct ct_jp *j)
{
	struct rl *l = ctx;
	char s[16];
	int err;

	if (!strcmp(k, "kind")) {
		err = ct_jp_string(j, s, sizeof(s));
		l->range = !strcmp(s, "range");
		return err;
	}
	if (!strcmp(k, "pid"))
		return ct_jp_u32(j, &l->r->pid);
	if (!strcmp(k, "ts_ns"))
		return l->has_ts = true, ct_jp_u64(j, &l->r->start);
	if (!strcmp(k, "end_ns"))
		return l->has_end = true, ct_jp_u64(j, &l->r->end);
	if (!strcmp(k, "name"))
		return ct_jp_null(j) ? 0 : ct_jp_string(j, l->r->name, sizeof(l->r->name));
	return 1;
}

int ct_rangeline_read(struct ct_rangeline *r, const char *line, size_t len)
{
	struct ct_jp j = { line, line + len };
	struct rl l = { .r = r };

	if (!memmem(line, len, "\"kind\":\"range\"", 14))
		return 0;
	memset(r, 0, offsetof(struct ct_rangeline, name));
	r->name[0] = 0;
	if (ct_jp_object(&j, range_key, &l) || !ct_jp_at_end(&j))
		return l.range ? -EINVAL : 0;
	if (!l.range)
		return 0;
	return l.has_ts && l.has_end ? 1 : -EINVAL;
}
