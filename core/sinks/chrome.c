// SPDX-License-Identifier: MIT
/*
 * chrome sink: Chrome Trace Event JSON, as the Perfetto UI and
 * chrome://tracing open it. A track per process and thread (metadata
 * events name them), one complete ("X") event per call with its decoded
 * arguments, an instant ("i") event per entry-only call, and counter ("C")
 * tracks per process and runtime for memory in use and bytes copied. A
 * launch is named by its kernel (the API is in its args); the call's own
 * arguments are in args.call, apart from the sink's keys, so that no
 * argument name (a kernel's `args` pointer) meets one of them. A call made
 * inside another plugin's call gets a flow arrow from that call (the outer
 * call's record comes after the inner one's: the inner waits for it).
 * With --stacks, a call's frames are in args.stack (and its Python frames
 * in args.py_stack), one line per frame, innermost first.
 *
 * Timestamps are CLOCK_MONOTONIC in microseconds (clock = monotonic), the
 * clock of Chrome's own traces and, on a machine that was not suspended,
 * of Perfetto's default (CLOCK_BOOTTIME); or the wall clock (clock = wall)
 * to line up with tools that stamp in UTC.
 *
 * GPU activity (--gpu-activity) goes on a process per device ("GPU 0") with
 * a track per stream, each kernel, copy or set joined to the call that
 * launched it by a flow arrow.
 *
 * It streams: events go to disk in chunks, so memory stays flat however
 * long the run. Each chunk is written together with a closing trailer that
 * the next chunk overwrites, so a regular file is valid JSON between any
 * two writes, even if the tracer is killed; close() writes the final
 * trailer and cuts the file there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "analysis/analysis.h"
#include "sinks/memtrack.h"
#include "sinks/sink.h"
#include "sinks/stackfmt.h"
#include "sinks/sinkio.h"
#include "util/strbuf.h"
#include "plugin/number.h"

#ifndef CT_VERSION
#define CT_VERSION "0"
#endif

#define CHUNK (256 * 1024)     /* bytes formatted before a write */
#define EVENT_MAX (32 * 1024)  /* the most one call can add: its event, names and counters */
#define MAX_KINDS 8            /* copy kinds tracked per counter track */

static const char head[] = "{\"traceEvents\":[\n";
static const char trailer[] = "\n]}\n";

struct copy_kind {
	char *name;
	uint64_t bytes;
};

struct proc_track {
	bool named_by_main; /* process_name came from the main thread's comm */
};

struct copy_track { /* one process, one runtime */
	struct copy_kind k[MAX_KINDS];
	unsigned n;
};

enum chrome_clock { CLOCK_MONO, CLOCK_WALL };

static const char *const clock_words[] = { [CLOCK_MONO] = "monotonic", [CLOCK_WALL] = "wall", NULL };

/* Inner calls of a thread that wait for the outer call they were made in. */
#define PENDING_MAX 64

struct pending {
	uint64_t ts;  /* the inner call's start */
	uint32_t depth;
	char plugin[32], api[96]; /* the outer call it names */
};

struct thread_flows {
	struct pending v[PENDING_MAX];
	unsigned n;
};

struct chrome_ctx {
	struct ct_sink_common c;
	bool args;
	bool counters;
	bool flows;
	enum chrome_clock clock;
	uint64_t flow_id;
	int fd;
	bool seekable;
	off_t pos;        /* where the next chunk goes (seekable files) */
	struct ct_sb b;   /* the chunk being formatted */
	bool open;        /* b is usable: no write has failed */
	bool any;         /* an event was written: the next needs a comma */
	uint64_t events;
	struct ct_u64map procs;  /* pid -> proc_track */
	struct ct_u64map threads; /* tid -> (void *)1 */
	struct ct_u64map waiting; /* tid -> thread_flows, while inner calls wait */
	struct ct_u64map copies; /* pid << 16 | plugin number -> copy_track */
	const struct ct_plugin *plugins[64];
	unsigned n_plugins;
	struct ct_memtrack mem;
	struct ct_u64map gpu_tracks; /* (device, pid, context, stream) -> track number */
	struct ct_u64map gpu_devices; /* device + 1 -> named */
	uint64_t n_gpu_tracks;
	uint64_t nvtx_id; /* the last start/end range's async id */
	int err;          /* first write error; later writes are skipped */
	struct ct_an_sink an; /* steps and idle gaps, marked on two tracks a process */
	struct ct_u64map an_named; /* pid -> its marks' tracks named */
	int64_t wall_off; /* wall - monotonic: the analysis counts on the wall clock */
};

/* A device's process in the trace: past every real pid (at most 2^22). */
#define GPU_PID_BASE 1000000000u

static const struct ct_key chrome_keys[] = {
	{ "args", CT_KEY_BOOL, "true", offsetof(struct chrome_ctx, args),
	  "Put each call's decoded arguments in its event (args.call)" },
	{ "counters", CT_KEY_BOOL, "true", offsetof(struct chrome_ctx, counters),
	  "Counter tracks for memory in use and bytes copied" },
	{ "flows", CT_KEY_BOOL, "true", offsetof(struct chrome_ctx, flows),
	  "Flow arrows from a call to the other plugin's calls made inside it (runtime to driver)" },
	{ "clock", CT_KEY_CHOICE, "monotonic", offsetof(struct chrome_ctx, clock),
	  "Timestamps: monotonic (CLOCK_MONOTONIC, as Chrome and Perfetto) or wall (UTC since the epoch)",
	  clock_words },
	{ 0 },
};

static int write_all(int fd, const char *p, size_t n, off_t *pos)
{
	while (n) {
		ssize_t w = pos ? pwrite(fd, p, n, *pos) : write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
		if (pos)
			*pos += w;
	}
	return 0;
}

/* Write the chunk; on a seekable file also a trailer just past it, which
 * the next chunk overwrites. `tail` replaces the trailer at close. */
static int chunk_flush(struct chrome_ctx *s, const char *tail)
{
	const char *t = tail ? tail : trailer;
	size_t tl = strlen(t), n = s->b.len;
	int err;

	if (s->err)
		return s->err;
	if (s->seekable) {
		struct iovec iov[2] = { { s->b.p, n }, { (void *)t, tl } };
		ssize_t w;

		do
			w = pwritev(s->fd, iov, 2, s->pos);
		while (w < 0 && errno == EINTR);

		/* short writes are rare on files; finish them the slow way */
		if (w >= 0 && (size_t)w < n + tl) {
			off_t p = s->pos + w;

			if ((size_t)w < n) {
				err = write_all(s->fd, s->b.p + w, n - (size_t)w, &p);
				if (!err)
					err = write_all(s->fd, t, tl, &p);
			} else {
				err = write_all(s->fd, t + (w - n), tl - (size_t)(w - n), &p);
			}
		} else {
			err = w < 0 ? -errno : 0;
		}
		if (!err)
			s->pos += (off_t)n;
		if (!err && tail && ftruncate(s->fd, s->pos + (off_t)tl))
			err = -errno;
	} else {
		/* a pipe or terminal: the trailer only once, at the end */
		err = write_all(s->fd, s->b.p, n, NULL);
		if (!err && tail)
			err = write_all(s->fd, t, tl, NULL);
	}
	s->b.len = 0;
	if (err) {
		s->err = err;
		s->open = false;
	}
	return err;
}

static void sep(struct chrome_ctx *s)
{
	if (s->any)
		ct_sb_lit(&s->b, ",\n");
	s->any = true;
}

/* Timestamps in microseconds, exact to the ns; CLOCK_MONOTONIC keeps the
 * numbers small enough for a double. */
static void ts_us(struct ct_sb *b, uint64_t ns)
{
	unsigned frac = (unsigned)(ns % 1000);

	ct_sb_u64(b, ns / 1000);
	ct_sb_ch(b, '.');
	ct_sb_ch(b, (char)('0' + frac / 100));
	ct_sb_ch(b, (char)('0' + frac / 10 % 10));
	ct_sb_ch(b, (char)('0' + frac % 10));
}

static void pid_tid(struct ct_sb *b, uint32_t pid, uint32_t tid)
{
	ct_sb_lit(b, ",\"pid\":");
	ct_sb_u64(b, pid);
	ct_sb_lit(b, ",\"tid\":");
	ct_sb_u64(b, tid);
}

static void meta(struct chrome_ctx *s, const char *what, uint32_t pid, uint32_t tid, const char *name)
{
	struct ct_sb *b = &s->b;

	sep(s);
	ct_sb_lit(b, "{\"name\":");
	ct_sb_json_str(b, what);
	ct_sb_lit(b, ",\"ph\":\"M\"");
	pid_tid(b, pid, tid);
	ct_sb_lit(b, ",\"args\":{\"name\":");
	ct_sb_json_str(b, name);
	ct_sb_lit(b, "}}");
}

static int name_tracks(struct chrome_ctx *s, const struct ct_event *ev)
{
	struct proc_track *p = ct_u64map_get(&s->procs, ev->pid);
	const char *comm = ev->comm ? ev->comm : "";

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p || ct_u64map_put(&s->procs, ev->pid, p)) {
			free(p);
			return -ENOMEM;
		}
		meta(s, "process_name", ev->pid, 0, comm);
		p->named_by_main = ev->tid == ev->pid;
	} else if (!p->named_by_main && ev->tid == ev->pid) {
		/* a later metadata event wins: prefer the main thread's name */
		meta(s, "process_name", ev->pid, 0, comm);
		p->named_by_main = true;
	}
	if (!ct_u64map_get(&s->threads, ev->tid)) {
		if (ct_u64map_put(&s->threads, ev->tid, (void *)1))
			return -ENOMEM;
		meta(s, "thread_name", ev->pid, ev->tid, comm);
	}
	return 0;
}

/* A time on the chosen clock; the same instant of the event either way. */
static uint64_t when(const struct chrome_ctx *s, const struct ct_event *ev, uint64_t mono)
{
	return s->clock == CLOCK_WALL ? mono - ev->mono_ns + ev->ts_ns : mono;
}

/* A launch's slice is named by its kernel, as profilers name them. */
static const char *slice_name(const struct ct_event *ev, char *hex, size_t n)
{
	const struct ct_field *k = ev->api && (ev->api->flags & CT_API_LAUNCH) ?
				   ct_event_role(ev, CT_ROLE_KERNEL) : NULL;

	if (k && k->valid && k->str)
		return k->str;
	if (k && k->valid && k->v) {
		snprintf(hex, n, "kernel 0x%" PRIx64, k->v);
		return hex;
	}
	return ev->api && ev->api->symbol ? ev->api->symbol : "?";
}

static void call_event(struct chrome_ctx *s, const struct ct_event *ev)
{
	struct ct_sb *b = &s->b;
	char hex[32];

	sep(s);
	ct_sb_lit(b, "{\"name\":");
	ct_sb_json_str(b, slice_name(ev, hex, sizeof(hex)));
	ct_sb_lit(b, ",\"cat\":");
	ct_sb_json_str(b, ev->plugin && ev->plugin->name ? ev->plugin->name : "?");
	if (ev->entry_only) {
		ct_sb_lit(b, ",\"ph\":\"i\",\"s\":\"t\",\"ts\":");
		ts_us(b, when(s, ev, ev->mono_ns));
	} else {
		ct_sb_lit(b, ",\"ph\":\"X\",\"ts\":");
		ts_us(b, when(s, ev, ev->mono_ns));
		ct_sb_lit(b, ",\"dur\":");
		ts_us(b, ev->dur_ns);
	}
	pid_tid(b, ev->pid, ev->tid);
	ct_sb_lit(b, ",\"args\":{\"api\":");
	ct_sb_json_str(b, ev->api && ev->api->symbol ? ev->api->symbol : "?");
	ct_sb_ch(b, ',');
	if (s->args && ev->n_fields) {
		ct_sb_lit(b, "\"call\":{");
		for (unsigned i = 0; i < ev->n_fields; i++) {
			if (i)
				ct_sb_ch(b, ',');
			ct_sb_json_str(b, ev->fields[i].arg && ev->fields[i].arg->name ?
					       ev->fields[i].arg->name : "?");
			ct_sb_ch(b, ':');
			ct_json_field_sb(b, &ev->fields[i]);
		}
		ct_sb_lit(b, "},");
	}
	if (ev->has_result) {
		ct_sb_lit(b, "\"result\":");
		if (ev->result_name) {
			ct_sb_json_str(b, ev->result_name);
		} else {
			ct_sb_ch(b, '"');
			ct_sb_i64(b, ev->result);
			ct_sb_ch(b, '"');
		}
		if (ev->is_error)
			ct_sb_lit(b, ",\"error\":true,");
		else
			ct_sb_lit(b, ",\"error\":false,");
	}
	if (ev->has_ret_handle) {
		ct_sb_lit(b, "\"ret\":\"");
		ct_sb_hex(b, ev->ret_handle);
		ct_sb_lit(b, "\",");
	}
	if (ev->device >= 0) {
		ct_sb_lit(b, "\"device\":");
		ct_sb_u64(b, (uint64_t)ev->device);
		ct_sb_ch(b, ',');
	}
	/* --stacks: the frames as lines, innermost first (room: chrome_event) */
	if (ev->stack) {
		ct_sb_lit(b, "\"stack\":");
		b->len = (size_t)(ct_stack_lines_w(b->p + b->len, ev->stack) - b->p);
		ct_sb_ch(b, ',');
	}
	if (ev->py_stack) {
		ct_sb_lit(b, "\"py_stack\":");
		b->len = (size_t)(ct_py_lines_w(b->p + b->len, ev->py_stack) - b->p);
		ct_sb_ch(b, ',');
	}
	ct_sb_lit(b, "\"depth\":");
	ct_sb_u64(b, ev->depth);
	ct_sb_lit(b, "}}");
}

/* {"name":"WHAT (RUNTIME)","ph":"C","ts":..,"pid":..,"args":{   -- the caller closes it */
static void counter(struct chrome_ctx *s, const struct ct_event *ev, const char *what,
		    const char *runtime)
{
	struct ct_sb *b = &s->b;
	char name[128];

	snprintf(name, sizeof(name), "%s (%s)", what, runtime);
	sep(s);
	ct_sb_lit(b, "{\"name\":");
	ct_sb_json_str(b, name);
	ct_sb_lit(b, ",\"ph\":\"C\",\"ts\":");
	ts_us(b, when(s, ev, ev->mono_ns + ev->dur_ns));
	ct_sb_lit(b, ",\"pid\":");
	ct_sb_u64(b, ev->pid);
	ct_sb_lit(b, ",\"args\":{");
}

static int copy_counter(struct chrome_ctx *s, const struct ct_event *ev)
{
	const struct ct_field *kf = ct_event_role(ev, CT_ROLE_COPY_KIND);
	const char *kind = kf && kf->enum_name ? kf->enum_name : "bytes";
	int pn = CT_PLUGIN_NUMBER(s, ev->plugin);
	struct copy_track *t;
	unsigned i;

	if (pn < 0)
		return pn;
	t = ct_u64map_get(&s->copies, (uint64_t)ev->pid << 16 | (unsigned)pn);
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t || ct_u64map_put(&s->copies, (uint64_t)ev->pid << 16 | (unsigned)pn, t)) {
			free(t);
			return -ENOMEM;
		}
	}
	for (i = 0; i < t->n && strcmp(t->k[i].name, kind); i++)
		;
	if (i == t->n) {
		if (t->n == MAX_KINDS)
			i = t->n - 1; /* more kinds than any runtime has: lump the rest */
		else if (!(t->k[t->n++].name = strdup(kind)))
			return t->n--, -ENOMEM;
	}
	t->k[i].bytes += ct_event_bytes(ev);
	/* every series in every sample, so that none drops to zero in between */
	counter(s, ev, "bytes copied", ev->plugin && ev->plugin->name ? ev->plugin->name : "?");
	for (unsigned j = 0; j < t->n; j++) {
		if (j)
			ct_sb_ch(&s->b, ',');
		ct_sb_json_str(&s->b, t->k[j].name);
		ct_sb_ch(&s->b, ':');
		ct_sb_u64(&s->b, t->k[j].bytes);
	}
	ct_sb_lit(&s->b, "}}");
	return 0;
}

/* One arrow: from the outer call's start to the inner call's ("bp":"e":
 * the inner call is the slice that encloses its own start most closely). */
static void flow(struct chrome_ctx *s, const struct ct_event *outer, const struct pending *in)
{
	struct ct_sb *b = &s->b;
	uint64_t id = ++s->flow_id;

	sep(s);
	ct_sb_lit(b, "{\"name\":\"made\",\"cat\":\"nesting\",\"ph\":\"s\",\"id\":");
	ct_sb_u64(b, id);
	ct_sb_lit(b, ",\"ts\":");
	ts_us(b, when(s, outer, outer->mono_ns));
	pid_tid(b, outer->pid, outer->tid);
	ct_sb_lit(b, "},\n{\"name\":\"made\",\"cat\":\"nesting\",\"ph\":\"f\",\"bp\":\"e\",\"id\":");
	ct_sb_u64(b, id);
	ct_sb_lit(b, ",\"ts\":");
	ts_us(b, when(s, outer, in->ts));
	pid_tid(b, outer->pid, outer->tid);
	ct_sb_ch(b, '}');
}

/*
 * An inner call waits for its outer call, which the ring delivers after
 * it; an outer call takes the arrows of the inner calls it encloses. A
 * thread keeps PENDING_MAX at most (the oldest go: their outer call was
 * filtered out or not traced).
 */
static int flows_note(struct chrome_ctx *s, const struct ct_event *ev)
{
	struct thread_flows *t = ct_u64map_get(&s->waiting, ev->tid);
	uint64_t end = ev->mono_ns + ev->dur_ns;
	unsigned kept = 0;

	if (t && !ev->entry_only) {
		for (unsigned i = 0; i < t->n; i++) {
			const struct pending *p = &t->v[i];

			if (p->ts >= ev->mono_ns && p->ts <= end && p->depth > ev->depth &&
			    !strcmp(p->plugin, ev->plugin->name) && !strcmp(p->api, ev->api->symbol))
				flow(s, ev, p);
			else
				t->v[kept++] = *p;
		}
		t->n = kept;
	}
	if (!ev->parent_api)
		return 0;
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t || ct_u64map_put(&s->waiting, ev->tid, t)) {
			free(t);
			return -ENOMEM;
		}
	}
	if (t->n == PENDING_MAX) {
		memmove(t->v, t->v + 1, (PENDING_MAX - 1) * sizeof(t->v[0]));
		t->n--;
	}
	t->v[t->n] = (struct pending){ .ts = ev->mono_ns, .depth = ev->depth };
	snprintf(t->v[t->n].plugin, sizeof(t->v[t->n].plugin), "%s", ev->parent_plugin);
	snprintf(t->v[t->n].api, sizeof(t->v[t->n].api), "%s", ev->parent_api);
	t->n++;
	return 0;
}

static int chrome_open(void *ctx)
{
	struct chrome_ctx *s = ctx;
	int err;

	if (fflush(s->c.out))
		return -errno;
	s->fd = fileno(s->c.out);
	s->seekable = ct_out_rewritable(s->c.out);
	if (s->seekable) {
		s->pos = lseek(s->fd, 0, SEEK_CUR);
		if (s->pos < 0)
			s->seekable = false;
	}
	if (!ct_sb_room(&s->b, CHUNK + EVENT_MAX))
		return -ENOMEM;
	s->open = true;
	ct_sb_lit(&s->b, head);
	/* the file is a valid, empty trace from the start */
	err = chunk_flush(s, NULL);
	return err;
}

static void an_callbacks(struct chrome_ctx *s);

static int chrome_event(void *ctx, const struct ct_event *ev)
{
	struct chrome_ctx *s = ctx;
	struct ct_mem_change ch;
	uint32_t flags = ev->api ? ev->api->flags : 0;
	size_t need = EVENT_MAX;
	char hex[32];
	int err;

	if (!s->open)
		return s->err ? s->err : -EIO;
	/* Room reserved at open; grows for a call with long strings (a kernel
	 * name has no bound). */
	for (int i = 0; i < ev->n_fields; i++)
		need += ct_json_field_max(&ev->fields[i]);
	need += 6 * strlen(slice_name(ev, hex, sizeof(hex))) + 2; /* a kernel's name twice: the slice's too */
	if (ev->stack)
		need += 16 + ct_stack_lines_max(ev->stack);
	if (ev->py_stack)
		need += 16 + ct_py_lines_max(ev->py_stack);
	if (!ct_sb_room(&s->b, need))
		return -ENOMEM;
	err = name_tracks(s, ev);
	if (err)
		return err;
	s->wall_off = (int64_t)(ev->ts_ns - ev->mono_ns);
	call_event(s, ev);
	s->events++;
	if (s->flows) {
		err = flows_note(s, ev);
		if (err)
			return err;
	}
	if (s->counters) {
		err = ct_memtrack_event(&s->mem, ev, &ch);
		if (err)
			return err;
		if (ch.op == CT_MEMOP_ALLOC || ch.op == CT_MEMOP_FREE) {
			char what[48];

			snprintf(what, sizeof(what), "%s memory in use", ct_mem_kind_name(ch.kind));
			counter(s, ev, what, ch.space->plugin);
			ct_sb_lit(&s->b, "\"bytes\":");
			ct_sb_u64(&s->b, ch.space->in_use[ch.kind]);
			ct_sb_lit(&s->b, "}}");
		}
		if ((flags & CT_API_COPY) && !ev->is_error && !ev->entry_only) {
			err = copy_counter(s, ev);
			if (err)
				return err;
		}
	}
	/* Last: the marks it may make reserve their own room. */
	err = ct_an_sink_event(&s->an, ev);
	if (err)
		return err;
	an_callbacks(s);
	if (s->b.len >= CHUNK)
		return chunk_flush(s, NULL);
	return 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

/* The stream's track on its device's process, named the first time. */
static int gpu_track(struct chrome_ctx *s, const struct ct_gpu_event *g, uint32_t *tid)
{
	uint64_t key = mix(mix(mix(mix(0, g->device), g->pid), g->context), g->stream);
	uintptr_t t = (uintptr_t)ct_u64map_get(&s->gpu_tracks, key);
	char name[96];

	if (!ct_u64map_get(&s->gpu_devices, (uint64_t)g->device + 1)) {
		if (ct_u64map_put(&s->gpu_devices, (uint64_t)g->device + 1, (void *)1))
			return -ENOMEM;
		snprintf(name, sizeof(name), "GPU %u", g->device);
		meta(s, "process_name", GPU_PID_BASE + g->device, 0, name);
	}
	if (!t) {
		t = (uintptr_t)++s->n_gpu_tracks;
		if (ct_u64map_put(&s->gpu_tracks, key, (void *)t))
			return -ENOMEM;
		snprintf(name, sizeof(name), "stream %u (pid %u, context %u)", g->stream, g->pid, g->context);
		meta(s, "thread_name", GPU_PID_BASE + g->device, (uint32_t)t, name);
	}
	*tid = (uint32_t)t;
	return 0;
}

/* One end of a launch's flow arrow (ph: its phase and binding, as JSON text),
 * numbered with the nesting arrows so that no two arrows share an id. */
static void launch_flow(struct chrome_ctx *s, const char *ph, uint64_t ts, uint32_t pid, uint32_t tid)
{
	sep(s);
	ct_sb_lit(&s->b, "{\"name\":\"launch\",\"cat\":\"launch\",\"ph\":");
	ct_sb_put(&s->b, ph, strlen(ph));
	ct_sb_lit(&s->b, ",\"id\":");
	ct_sb_u64(&s->b, s->flow_id);
	ct_sb_lit(&s->b, ",\"ts\":");
	ts_us(&s->b, ts);
	pid_tid(&s->b, pid, tid);
	ct_sb_ch(&s->b, '}');
}

/* The analysis's marks (docs/analysis.md): each step, and each gap the GPU
 * was idle with its cause, on two tracks of the process. */
#define AN_STEPS_TID 0xfffffff0u
#define AN_GAPS_TID 0xfffffff1u

static void an_mark(struct chrome_ctx *s, uint32_t pid, uint32_t tid, const char *name, uint64_t t0, uint64_t t1)
{
	struct ct_sb *b = &s->b;

	if (!ct_u64map_get(&s->an_named, pid) && !ct_u64map_put(&s->an_named, pid, (void *)1)) {
		meta(s, "thread_name", pid, AN_STEPS_TID, "steps (analysis)");
		meta(s, "thread_name", pid, AN_GAPS_TID, "GPU idle, by cause (analysis)");
	}
	sep(s);
	ct_sb_lit(b, "{\"name\":");
	ct_sb_json_str(b, name);
	ct_sb_lit(b, ",\"cat\":\"analysis\",\"ph\":\"X\",\"ts\":");
	ts_us(b, s->clock == CLOCK_WALL ? t0 : t0 - (uint64_t)s->wall_off);
	ct_sb_lit(b, ",\"dur\":");
	ts_us(b, t1 - t0);
	pid_tid(b, pid, tid);
}

static void an_step(void *ctx, uint32_t pid, uint64_t t0, uint64_t t1, uint64_t busy)
{
	struct chrome_ctx *s = ctx;

	/* Without GPU activity (an old trace replayed) there is nothing to mark. */
	if (!s->open || !s->an.an.seen.gpu || !ct_sb_room(&s->b, EVENT_MAX))
		return;
	an_mark(s, pid, AN_STEPS_TID, "step", t0, t1);
	ct_sb_lit(&s->b, ",\"args\":{\"busy_ns\":");
	ct_sb_u64(&s->b, busy);
	ct_sb_lit(&s->b, ",\"idle_ns\":");
	ct_sb_u64(&s->b, t1 - t0 - busy);
	ct_sb_lit(&s->b, "}}");
}

static void an_gap(void *ctx, uint32_t pid, uint64_t g0, uint64_t g1, enum ct_cause c, const char *site)
{
	struct chrome_ctx *s = ctx;

	if (!s->open || !s->an.an.seen.gpu || !ct_sb_room(&s->b, EVENT_MAX + (site ? 6 * strlen(site) : 0)))
		return;
	an_mark(s, pid, AN_GAPS_TID, ct_cause_text[c], g0, g1);
	ct_sb_lit(&s->b, ",\"args\":{\"site\":");
	if (site)
		ct_sb_json_str(&s->b, site);
	else
		ct_sb_lit(&s->b, "null");
	ct_sb_lit(&s->b, "}}");
}

static void an_callbacks(struct chrome_ctx *s)
{
	if (s->an.on && !s->an.an.cb_ctx) {
		s->an.an.on_step = an_step;
		s->an.an.on_gap = an_gap;
		s->an.an.cb_ctx = s;
	}
}

static int an_gpu(struct chrome_ctx *s, const struct ct_gpu_event *g)
{
	int err = ct_an_sink_gpu(&s->an, g);

	an_callbacks(s);
	s->wall_off = (int64_t)(g->ts_ns - g->mono_ns);
	return err;
}

static int chrome_gpu(void *ctx, const struct ct_gpu_event *g)
{
	struct chrome_ctx *s = ctx;
	struct ct_sb *b = &s->b;
	uint32_t pid = GPU_PID_BASE + g->device, tid;
	char what[64];
	int err;

	if (!s->open)
		return s->err ? s->err : -EIO;
	if (!ct_sb_room(b, EVENT_MAX + 6 * ((g->name ? strlen(g->name) : 0) +
					    (g->capture_site ? strlen(g->capture_site) : 0))))
		return -ENOMEM;
	err = gpu_track(s, g, &tid);
	if (err)
		return err;
	sep(s);
	ct_sb_lit(b, "{\"name\":");
	if (g->kind == CT_GPU_KERNEL) {
		ct_sb_json_str(b, g->name ? g->name : "(unnamed kernel)");
	} else {
		snprintf(what, sizeof(what), g->kind == CT_GPU_MEMCPY ? "memcpy %s" : "memset", g->copy_kind);
		ct_sb_json_str(b, what);
	}
	ct_sb_lit(b, ",\"cat\":\"gpu\",\"ph\":\"X\",\"ts\":");
	ts_us(b, s->clock == CLOCK_WALL ? g->ts_ns : g->mono_ns);
	ct_sb_lit(b, ",\"dur\":");
	ts_us(b, g->dur_ns);
	pid_tid(b, pid, tid);
	ct_sb_lit(b, ",\"args\":{\"correlation\":");
	ct_sb_u64(b, g->correlation);
	if (g->kind != CT_GPU_KERNEL) {
		ct_sb_lit(b, ",\"bytes\":");
		ct_sb_u64(b, g->bytes);
	}
	if (g->has_launch && g->launch_api) {
		ct_sb_lit(b, ",\"launched_by\":");
		ct_sb_json_str(b, g->launch_api);
	}
	if (g->graph_node) {
		ct_sb_lit(b, ",\"graph_id\":");
		ct_sb_u64(b, g->graph_id);
		ct_sb_lit(b, ",\"graph_node\":");
		ct_sb_u64(b, g->graph_node);
	}
	if (g->has_capture && g->capture_api) {
		ct_sb_lit(b, ",\"captured_by\":");
		ct_sb_json_str(b, g->capture_api);
	}
	if (g->has_capture && g->capture_site) {
		ct_sb_lit(b, ",\"captured_at\":");
		ct_sb_json_str(b, g->capture_site);
	}
	ct_sb_lit(b, "}}");
	if (g->has_launch) {
		/* The arrow starts in the call (the slice that encloses its time on
		 * the launching thread) and ends at the work's own slice. */
		s->flow_id++;
		launch_flow(s, "\"s\"", s->clock == CLOCK_WALL ? g->launch_ts_ns : g->launch_mono_ns, g->pid,
			    g->launch_tid);
		launch_flow(s, "\"f\",\"bp\":\"e\"", s->clock == CLOCK_WALL ? g->ts_ns : g->mono_ns, pid, tid);
	}
	s->events++;
	err = an_gpu(s, g);
	if (err)
		return err;
	if (s->b.len >= CHUNK)
		return chunk_flush(s, NULL);
	return 0;
}

static int chrome_tick(void *ctx, uint64_t now_ns)
{
	struct chrome_ctx *s = ctx;

	if (!s->open)
		return s->err;
	/* nothing new: the file on disk is already complete */
	if (!s->b.len)
		return 0;
	return chunk_flush(s, NULL);
}

static int chrome_close(void *ctx, const struct ct_run_stats *st)
{
	struct chrome_ctx *s = ctx;
	char *tail = NULL;
	size_t tl = 0;
	FILE *t;
	int err;

	if (!s->open)
		return s->err ? s->err : -EIO;
	if (s->an.on)
		ct_an_finish(&s->an.an); /* the last steps' marks */
	t = open_memstream(&tail, &tl);
	if (!t)
		return -errno;
	fprintf(t, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"cudatracer\","
		"\"version\":\"%s\",\"clock\":\"%s\",\"calls\":%" PRIu64,
		CT_VERSION, s->clock == CLOCK_WALL ? "CLOCK_REALTIME" : "CLOCK_MONOTONIC", s->events);
	if (st)
		fprintf(t, ",\"lost\":%" PRIu64 ",\"unpaired\":%" PRIu64 ",\"start_ns\":%" PRIu64
			",\"end_ns\":%" PRIu64, st->lost, st->unpaired, st->start_ns, st->end_ns);
	fputs("}}\n", t);
	fclose(t);
	err = chunk_flush(s, tail ? tail : trailer);
	free(tail);
	s->open = false;
	return err;
}

/*
 * NVTX (docs/nvtx.md): a push/pop range is a slice on its thread, around
 * the calls made in it (they nest, as pushes and pops do); a start/end
 * range may cross threads and overlap others, so it is an async slice
 * (b/e, its own id) that begins on the thread that started it; a mark is
 * an instant on its thread.
 */
static int chrome_nvtx(void *ctx, const struct ct_nvtx_event *r)
{
	struct chrome_ctx *s = ctx;
	struct ct_sb *b = &s->b;
	uint64_t start = s->clock == CLOCK_WALL ? r->ts_ns : r->mono_ns;
	uint64_t end = s->clock == CLOCK_WALL ? r->end_ns : r->end_mono_ns;
	bool async = !r->mark && r->depth < 0;

	if (!s->open)
		return s->err ? s->err : -EIO;
	if (!ct_sb_room(b, 512 + 12 * (strlen(r->name) + (r->domain ? strlen(r->domain) : 0))))
		return -ENOMEM;
	for (int half = 0; half < 1 + async; half++) {
		sep(s);
		ct_sb_lit(b, "{\"name\":");
		ct_sb_json_str(b, r->name);
		ct_sb_lit(b, ",\"cat\":\"nvtx\",\"ph\":");
		if (r->mark) {
			ct_sb_lit(b, "\"i\",\"s\":\"t\",\"ts\":");
			ts_us(b, start);
		} else if (async) {
			if (half)
				ct_sb_lit(b, "\"e\",\"id\":");
			else
				ct_sb_lit(b, "\"b\",\"id\":");
			ct_sb_u64(b, s->nvtx_id + 1);
			ct_sb_lit(b, ",\"ts\":");
			ts_us(b, half ? end : start);
		} else {
			ct_sb_lit(b, "\"X\",\"ts\":");
			ts_us(b, start);
			ct_sb_lit(b, ",\"dur\":");
			ts_us(b, end - start);
		}
		pid_tid(b, r->pid, r->tid);
		ct_sb_lit(b, ",\"args\":{\"domain\":");
		if (r->domain)
			ct_sb_json_str(b, r->domain);
		else
			ct_sb_lit(b, "null");
		if (r->depth >= 0) {
			ct_sb_lit(b, ",\"depth\":");
			ct_sb_u64(b, (uint64_t)r->depth);
		}
		if (r->open)
			ct_sb_lit(b, ",\"open\":true");
		ct_sb_lit(b, "}}");
	}
	s->nvtx_id += async;
	if (b->len >= CHUNK)
		return chunk_flush(s, NULL);
	return 0;
}

static void chrome_destroy(void *ctx)
{
	struct chrome_ctx *s = ctx;
	struct copy_track *t;
	void *p;

	ct_sb_free(&s->b);
	for (size_t i = 0; ct_u64map_next(&s->procs, &i, NULL, &p);)
		free(p);
	for (size_t i = 0; ct_u64map_next(&s->waiting, &i, NULL, &p);)
		free(p);
	ct_u64map_free(&s->waiting);
	for (size_t i = 0; ct_u64map_next(&s->copies, &i, NULL, (void **)&t);) {
		for (unsigned j = 0; j < t->n; j++)
			free(t->k[j].name);
		free(t);
	}
	ct_u64map_free(&s->procs);
	ct_u64map_free(&s->threads);
	ct_u64map_free(&s->copies);
	ct_u64map_free(&s->gpu_tracks);
	ct_u64map_free(&s->gpu_devices);
	ct_memtrack_free(&s->mem);
	ct_an_sink_free(&s->an);
	ct_u64map_free(&s->an_named);
}

const struct ct_sink_ops ct_sink_chrome = {
	.type = "chrome",
	.where_help = "a trace for Perfetto and chrome://tracing",
	.file_ext = "json",
	.rotatable = true,
	.help = "Chrome Trace Event JSON for Perfetto and chrome://tracing, streamed",
	.keys = chrome_keys,
	.ctx_size = sizeof(struct chrome_ctx),
	.open = chrome_open,
	.event = chrome_event,
	.tick = chrome_tick,
	.close = chrome_close,
	.destroy = chrome_destroy,
	.gpu = chrome_gpu,
	.nvtx = chrome_nvtx,
};
