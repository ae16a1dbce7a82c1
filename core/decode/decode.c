// SPDX-License-Identifier: MIT
/*
 * The table-driven decoder: a record plus the API's row in the plugin's table
 * make an event. Every read is bounds-checked against the record, so a
 * broken table or a hostile record yields invalid fields, never a crash.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include "decode/decode.h"
#include "symbols/symbolizer.h"
#include "decode/comms.h"
#include "decode/names.h"
#include "decode/cgroup.h"
#include "decode/procenv.h"
#include "symbols/python.h"

const char *ct_enum_name(const struct ct_enum *e, int64_t v)
{
	size_t lo = 0, hi;

	if (!e || !e->v)
		return NULL;
	/* Tables start with their small values (success is 0): dense ones are
	 * indexed directly. */
	if (v >= 0 && (uint64_t)v < e->n && e->v[v].value == v)
		return e->v[v].name;
	hi = e->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->v[mid].value == v)
			return e->v[mid].name;
		if (e->v[mid].value < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The BPF side always ends comm and str with a NUL, but a broken record may
 * not, and sinks print them with %s: such a string is cut, in a copy that
 * lives as long as the event (until the next call on this thread).
 */
static __thread char comm_copy[CT_COMM_LEN], str_copy[CT_REC_STR];

static const char *bounded(const char *s, size_t n, char *copy)
{
	/* The last byte first: comm is NUL-padded to its end, so most strings
	 * need no search. */
	if (!s[n - 1] || memchr(s, 0, n - 1))
		return s;
	memcpy(copy, s, n - 1);
	copy[n - 1] = 0;
	return copy;
}

/* Where each area lies in a record, indexed by enum ct_area (0: none). */
static const struct {
	uint16_t off, len;
} areas[] = {
	[CT_AREA_ARGS] = { offsetof(struct ct_record, args), sizeof(((struct ct_record *)0)->args) },
	[CT_AREA_MEM] = { offsetof(struct ct_record, mem), sizeof(((struct ct_record *)0)->mem) },
	[CT_AREA_STR] = { offsetof(struct ct_record, str), sizeof(((struct ct_record *)0)->str) },
	[CT_AREA_RET] = { offsetof(struct ct_record, ret), sizeof(((struct ct_record *)0)->ret) },
};

/* Inline: a field is a load or three, and each call site knows its size. */
static inline bool load(const struct ct_record *r, uint8_t area, size_t off, size_t size, uint64_t *v)
{
	const uint8_t *base;

	*v = 0;
	if (area >= sizeof(areas) / sizeof(areas[0]) || off + size > areas[area].len)
		return false;
	base = (const uint8_t *)r + areas[area].off;
	/* Constant-size copies compile to single loads (little-endian: low bytes first). */
	switch (size) {
	case 8: memcpy(v, base + off, 8); return true;
	case 4: { uint32_t x; memcpy(&x, base + off, 4); *v = x; return true; }
	case 2: { uint16_t x; memcpy(&x, base + off, 2); *v = x; return true; }
	case 1: *v = base[off]; return true;
	}
	return false;
}

/*
 * Whether the mem word at byte `off` holds what a read copied: the read that
 * fills it had a non-NULL pointer (a NULL out-parameter or an optional array
 * left out, like clEnqueueNDRangeKernel's local_work_size, is not a value),
 * and it ran: a record sent at entry (an API made entry-only by
 * tracer.entry_only) has no exit reads, so an out-parameter is unknown;
 * or the plugin's BPF hook wrote it.
 */
static bool mem_was_read(const struct ct_api *api, const struct ct_record *r, size_t off)
{
	size_t w = off / 8;

	if (w < CT_REC_MEM && (r->flags & CT_REC_HOOK_MEM(w)))
		return true;

	for (size_t i = 0; i < api->n_reads; i++) {
		const struct ct_read *rd = &api->reads[i];

		if (w < rd->dst || w >= (size_t)rd->dst + rd->words)
			continue;
		if (rd->phase == CT_AT_EXIT && (r->flags & CT_REC_ENTRY_ONLY))
			return false;
		return rd->slot < CT_REC_ARGS && r->args[rd->slot] != 0;
	}
	return false;
}

static void decode_field(const struct ct_record *r, const struct ct_api *api, const struct ct_arg *a,
			 const struct ct_event *ev, struct ct_field *f)
{
	memset(f, 0, sizeof(*f));
	f->arg = a;
	switch (a->kind) {
	case CT_ARG_DIM3:
		f->valid = a->area != CT_AREA_MEM || mem_was_read(api, r, a->off);
		f->n3 = 3;
		for (int i = 0; i < 3; i++)
			f->valid &= load(r, a->area, a->off + 4 * i, 4, &f->v3[i]);
		return;
	case CT_ARG_SIZES3: {
		uint64_t n = 3;

		if (a->count_from >= 0 && a->count_from < ev->n_fields)
			n = ev->fields[a->count_from].v;
		f->n3 = n > 3 ? 3 : (uint8_t)n;
		f->valid = a->area != CT_AREA_MEM || mem_was_read(api, r, a->off);
		for (int i = 0; i < f->n3; i++)
			f->valid &= load(r, a->area, a->off + 8 * i, 8, &f->v3[i]);
		return;
	}
	case CT_ARG_STRING:
		f->valid = (r->flags & CT_REC_HAS_STR) != 0;
		f->str = f->valid ? bounded(r->str, sizeof(r->str), str_copy) : NULL;
		return;
	default:
		break;
	}
	f->valid = load(r, a->area, a->off, a->size ? a->size : 8, &f->v);
	if (a->area == CT_AREA_MEM && !mem_was_read(api, r, a->off))
		f->valid = false;
	/* Sent at entry: the call has not returned anything yet. */
	if (a->area == CT_AREA_RET && (r->flags & CT_REC_ENTRY_ONLY))
		f->valid = false;
	/* C enums and error codes (cl_int) are signed. */
	if ((a->kind == CT_ARG_INT || a->kind == CT_ARG_ENUM) && a->size && a->size < 8) {
		unsigned shift = 64 - 8 * a->size;

		f->v = (uint64_t)((int64_t)(f->v << shift) >> shift);
	}
	if (a->kind == CT_ARG_ENUM)
		f->enum_name = ct_enum_name(a->names, (int64_t)f->v);
}

/*
 * Kernel and handle names. A launch's kernel is a host stub address, named
 * from the ELF symbols mapped there (symbols/symbolizer.c), or a handle named when it was
 * created (names.c). A call that creates a handle names it, if it
 * succeeded, from the string it read, else from the named handle it was
 * made from (cuKernelGetFunction), else from the kernel stub it was given
 * (__cudaGetKernel). Communicator roles go to comms.c.
 */
_Static_assert(CT_ROLE_COMM_NEW == CT_ROLE_COMM + 1 && CT_ROLE_COMM_ID == CT_ROLE_COMM + 2 &&
	       CT_ROLE_RANK == CT_ROLE_COMM + 3 && CT_ROLE_NRANKS == CT_ROLE_COMM + 4,
	       "name_handles() files the communicator roles by their order");

static void name_handles(const struct ct_record *r, struct ct_event *ev)
{
	struct ct_comm_fields comm = { 0 };
	struct ct_field *created = NULL;
	const char *from = NULL;
	bool has_comm = false;

	for (int i = 0; i < ev->n_fields; i++) {
		struct ct_field *f = &ev->fields[i];
		uint8_t role = f->arg->role;

		if (role >= CT_ROLE_COMM && role <= CT_ROLE_NRANKS) {
			const struct ct_field **slot[] = { &comm.comm, &comm.created, &comm.id, &comm.rank,
							   &comm.nranks };

			*slot[role - CT_ROLE_COMM] = f;
			has_comm = true;
			continue;
		}
		if (!f->valid || !f->v)
			continue;
		if (role == CT_ROLE_KERNEL && f->arg->kind == CT_ARG_PTR) {
			f->str = ct_sym_lookup(ev->pid, f->v);
			if (!f->str) /* cudaLaunchKernel takes a cudaKernel_t too */
				f->str = ct_names_get(ev->pid, f->v);
		} else if (role == CT_ROLE_KERNEL || role == CT_ROLE_HANDLE_NAMED) {
			f->str = ct_names_get(ev->pid, f->v);
		} else if (role == CT_ROLE_HANDLE_NEW) {
			created = f;
			continue;
		} else {
			continue;
		}
		if (f->str && !from)
			from = f->str;
	}
	if (has_comm)
		ct_comms_note(ev, &comm);
	/* A failed call leaves its out-handle unwritten: it names nothing. */
	if (!created || !ev->has_result || ev->is_error)
		return;
	if (r->flags & CT_REC_HAS_STR)
		from = bounded(r->str, sizeof(r->str), str_copy);
	if (from) {
		ct_names_put(ev->pid, created->v, from);
		created->str = ct_names_get(ev->pid, created->v);
	}
}

static uint64_t strings_unread;

uint64_t ct_decode_strings_unread(void)
{
	return strings_unread;
}

int ct_decode(const struct ct_plugin *p, const struct ct_record *r, int64_t wall_offset_ns,
	      struct ct_event *ev)
{
	uint32_t idx = CT_CALL_API(r->call);
	const struct ct_api *api;

	if (idx >= p->n_apis)
		return -EINVAL;
	api = &p->apis[idx];
	ev->rec = r;
	ev->plugin = p;
	ev->api = api;
	ev->api_idx = idx;
	ev->mono_ns = r->ts_ns;
	ev->ts_ns = r->ts_ns + wall_offset_ns;
	ev->dur_ns = r->dur_ns;
	ev->pid = r->pid;
	ev->tid = r->tid;
	ev->depth = r->depth;
	ev->parent_plugin = ev->parent_api = NULL; /* the session names r->parent */
	ev->comm = bounded(r->comm, sizeof(r->comm), comm_copy);
	/* A call in flight (CT_REC_BEGIN) has no result yet, as one sent at entry. */
	ev->entry_only = (r->flags & (CT_REC_ENTRY_ONLY | CT_REC_BEGIN)) != 0;
	ev->comm_info = NULL;
	ev->env = ct_procenv_get(r->pid);
	/* The in-process engine cannot take the id: its process's cgroup, as
	 * /proc says at the process's first call. */
	ev->cgroup = r->cgroup ? ct_cgroup_get(r->cgroup) : ct_cgroup_of_pid(r->pid);
	ev->py_stack = r->pystack ? ct_py_stack_get(r->pid, r->pystack) : NULL;
	ev->stack = NULL; /* the session's stacks reader names it (capture/stacks.c) */
	ev->nvtx = NULL; /* the session's NVTX ranges say (decode/nvtx.c) */
	ev->n_nvtx = 0;
	ev->device = -1; /* device.c says, for the session */
	ev->device_from = CT_DEVICE_FROM_NONE; /* procgpu.c says where it came from */
	ev->gpu = NULL;
	ev->n_fields = 0;
	/* A string the engine could read neither at entry nor at return. */
	if (api->str_slot < CT_REC_ARGS && r->args[api->str_slot] && !(r->flags & CT_REC_HAS_STR))
		strings_unread++;
	for (size_t i = 0; i < api->n_args && i < CT_MAX_ARGS; i++) {
		decode_field(r, api, &api->args[i], ev, &ev->fields[i]);
		ev->n_fields++;
	}

	ev->has_result = false;
	ev->has_ret_handle = false;
	ev->result = 0;
	ev->result_name = NULL;
	ev->is_error = false;
	if (ev->entry_only) {
		name_handles(r, ev); /* a launch sent at entry names its kernel all the same */
		return 0;
	}
	switch (api->result) {
	case CT_RES_ERROR:
		ev->has_result = true;
		ev->result = (int32_t)r->ret;
		break;
	case CT_RES_HANDLE:
		ev->has_ret_handle = true;
		ev->ret_handle = r->ret;
		if (api->err_arg >= 0 && api->err_arg < ev->n_fields && ev->fields[api->err_arg].valid) {
			ev->has_result = true;
			ev->result = (int32_t)ev->fields[api->err_arg].v;
		} else if (r->ret && !(api->flags & CT_API_GENERATED)) {
			/* A handle and no error pointer: success. A generated row's
			 * return value is only a value: its meaning is not known. */
			ev->has_result = true;
		}
		break;
	default:
		return 0;
	}
	if (ev->has_result) {
		ev->result_name = ct_enum_name(p->errors, ev->result);
		ev->is_error = ev->result != 0;
	}
	name_handles(r, ev);
	return 0;
}

const struct ct_record *ct_record_whole(const void *data, size_t len, struct ct_record *buf)
{
	const size_t str_at = offsetof(struct ct_record, str);

	if (len >= sizeof(*buf))
		return data;
	if (len < CT_REC_HEAD_SIZE)
		return NULL;
	/* Clear all that may be missing, then copy what came. The clear is in
	 * pieces of 64 bytes or less, which GCC makes a few vector stores: a
	 * longer one (or one of the missing tail's size) becomes rep stos, slow
	 * to start for so few bytes. */
	if (len < str_at) {
		memset(&buf->args[0], 0, sizeof(buf->args) / 2);
		memset(&buf->args[CT_REC_ARGS / 2], 0, sizeof(buf->args) / 2);
		memset(buf->mem, 0, sizeof(buf->mem));
	}
	memcpy(buf, data, len);
	if (len < str_at) {
		buf->flags &= ~CT_REC_HAS_STR;
		buf->str[0] = 0;
	}
	return buf;
}

/* Bytes an argument takes in its area. */
static unsigned arg_bytes(const struct ct_arg *g)
{
	switch (g->kind) {
	case CT_ARG_DIM3: return 12;
	case CT_ARG_SIZES3: return 24;
	default: return g->size ? g->size : 8;
	}
}

/* The argument slots and memory words the API's fields and reads use. */
static void record_use(const struct ct_api *a, unsigned *slots_out, unsigned *mem_out)
{
	unsigned slots = 0, mem = 0;

	for (size_t k = 0; k < a->n_args && k < CT_MAX_ARGS; k++) {
		const struct ct_arg *g = &a->args[k];
		unsigned end = (g->off + arg_bytes(g) + 7) / 8;

		if (g->area == CT_AREA_ARGS && end > slots)
			slots = end;
		else if (g->area == CT_AREA_MEM && end > mem)
			mem = end;
	}
	for (size_t r = 0; r < a->n_reads; r++) {
		const struct ct_read *rd = &a->reads[r];

		if (!rd->phase)
			continue;
		/* The decoder checks a read's pointer to tell a value from NULL. */
		if (rd->slot + 1u > slots)
			slots = rd->slot + 1u;
		if (rd->dst + rd->words > mem)
			mem = rd->dst + rd->words;
	}
	if (a->str_slot != CT_NO_STR && a->str_slot + 1u > slots)
		slots = a->str_slot + 1u;
	*slots_out = slots > CT_REC_ARGS ? CT_REC_ARGS : slots;
	*mem_out = mem > CT_REC_MEM ? CT_REC_MEM : mem;
}

/*
 * What the engine sends for an API (the capture side of the decoder's
 * contract): the record's words through the last argument slot or memory
 * word the API's fields and reads use, and the stack words its arguments
 * reach. The rest of a record is never sent (a string goes through its NUL).
 */
uint8_t ct_record_words(const struct ct_api *a, uint8_t *stack_words)
{
	unsigned slots, mem;

	record_use(a, &slots, &mem);
	*stack_words = slots > 6 ? slots - 6 : 0;
	if (mem)
		return (offsetof(struct ct_record, mem) + mem * 8) / 8;
	return (offsetof(struct ct_record, args) + slots * 8) / 8;
}

uint8_t ct_record_arg_slots(const struct ct_api *a)
{
	unsigned slots, mem;

	record_use(a, &slots, &mem);
	return (uint8_t)slots;
}

const char *ct_device_from_name(enum ct_device_from from)
{
	static const char *const names[] = {
		[CT_DEVICE_FROM_CALL] = "call",
		[CT_DEVICE_FROM_VISIBLE] = "visible_devices",
		[CT_DEVICE_FROM_OPEN_GPU] = "open_gpu",
		[CT_DEVICE_FROM_ONLY_GPU] = "only_gpu",
	};

	return (unsigned)from < sizeof(names) / sizeof(names[0]) ? names[from] : NULL;
}

const struct ct_field *ct_event_role(const struct ct_event *ev, enum ct_role role)
{
	for (int i = 0; i < ev->n_fields; i++)
		if (ev->fields[i].arg->role == role)
			return &ev->fields[i];
	return NULL;
}

const char *ct_event_site(const struct ct_event *ev, char *buf, size_t n)
{
	if (ev->py_stack && ev->py_stack->n) {
		const struct ct_py_frame_info *f = &ev->py_stack->f[0];

		snprintf(buf, n, "%s (%s:%" PRId32 ")", f->function ? f->function : "?", f->file ? f->file : "?", f->line);
		return buf;
	}
	if (ev->stack && ev->stack->n) {
		const struct ct_frame_info *f = &ev->stack->frames[0];

		if (f->src_file)
			snprintf(buf, n, "%s (%s:%" PRIu32 ")", f->function ? f->function : "?", f->src_file, f->src_line);
		else
			snprintf(buf, n, "%s (%s)", f->function ? f->function : "?", f->module ? f->module : "?");
		return buf;
	}
	return NULL;
}

/* Bytes of one element of the type an ELEM_TYPE field names; 0 if unknown. */
static uint64_t elem_bytes(const struct ct_field *t)
{
	const struct ct_elem_sizes *z = t && t->valid ? t->arg->elem_sizes : NULL;

	for (size_t i = 0; z && z->v && i < z->n; i++)
		if (z->v[i].value == (int64_t)t->v)
			return z->v[i].bytes;
	return 0;
}

/* The size roles of one event, gathered in one pass. */
struct sizes {
	const struct ct_field *bytes, *height, *depth, *elements, *type, *channels, *levels;
	uint64_t bits;  /* ELEM_BITS, added up */
};

static void sizes_of(const struct ct_event *ev, struct sizes *z)
{
	memset(z, 0, sizeof(*z));
	for (int i = 0; i < ev->n_fields; i++) {
		const struct ct_field *f = &ev->fields[i];
		const struct ct_field **slot = NULL;

		switch (f->arg->role) {
		case CT_ROLE_BYTES: slot = &z->bytes; break;
		case CT_ROLE_HEIGHT: slot = &z->height; break;
		case CT_ROLE_DEPTH: slot = &z->depth; break;
		case CT_ROLE_ELEMENTS: slot = &z->elements; break;
		case CT_ROLE_ELEM_TYPE: slot = &z->type; break;
		case CT_ROLE_CHANNELS: slot = &z->channels; break;
		case CT_ROLE_LEVELS: slot = &z->levels; break;
		case CT_ROLE_ELEM_BITS:
			if (f->valid)
				z->bits += f->v;
			continue;
		default:
			continue;
		}
		if (!*slot)
			*slot = f;
	}
}

/* A dimension's value; `none` when the row has no such argument or it was not read. */
static uint64_t dim(const struct ct_field *f, uint64_t none)
{
	return f && f->valid ? f->v : none;
}

#define CT_MAX_LEVELS 64 /* a 64-bit extent halves to 1 in fewer */

/*
 * An array's elements: width * height * depth, a height or depth of 0
 * counting as 1 (cuArray3DCreate's and cudaMalloc3DArray's 1D and 2D
 * arrays); a mipmapped array's levels added up, each dimension halved at
 * every level down to 1, as many levels as the call asked for or until the
 * last is one element (the runtimes clamp them so).
 */
static uint64_t array_elements(const struct sizes *z)
{
	uint64_t w = dim(z->elements, 0), h = dim(z->height, 1), d = dim(z->depth, 1);
	uint64_t levels = dim(z->levels, 1), n = 0;

	h = h ? h : 1;
	d = d ? d : 1;
	if (levels > CT_MAX_LEVELS)
		levels = CT_MAX_LEVELS;
	for (uint64_t l = 0; l < (levels ? levels : 1); l++) {
		n += w * h * d;
		if (w <= 1 && h <= 1 && d <= 1)
			break;
		w = w > 1 ? w / 2 : w;
		h = h > 1 ? h / 2 : 1;
		d = d > 1 ? d / 2 : 1;
	}
	return n;
}

/*
 * The one place an event's bytes are computed (docs/plugins.md, "Bytes"):
 * BYTES * HEIGHT * DEPTH, each there; else array elements times the bits of
 * one element (ELEM_TYPE's size times CHANNELS, or the ELEM_BITS added up).
 */
uint64_t ct_event_bytes(const struct ct_event *ev)
{
	struct sizes z;

	sizes_of(ev, &z);
	if (z.bytes && z.bytes->valid)
		return z.bytes->v * dim(z.height, 1) * dim(z.depth, 1);
	if (!z.elements || !z.elements->valid)
		return 0;
	if (z.type)
		return array_elements(&z) * elem_bytes(z.type) * dim(z.channels, 1);
	return (array_elements(&z) * z.bits + 7) / 8;
}
