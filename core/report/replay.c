// SPDX-License-Identifier: MIT
/*
 * Recorded lines back into events. Each value is read by its argument's
 * kind, the inverse of ct_json_field_w() (sinks/format.c): numbers, "0x"
 * strings for flags, pointers and handles (or the name a kernel or handle
 * had), enum names looked up in the argument's own table, dim3 and sizes
 * as arrays, null for a value that could not be read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "decode/decode.h"
#include "decode/nvgpus.h"
#include "report/json.h"
#include "report/replay.h"
#include "symbols/symbolizer.h"
#include "util/log.h"

/* FNV-1a: the key a symbol is filed under; a hit is checked with strcmp. */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static int index_plugin(struct ct_replay *r, int i)
{
	const struct ct_plugin *p = r->plugins[i].p;

	for (size_t k = 0; k < p->n_apis; k++) {
		uint64_t h = name_hash(p->apis[k].symbol);

		if (ct_u64map_get(&r->by_name[i], h))
			continue; /* two symbols, one hash: api_find() looks them up one by one */
		if (ct_u64map_put(&r->by_name[i], h, (void *)(uintptr_t)(k + 1)))
			return -ENOMEM;
	}
	return 0;
}

static const struct ct_api *api_find(const struct ct_replay *r, int pi, const char *sym, uint32_t *idx)
{
	const struct ct_plugin *p = r->plugins[pi].p;
	uintptr_t v = (uintptr_t)ct_u64map_get(&r->by_name[pi], name_hash(sym));

	if (v && !strcmp(p->apis[v - 1].symbol, sym)) {
		*idx = (uint32_t)(v - 1);
		return &p->apis[v - 1];
	}
	for (size_t k = 0; v && k < p->n_apis; k++) {
		if (!strcmp(p->apis[k].symbol, sym)) {
			*idx = (uint32_t)k;
			return &p->apis[k];
		}
	}
	return NULL;
}

static int plugin_add(struct ct_replay *r, const char *name_or_path)
{
	int err;

	if (r->n_plugins == CT_MAX_PLUGINS) {
		ct_err("report: the trace names more than %d plugins", CT_MAX_PLUGINS);
		return -E2BIG;
	}
	err = ct_plugin_load_once(name_or_path, r->dirs, r->plugins, r->n_plugins);
	if (err <= 0)
		return err;
	r->n_plugins++;
	return index_plugin(r, r->n_plugins - 1);
}

int ct_replay_init(struct ct_replay *r, const char *plugin_path, const struct ct_list *preload,
		   int64_t wall_offset_ns)
{
	memset(r, 0, sizeof(*r));
	r->wall_offset_ns = wall_offset_ns;
	r->dirs = ct_plugin_dirs(plugin_path);
	if (!r->dirs)
		return -ENOMEM;
	for (size_t i = 0; preload && i < preload->n; i++) {
		int err = plugin_add(r, preload->v[i]);

		if (err)
			return err;
	}
	return 0;
}

/* The loaded plugin of this name; loaded now if it is not yet. */
static int plugin_of(struct ct_replay *r, const char *name, const char *path, long lineno)
{
	int err;

	for (int i = 0; i < r->n_plugins; i++)
		if (!strcmp(r->plugins[i].p->name, name))
			return i;
	if (strchr(name, '/') || !*name) {
		ct_err("report: %s:%ld: \"%s\" is not a plugin name", path, lineno, name);
		return -EINVAL;
	}
	err = plugin_add(r, name);
	if (err) {
		ct_err("report: %s:%ld: the trace has calls of plugin '%s', which cannot be loaded "
		       "(above): its API table is needed to read them (-P PATH loads it from a file, "
		       "--plugin-path DIRS says where to look)", path, lineno, name);
		return err;
	}
	if (strcmp(r->plugins[r->n_plugins - 1].p->name, name)) {
		ct_err("report: plugin file for '%s' calls itself '%s'", name, r->plugins[r->n_plugins - 1].p->name);
		return -EINVAL;
	}
	return r->n_plugins - 1;
}

/* A string of the line into the arena, which has room for the whole line. */
static int arena_str(struct ct_replay *r, struct ct_jp *j, const char **out)
{
	char *s = r->arena + r->arena_len;
	size_t len;

	if (ct_jp_string_len(j, s, r->arena_cap - r->arena_len, &len))
		return -EINVAL;
	r->arena_len += len + 1;
	*out = s;
	return 0;
}

static int hex_str(struct ct_jp *j, uint64_t *v, bool *is_hex, char *text, size_t cap)
{
	char *end;

	if (ct_jp_string(j, text, cap))
		return -EINVAL;
	*is_hex = text[0] == '0' && text[1] == 'x' && text[2];
	if (*is_hex) {
		errno = 0;
		*v = strtoull(text + 2, &end, 16);
		*is_hex = !errno && !*end;
	}
	return 0;
}

struct dims {
	struct ct_field *f;
	unsigned max;
};

static int dim_elem(void *ctx, size_t i, struct ct_jp *j)
{
	struct dims *d = ctx;

	if (i >= d->max)
		return -EINVAL;
	d->f->n3 = (uint8_t)(i + 1);
	return ct_jp_u64(j, &d->f->v3[i]);
}

static const char *enum_by_name(const struct ct_enum *e, const char *name, int64_t *v)
{
	for (size_t i = 0; e && e->v && i < e->n; i++) {
		if (e->v[i].name && !strcmp(e->v[i].name, name)) {
			*v = e->v[i].value;
			return e->v[i].name;
		}
	}
	return NULL;
}

/* One argument's value, by its kind. */
static int field_value(struct ct_replay *r, struct ct_field *f, struct ct_jp *j)
{
	const struct ct_arg *a = f->arg;
	char c = ct_jp_peek(j);
	bool is_hex;
	int64_t i;
	double d;

	if (ct_jp_null(j))
		return 0; /* valid stays false: the read failed live */
	f->valid = true;
	switch (a->kind) {
	case CT_ARG_INT:
		if (ct_jp_i64(j, &i))
			return -EINVAL;
		f->v = (uint64_t)i;
		return 0;
	case CT_ARG_UINT:
	case CT_ARG_SIZE:
		return ct_jp_u64(j, &f->v);
	case CT_ARG_DIM3:
	case CT_ARG_SIZES3: {
		struct dims dm = { f, 3 };

		return ct_jp_array(j, dim_elem, &dm);
	}
	case CT_ARG_STRING:
		return arena_str(r, j, &f->str);
	case CT_ARG_FLOAT: {
		float fl;
		uint32_t bits;

		if (ct_jp_double(j, &d))
			return -EINVAL;
		fl = (float)d;
		memcpy(&bits, &fl, sizeof(bits));
		f->v = bits;
		return 0;
	}
	case CT_ARG_ENUM:
		if (c != '"') {
			if (ct_jp_i64(j, &i))
				return -EINVAL;
			f->v = (uint64_t)i;
			f->enum_name = ct_enum_name(a->names, i);
			return 0;
		}
		if (arena_str(r, j, &f->enum_name))
			return -EINVAL;
		/* The table's own name, as the decoder gives it; a name it does
		 * not have (another version's) stays as the trace wrote it. */
		if (enum_by_name(a->names, f->enum_name, &i)) {
			f->enum_name = enum_by_name(a->names, f->enum_name, &i);
			f->v = (uint64_t)i;
		}
		return 0;
	default: { /* HEX, PTR, HANDLE: "0x..", or a kernel's or handle's name */
		const char *s;

		if (c != '"')
			return ct_jp_u64(j, &f->v);
		if (arena_str(r, j, &s))
			return -EINVAL;
		is_hex = s[0] == '0' && s[1] == 'x' && s[2];
		if (is_hex) {
			char *end;

			errno = 0;
			f->v = strtoull(s + 2, &end, 16);
			is_hex = !errno && !*end;
		}
		if (!is_hex) {
			f->v = 0;
			f->str = s;
		}
		return 0;
	}
	}
}

struct args_ctx {
	struct ct_replay *r;
	const struct ct_api *api;
};

static int arg_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct args_ctx *a = ctx;
	struct ct_event *ev = &a->r->ev;

	for (int k = 0; k < ev->n_fields; k++)
		if (!strcmp(a->api->args[k].name, key))
			return field_value(a->r, &ev->fields[k], j);
	return 1; /* an argument this version's table does not have */
}

/*
 * A frame of the "stack" array (docs/events.md, "Stack frames"), as
 * ct_stack_json_w() wrote it: "[unknown]" for a name that was missing,
 * "[truncated]" or a `why` for a last frame that says why the stack ends.
 */
static int frame_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct ct_replay *r = ctx;
	struct ct_frame_info *f = &r->frames[r->n_frames];
	const char **str = NULL;
	uint64_t *num = NULL;
	bool is_hex;
	char hex[32];

	if (!strcmp(key, "function"))
		str = &f->function;
	else if (!strcmp(key, "module"))
		str = &f->module;
	else if (!strcmp(key, "py_function"))
		str = &f->py_function, f->kind = CT_FRAME_PYTHON;
	else if (!strcmp(key, "py_file"))
		str = &f->py_file, f->kind = CT_FRAME_PYTHON;
	else if (!strcmp(key, "py_line"))
		return f->kind = CT_FRAME_PYTHON, ct_jp_u32(j, &f->py_line);
	else if (!strcmp(key, "file"))
		str = &f->src_file;
	else if (!strcmp(key, "line"))
		return ct_jp_u32(j, &f->src_line);
	else if (!strcmp(key, "why"))
		return f->kind = CT_FRAME_UNWOUND, ct_jp_skip(j);
	else if (!strcmp(key, "offset"))
		num = &f->offset;
	else if (!strcmp(key, "addr"))
		num = &f->addr;
	if (num)
		return hex_str(j, num, &is_hex, hex, sizeof(hex)) || !is_hex ? -EINVAL : 0;
	if (!str)
		return 1;
	if (arena_str(r, j, str))
		return -EINVAL;
	if (!strcmp(*str, "[unknown]"))
		*str = NULL;
	else if (str == &f->function && !strcmp(*str, "[truncated]"))
		f->kind = CT_FRAME_TRUNCATED;
	return 0;
}

static int stack_elem(void *ctx, size_t i, struct ct_jp *j)
{
	struct ct_replay *r = ctx;

	(void)i;
	if (r->n_frames == r->frames_cap) {
		uint32_t cap = r->frames_cap ? 2 * r->frames_cap : 64;
		struct ct_frame_info *v = realloc(r->frames, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->frames = v;
		r->frames_cap = cap;
	}
	r->frames[r->n_frames] = (struct ct_frame_info){ .kind = CT_FRAME_NATIVE };
	if (ct_jp_object(j, frame_key, r))
		return -EINVAL;
	r->n_frames++;
	return 0;
}

/* A frame of "py_stack" (docs/stacks-python.md). */
static int py_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct ct_replay *r = ctx;
	struct ct_py_frame_info *f = &r->py->f[r->py->n];

	if (!strcmp(key, "function"))
		return arena_str(r, j, &f->function);
	if (!strcmp(key, "file"))
		return arena_str(r, j, &f->file);
	if (!strcmp(key, "line"))
		return ct_jp_i32(j, &f->line);
	if (!strcmp(key, "why"))
		return arena_str(r, j, &f->why);
	return 1;
}

static int py_elem(void *ctx, size_t i, struct ct_jp *j)
{
	struct ct_replay *r = ctx;

	(void)i;
	if (!r->py || r->py->n == r->py_cap) {
		uint32_t cap = r->py_cap ? 2 * r->py_cap : 32;
		struct ct_py_frames *v = realloc(r->py, sizeof(*v) + cap * sizeof(v->f[0]));

		if (!v)
			return -ENOMEM;
		if (!r->py)
			v->n = 0;
		r->py = v;
		r->py_cap = cap;
	}
	r->py->f[r->py->n] = (struct ct_py_frame_info){ "?", "?", 0, NULL };
	if (ct_jp_object(j, py_key, r))
		return -EINVAL;
	r->py->n++;
	return 0;
}

/* One name of a call's `nvtx` list; past the 64 a thread keeps, skipped. */
static int nvtx_elem(void *ctx, size_t i, struct ct_jp *j)
{
	struct ct_replay *r = ctx;

	(void)i;
	if (r->ev.n_nvtx >= sizeof(r->nvtx) / sizeof(r->nvtx[0]))
		return ct_jp_skip(j);
	return arena_str(r, j, &r->nvtx[r->ev.n_nvtx++]);
}

/* What the top level of a line says, before its API is known. */
struct line {
	struct ct_replay *r;
	char plugin[32], api[128];
	bool has_kind, has_ts, has_env, has_comm_info, has_stack, has_py_stack, py_truncated;
	char kind[16];
	bool has_depth; /* NVTX lines: a push/pop range */
	const char *args_from, *args_to;
	char result_name[96];
	bool result_named;
	struct ct_gpu_info gpu; /* uuid[0]: the line names none */
};

/* "device_from"'s value: one of ct_device_from_name()'s; a name this
 * version does not know says nothing. */
static int device_from(struct ct_jp *j, enum ct_device_from *out)
{
	char name[32];

	if (ct_jp_string(j, name, sizeof(name)))
		return -EINVAL;
	for (int f = CT_DEVICE_FROM_CALL; ct_device_from_name((enum ct_device_from)f); f++)
		if (!strcmp(name, ct_device_from_name((enum ct_device_from)f)))
			return *out = (enum ct_device_from)f, 0;
	return 0;
}

int ct_replay_gpu_text(struct ct_jp *j, char *out, size_t cap, bool uuid)
{
	size_t n;

	if (ct_jp_string_len(j, out, cap, &n) || n >= cap)
		return -EINVAL;
	return (uuid ? ct_nvgpu_uuid_valid(out, n) : ct_nvgpu_bus_valid(out, n, cap)) ? 0 : -EINVAL;
}

const struct ct_gpu_info *ct_replay_gpu(struct ct_replay *r, const struct ct_gpu_info *g)
{
	size_t cap = sizeof(r->gpus) / sizeof(r->gpus[0]);

	for (size_t i = 0; i < r->n_gpus; i++) {
		if (strcmp(r->gpus[i].uuid, g->uuid))
			continue;
		if (!r->gpus[i].bus[0])
			memcpy(r->gpus[i].bus, g->bus, sizeof(g->bus));
		return &r->gpus[i];
	}
	if (r->n_gpus == cap)
		return NULL;
	r->gpus[r->n_gpus] = *g;
	r->gpus[r->n_gpus].minor = (int32_t)r->n_gpus;
	return &r->gpus[r->n_gpus++];
}

static int comm_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct ct_comm_info *c = ctx;
	uint64_t v;
	bool is_hex;
	char hex[32];

	if (!strcmp(key, "rank"))
		return ct_jp_i32(j, &c->rank);
	if (!strcmp(key, "nranks"))
		return ct_jp_i32(j, &c->nranks);
	if (!strcmp(key, "seq"))
		return ct_jp_u64(j, &c->seq);
	if (!strcmp(key, "id")) {
		if (hex_str(j, &v, &is_hex, hex, sizeof(hex)) || !is_hex)
			return -EINVAL;
		c->id = v;
		return 0;
	}
	return 1;
}

int ct_replay_comm(struct ct_jp *j, struct ct_comm_info *c)
{
	*c = (struct ct_comm_info){ -1, -1, 0, 0 };
	return ct_jp_object(j, comm_key, c);
}

static int parent_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct ct_replay *r = ctx;

	if (!strcmp(key, "plugin"))
		return ct_jp_string(j, r->parent_plugin, sizeof(r->parent_plugin));
	if (!strcmp(key, "api"))
		return ct_jp_string(j, r->parent_api, sizeof(r->parent_api));
	return 1;
}

static int line_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct line *l = ctx;
	struct ct_replay *r = l->r;
	struct ct_event *ev = &r->ev;
	bool is_hex;
	char hex[32];

	switch (key[0]) {
	case 'a':
		if (!strcmp(key, "api"))
			return ct_jp_string(j, l->api, sizeof(l->api));
		if (!strcmp(key, "args")) {
			l->args_from = j->p;
			if (ct_jp_skip(j))
				return -EINVAL;
			l->args_to = j->p;
			return 0;
		}
		break;
	case 'c':
		if (!strcmp(key, "comm"))
			return ct_jp_string(j, r->comm_text, sizeof(r->comm_text));
		if (!strcmp(key, "communicator"))
			return l->has_comm_info = true, ct_replay_comm(j, &r->comm);
		break;
	case 'd':
		if (!strcmp(key, "dur_ns"))
			return ct_jp_u64(j, &ev->dur_ns);
		if (!strcmp(key, "depth"))
			return l->has_depth = true, ct_jp_u32(j, &ev->depth);
		if (!strcmp(key, "domain"))
			return ct_jp_null(j) ? 0 : arena_str(r, j, &r->nvtx_ev.domain);
		if (!strcmp(key, "device")) /* null: not known yet on that thread */
			return ct_jp_null(j) ? (ev->device = -1, 0) : ct_jp_i32(j, &ev->device);
		if (!strcmp(key, "device_from"))
			return device_from(j, &ev->device_from);
		break;
	case 'e':
		if (!strcmp(key, "error"))
			return ct_jp_bool(j, &ev->is_error);
		if (!strcmp(key, "entry_only"))
			return ct_jp_bool(j, &ev->entry_only);
		if (!strcmp(key, "end_ns"))
			return ct_jp_u64(j, &r->nvtx_ev.end_ns);
		break;
	case 'g':
		if (!strcmp(key, "gpu_uuid"))
			return ct_replay_gpu_text(j, l->gpu.uuid, sizeof(l->gpu.uuid), true);
		if (!strcmp(key, "gpu_bus"))
			return ct_replay_gpu_text(j, l->gpu.bus, sizeof(l->gpu.bus), false);
		break;
	case 'h':
		if (!strcmp(key, "host"))
			return l->has_env = true, 1;
		break;
	case 'j':
		if (!strcmp(key, "job_id"))
			return ct_jp_string(j, r->env.job_id, sizeof(r->env.job_id));
		break;
	case 'k':
		if (!strcmp(key, "kind"))
			return l->has_kind = true, ct_jp_string(j, l->kind, sizeof(l->kind));
		break;
	case 'l':
		if (!strcmp(key, "local_rank"))
			return ct_jp_i32(j, &r->env.local_rank);
		break;
	case 'n':
		if (!strcmp(key, "name"))
			return arena_str(r, j, &r->nvtx_ev.name);
		if (!strcmp(key, "nvtx"))
			return ev->n_nvtx = 0, ct_jp_array(j, nvtx_elem, r);
		break;
	case 'o':
		if (!strcmp(key, "open"))
			return ct_jp_bool(j, &r->nvtx_ev.open);
		break;
	case 'p':
		if (!strcmp(key, "plugin"))
			return ct_jp_string(j, l->plugin, sizeof(l->plugin));
		if (!strcmp(key, "pid"))
			return ct_jp_u32(j, &ev->pid);
		if (!strcmp(key, "parent"))
			return ct_jp_object(j, parent_key, r);
		if (!strcmp(key, "py_stack")) {
			if (r->py)
				r->py->n = 0;
			return l->has_py_stack = true, ct_jp_array(j, py_elem, r);
		}
		if (!strcmp(key, "py_stack_truncated"))
			return ct_jp_bool(j, &l->py_truncated);
		break;
	case 's':
		if (!strcmp(key, "stack"))
			return l->has_stack = true, r->n_frames = 0, ct_jp_array(j, stack_elem, r);
		break;
	case 'r':
		if (!strcmp(key, "result"))
			return ev->has_result = true, ct_jp_i64(j, &ev->result);
		if (!strcmp(key, "result_name")) {
			if (ct_jp_null(j))
				return 0;
			l->result_named = true;
			return ct_jp_string(j, l->result_name, sizeof(l->result_name));
		}
		if (!strcmp(key, "ret")) {
			if (hex_str(j, &ev->ret_handle, &is_hex, hex, sizeof(hex)) || !is_hex)
				return -EINVAL;
			ev->has_ret_handle = true;
			return 0;
		}
		if (!strcmp(key, "rank"))
			return ct_jp_i32(j, &r->env.rank);
		break;
	case 't':
		if (!strcmp(key, "ts_ns"))
			return l->has_ts = true, ct_jp_u64(j, &ev->ts_ns);
		if (!strcmp(key, "tid"))
			return ct_jp_u32(j, &ev->tid);
		break;
	case 'w':
		if (!strcmp(key, "world_size"))
			return ct_jp_i32(j, &r->env.world_size);
		break;
	}
	return 1; /* a key this reader does not need (bytes: computed again) */
}

static void reset(struct ct_replay *r)
{
	memset(&r->ev, 0, sizeof(r->ev));
	r->ev.device = -1; /* a trace from before devices were tracked */
	r->comm = (struct ct_comm_info){ -1, -1, 0, 0 };
	r->env = (struct ct_proc_env){ -1, -1, -1, "" };
	r->comm_text[0] = r->parent_plugin[0] = r->parent_api[0] = 0;
	r->arena_len = 0;
	r->nvtx_ev = (struct ct_nvtx_event){ .name = "" };
}

static int skip_api(struct ct_replay *r, const struct line *l)
{
	struct ct_replay_skip *s;

	r->skipped++;
	for (size_t i = 0; i < r->n_skips; i++)
		if (!strcmp(r->skips[i].plugin, l->plugin) && !strcmp(r->skips[i].api, l->api))
			return r->skips[i].n++, 1;
	s = realloc(r->skips, (r->n_skips + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	r->skips = s;
	s = &s[r->n_skips++];
	snprintf(s->plugin, sizeof(s->plugin), "%s", l->plugin);
	snprintf(s->api, sizeof(s->api), "%s", l->api);
	s->n = 1;
	return 1;
}

/* A range or mark line (docs/events.md) as the tracer handed it to the sinks. */
static int nvtx_line(struct ct_replay *r, const struct line *l)
{
	struct ct_nvtx_event *n = &r->nvtx_ev;

	n->mark = !strcmp(l->kind, "mark");
	n->pid = r->ev.pid;
	n->tid = r->ev.tid;
	n->ts_ns = r->ev.ts_ns;
	n->mono_ns = n->ts_ns - (uint64_t)r->wall_offset_ns;
	if (n->mark || n->end_ns < n->ts_ns)
		n->end_ns = n->ts_ns;
	n->end_mono_ns = n->end_ns - (uint64_t)r->wall_offset_ns;
	n->depth = l->has_depth && !n->mark ? (int32_t)r->ev.depth : -1;
	return CT_REPLAY_NVTX;
}

int ct_replay_line(struct ct_replay *r, const char *text, size_t len, const char *path, long lineno)
{
	struct line l = { .r = r };
	struct ct_jp j = { text, text + len };
	struct ct_event *ev = &r->ev;
	struct args_ctx ac;
	int pi, err;

	reset(r);
	if (r->arena_cap < len + 1) {
		char *a = realloc(r->arena, len + 1);

		if (!a)
			return -ENOMEM;
		r->arena = a;
		r->arena_cap = len + 1;
	}
	err = ct_jp_object(&j, line_key, &l);
	if (!err && !ct_jp_at_end(&j))
		err = -EINVAL;
	if (err == -ENOMEM)
		return err;
	if (err) {
		ct_err("report: %s:%ld: not a whole JSON object of the jsonl schema: the trace is damaged",
		       path, lineno);
		return -EINVAL;
	}
	if (l.has_ts && (!strcmp(l.kind, "range") || !strcmp(l.kind, "mark")))
		return nvtx_line(r, &l);
	if (l.has_kind || !l.has_ts) {
		r->other_kinds++; /* a meta line again, or a kind of line this version does not know */
		return 1;
	}
	pi = plugin_of(r, l.plugin, path, lineno);
	if (pi < 0)
		return pi;
	ev->plugin = r->plugins[pi].p;
	ev->api = api_find(r, pi, l.api, &ev->api_idx);
	if (!ev->api)
		return skip_api(r, &l);
	ev->mono_ns = ev->ts_ns - (uint64_t)r->wall_offset_ns;
	ev->comm = r->comm_text;
	ev->n_fields = (uint8_t)(ev->api->n_args < CT_MAX_ARGS ? ev->api->n_args : CT_MAX_ARGS);
	for (int k = 0; k < ev->n_fields; k++)
		ev->fields[k].arg = &ev->api->args[k];
	if (l.args_from) {
		struct ct_jp a = { l.args_from, l.args_to };

		ac = (struct args_ctx){ r, ev->api };
		if (ct_jp_object(&a, arg_key, &ac)) {
			ct_err("report: %s:%ld: %s's arguments do not read as the plugin's table says "
			       "(a trace of another version of plugin %s?)", path, lineno, l.api, l.plugin);
			return -EINVAL;
		}
	}
	if (ev->has_result) {
		ev->result_name = ct_enum_name(ev->plugin->errors, ev->result);
		if (l.result_named && (!ev->result_name || strcmp(ev->result_name, l.result_name))) {
			char *s = r->arena + r->arena_len;

			snprintf(s, r->arena_cap - r->arena_len, "%s", l.result_name);
			r->arena_len += strlen(s) + 1;
			ev->result_name = s;
		}
	}
	if (r->parent_api[0]) {
		ev->parent_plugin = r->parent_plugin;
		ev->parent_api = r->parent_api;
	}
	if (l.gpu.uuid[0])
		ev->gpu = ct_replay_gpu(r, &l.gpu);
	if (l.has_comm_info)
		ev->comm_info = &r->comm;
	if (l.has_env)
		ev->env = &r->env;
	if (l.has_stack) {
		r->stack = (struct ct_callstack){ r->frames, r->n_frames, ct_sym_site(r->frames, r->n_frames) };
		ev->stack = &r->stack;
	}
	if (ev->n_nvtx)
		ev->nvtx = r->nvtx;
	if (l.has_py_stack && r->py) {
		r->py->truncated = l.py_truncated;
		ev->py_stack = r->py;
	}
	return 0;
}

void ct_replay_free(struct ct_replay *r)
{
	for (int i = r->n_plugins - 1; i >= 0; i--) {
		ct_u64map_free(&r->by_name[i]);
		ct_plugin_unload(&r->plugins[i]);
	}
	if (r->dirs)
		ct_plugin_dirs_free(r->dirs);
	free(r->arena);
	free(r->frames);
	free(r->py);
	free(r->skips);
	memset(r, 0, sizeof(*r));
}
