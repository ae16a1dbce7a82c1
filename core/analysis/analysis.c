// SPDX-License-Identifier: MIT
/*
 * Steps and the causes of their idle GPU time (docs/analysis.md says what
 * each cause means; this file is how they are found).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analysis.h"
#include "analysis/apiclass.h"
#include "analysis/interval.h"

const char *const ct_cause_key[CT_CAUSE_N] = {
	[CT_CAUSE_SYNC] = "sync",
	[CT_CAUSE_COLLECTIVE] = "collective",
	[CT_CAUSE_LAUNCH] = "launch_bound",
	[CT_CAUSE_HOST] = "host_work",
	[CT_CAUSE_OTHER] = "gpu_wait",
	[CT_CAUSE_PAGEABLE] = "pageable_copy",
};
const char *const ct_cause_text[CT_CAUSE_N] = {
	[CT_CAUSE_SYNC] = "host sync",
	[CT_CAUSE_COLLECTIVE] = "collective wait",
	[CT_CAUSE_LAUNCH] = "launch-bound",
	[CT_CAUSE_HOST] = "host work",
	[CT_CAUSE_OTHER] = "GPU waiting on queued work",
	[CT_CAUSE_PAGEABLE] = "pageable copies",
};

int ct_an_init(struct ct_an *a, const struct ct_an_opts *o)
{
	memset(a, 0, sizeof(*a));
	a->o = *o;
	a->by = o->range_pattern ? CT_STEPS_NVTX : o->py_function ? CT_STEPS_FUNCTION : CT_STEPS_PERIOD;
	a->seen.version = -1;
	return ct_names_init(&a->names);
}

static void proc_free(void *v)
{
	struct ct_an_proc *p = v;

	free(p->calls);
	free(p->gpu);
	free(p->steps);
	free(p->seq);
	ct_u64map_free_all(&p->threads, free);
	ct_u64map_free_all(&p->sites, free);
	ct_u64map_free_all(&p->kernels, free);
	ct_u64map_free_all(&p->graph_nodes, free);
	free(p);
}

void ct_an_free(struct ct_an *a)
{
	ct_u64map_free_all(&a->procs, proc_free);
	ct_names_free(&a->names);
	free(a->scratch);
	free(a->classes);
}

static struct ct_an_proc *proc_of(struct ct_an *a, uint32_t pid)
{
	struct ct_an_proc *p = ct_u64map_get(&a->procs, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p || ct_u64map_put(&a->procs, pid, p)) {
		free(p);
		return NULL;
	}
	p->pid = pid;
	p->learning = a->by == CT_STEPS_PERIOD;
	return p;
}

static struct ct_cost *cost_of(struct ct_u64map *m, uint64_t key)
{
	struct ct_cost *c = ct_u64map_get(m, key);

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c || ct_u64map_put(m, key, c)) {
		free(c);
		return NULL;
	}
	return c;
}

/* Room for one more in a growing array; false when out of memory. */
static bool grow(void **v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return true;
	size_t nc = *cap ? *cap * 2 : 1024;
	void *nv = realloc(*v, nc * size);

	if (!nv)
		return false;
	*v = nv;
	*cap = nc;
	return true;
}

static int add_step(struct ct_an_proc *p, uint64_t s, uint64_t e)
{
	if (e <= s)
		return 0;
	/* Nested or overlapping matches: the outer one is the step. */
	if (p->n_steps && s < p->steps[p->n_steps - 1].end)
		return 0;
	if (!grow((void **)&p->steps, p->n_steps, &p->cap_steps, sizeof(*p->steps)))
		return -ENOMEM;
	p->steps[p->n_steps++] = (struct ct_iv){ s, e };
	return 0;
}

/* Calls and GPU records by start time: they come nearly in order (GPU
 * lines late by up to half a second), so each moves back a few places. */
#define INSERT_SORTED(arr, n, item)                                      \
	do {                                                             \
		size_t i_ = (n)++;                                       \
		while (i_ > 0 && (arr)[i_ - 1].ts > (item).ts) {          \
			(arr)[i_] = (arr)[i_ - 1];                        \
			i_--;                                            \
		}                                                        \
		(arr)[i_] = (item);                                      \
	} while (0)

static void flush(struct ct_an *a, bool all);

/*
 * Period steps: a process's first CT_AN_LEARN_MAX launches are kept (with
 * every record, nothing analysed) until their period is known; then the
 * steps among them are found, and later ones as they come. One pass, so
 * that a live run can do it too.
 */
static int period_known(struct ct_an_proc *p);

static int learn(struct ct_an *a, struct ct_an_proc *p, uint32_t kname)
{
	a->seen.launches++;
	if (!p->seq && !(p->seq = malloc(CT_AN_LEARN_MAX * sizeof(*p->seq))))
		return -ENOMEM;
	p->seq[p->n_seq++] = kname;
	return 0;
}

/* Function steps: an entry is a call in the function after one outside it,
 * or at an earlier line of it than the thread's call before (the loop came
 * round: a new invocation starts from its top). */
static int function_step(struct ct_an_proc *p, struct ct_an_thread *t, const struct ct_an_rec *r)
{
	bool entry = r->in_fn && (!t->in_fn || r->fn_line < t->fn_line);
	int err = 0;

	t->in_fn = r->in_fn;
	t->fn_line = r->fn_line;
	if (!entry)
		return 0;
	if (p->has_open)
		err = add_step(p, p->open_start, r->ts);
	p->open_start = r->ts;
	p->has_open = true;
	return err;
}

static int period_step(struct ct_an_proc *p, uint64_t ts, uint32_t kname)
{
	if (kname != p->period.anchor)
		return 0;
	int err = p->has_open ? add_step(p, p->open_start, ts) : 0;

	p->open_start = ts;
	p->has_open = true;
	return err;
}

/* No period: the trace in windows of CT_AN_WINDOW_NS, so that its totals
 * are still told, in bounded memory. */
static int window_step(struct ct_an_proc *p, uint64_t ts)
{
	int err = 0;

	if (!p->has_open)
		p->open_start = ts, p->has_open = true;
	else if (ts >= p->open_start + CT_AN_WINDOW_NS) {
		err = add_step(p, p->open_start, ts);
		p->open_start = ts;
	}
	return err;
}

static int period_known(struct ct_an_proc *p)
{
	int err = 0;

	ct_period_find(p->seq, p->n_seq, &p->period);
	free(p->seq);
	p->seq = NULL;
	p->n_seq = 0;
	p->learning = false;
	/* The steps among what was kept while learning. */
	for (size_t i = 0; i < p->n_calls && !err; i++)
		if (!p->period.len)
			err = window_step(p, p->calls[i].ts);
		else if (p->calls[i].cls == CT_CLASS_LAUNCH)
			err = period_step(p, p->calls[i].ts, p->calls[i].kname);
	return err;
}

/* An API's class, looked up once per name. */
int ct_an_api_class(struct ct_an *a, const char *api)
{
	size_t len = strlen(api);
	uint32_t id = ct_names_id(&a->names, api, len);

	if (id >= a->n_classes) {
		size_t n = (size_t)id + 256;
		uint8_t *v = realloc(a->classes, n);

		if (!v)
			return ct_api_class_of(api, len);
		memset(v + a->n_classes, 0, n - a->n_classes);
		a->classes = v;
		a->n_classes = n;
	}
	if (!id)
		return ct_api_class_of(api, len);
	if (!a->classes[id])
		a->classes[id] = (uint8_t)(ct_api_class_of(api, len) + 1);
	return (enum ct_api_class)(a->classes[id] - 1);
}

int ct_an_call(struct ct_an *a, const struct ct_an_rec *r)
{
	enum ct_api_class cls = r->cls ? (enum ct_api_class)(r->cls - 1) : (enum ct_api_class)ct_an_api_class(a, r->api);
	struct ct_an_proc *p;
	struct ct_an_thread *t;
	int err = 0;

	if (!(p = proc_of(a, r->pid)))
		return -ENOMEM;
	if (!(t = ct_u64map_get(&p->threads, r->tid))) {
		if (!(t = calloc(1, sizeof(*t))) || ct_u64map_put(&p->threads, r->tid, t)) {
			free(t);
			return -ENOMEM;
		}
	}
	uint32_t kname = cls == CT_CLASS_LAUNCH && r->kname ? ct_names_id(&a->names, r->kname, strlen(r->kname)) : 0;

	if (a->by == CT_STEPS_FUNCTION)
		err = function_step(p, t, r);
	else if (p->learning && cls == CT_CLASS_LAUNCH)
		err = learn(a, p, kname);
	else if (a->by == CT_STEPS_PERIOD && !p->learning && !p->period.len)
		err = window_step(p, r->ts);
	else if (a->by == CT_STEPS_PERIOD && !p->learning && cls == CT_CLASS_LAUNCH)
		err = period_step(p, r->ts, kname);
	else if (a->by == CT_STEPS_NVTX && r->nvtx_match && !p->range_hint)
		p->range_hint = r->ts;
	if (err)
		return err;
	if (cls != CT_CLASS_OTHER) {
		struct ct_an_call c = {
			.ts = r->ts, .end = r->end, .tid = r->tid, .cls = cls, .kname = kname,
			.pause = t->last_end && r->ts > t->last_end ? r->ts - t->last_end : 0,
			.api = ct_names_id(&a->names, r->api, strlen(r->api)),
			.site = r->site ? ct_names_id(&a->names, r->site, strlen(r->site)) : 0,
		};

		if (p->n_calls >= CT_AN_KEEP_MAX) {
			memmove(p->calls, p->calls + 1, (--p->n_calls) * sizeof(*p->calls));
			a->seen.dropped++;
		}
		if (!grow((void **)&p->calls, p->n_calls, &p->cap_calls, sizeof(*p->calls)))
			return -ENOMEM;
		INSERT_SORTED(p->calls, p->n_calls, c);
		if ((cls == CT_CLASS_SYNC || cls == CT_CLASS_SYNC_COPY || cls == CT_CLASS_COLLECTIVE) &&
		    r->end - r->ts > p->max_wait)
			p->max_wait = r->end - r->ts;
	}
	/* Enough launches to know the period, or so many records without them
	 * that memory says stop (a trace that launches nothing). */
	if (p->learning && (p->n_seq == CT_AN_LEARN_MAX || p->n_calls + p->n_gpu >= 4 * CT_AN_LEARN_MAX) &&
	    (err = period_known(p)))
		return err;
	if (r->end > t->last_end)
		t->last_end = r->end;
	if (r->end > a->watermark)
		a->watermark = r->end;
	if (++a->since_flush >= 4096)
		flush(a, false);
	return 0;
}

static const char *const op_name[] = { [CT_AN_KERNEL] = "(unnamed kernel)", [CT_AN_MEMCPY] = "memcpy",
				       [CT_AN_MEMSET] = "memset" };

static uint32_t name_id(struct ct_an *a, const char *s)
{
	return s ? ct_names_id(&a->names, s, strlen(s)) : 0;
}

/* A record of a CUDA graph node: its node's replays and GPU time, however late it came. */
static int graph_node_add(struct ct_an *a, struct ct_an_proc *p, const struct ct_an_rec *r)
{
	uint64_t key = p->graph_nodes.n < CT_AN_NODES_MAX || ct_u64map_get(&p->graph_nodes, r->graph_node) ?
			       r->graph_node : 0;
	struct ct_an_node *n = ct_u64map_get(&p->graph_nodes, key);

	if (!n) {
		n = calloc(1, sizeof(*n));
		if (!n || ct_u64map_put(&p->graph_nodes, key, n)) {
			free(n);
			return -ENOMEM;
		}
		n->graph_id = key ? r->graph_id : 0;
		n->name = name_id(a, r->op == CT_AN_KERNEL && r->name ? r->name : op_name[r->op]);
	}
	if (!n->api && r->capture_api) {
		n->api = name_id(a, r->capture_api);
		n->site = name_id(a, r->site);
	}
	n->c.n++;
	n->c.ns += r->end > r->ts ? r->end - r->ts : 0;
	return 0;
}

int ct_an_gpu(struct ct_an *a, const struct ct_an_rec *r)
{
	struct ct_an_proc *p;

	if (!(p = proc_of(a, r->pid)))
		return -ENOMEM;
	if (r->graph_node && graph_node_add(a, p, r))
		return -ENOMEM;
	/* Older than what was analysed already: a line later than the lag. */
	if (a->watermark > a->o.lag_ns && r->end + a->o.lag_ns < a->watermark) {
		a->seen.late++;
		return 0;
	}
	struct ct_an_gpu g = {
		.ts = r->ts, .end = r->end > r->ts ? r->end : r->ts, .bytes = r->bytes, .op = r->op,
		.pageable = r->pageable && r->op == CT_AN_MEMCPY, .corr_tid = r->corr_tid, .corr_ts = r->corr_ts,
		.name = r->op == CT_AN_KERNEL && r->name ? ct_names_id(&a->names, r->name, strlen(r->name)) : 0,
	};

	if (p->n_gpu >= CT_AN_KEEP_MAX) {
		memmove(p->gpu, p->gpu + 1, (--p->n_gpu) * sizeof(*p->gpu));
		a->seen.dropped++;
	}
	if (!grow((void **)&p->gpu, p->n_gpu, &p->cap_gpu, sizeof(*p->gpu)))
		return -ENOMEM;
	INSERT_SORTED(p->gpu, p->n_gpu, g);
	if (g.end - g.ts > p->max_gpu)
		p->max_gpu = g.end - g.ts;
	return 0;
}

int ct_an_range(struct ct_an *a, uint32_t pid, uint64_t start, uint64_t end, const char *name)
{
	struct ct_an_proc *p;

	if (a->by != CT_STEPS_NVTX || !name || fnmatch(a->o.range_pattern, name, 0))
		return 0;
	if (!(p = proc_of(a, pid)))
		return -ENOMEM;
	p->range_hint = 0;
	return add_step(p, start, end);
}

/* The first of n records (sorted by ts, their first member) at or after t. */
static size_t first_at(const void *base, size_t n, size_t size, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t ts;

		memcpy(&ts, (const char *)base + mid * size, sizeof(ts));
		if (ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t call_at(const struct ct_an_proc *p, uint64_t t)
{
	return first_at(p->calls, p->n_calls, sizeof(*p->calls), t);
}

static size_t gpu_at(const struct ct_an_proc *p, uint64_t t)
{
	return first_at(p->gpu, p->n_gpu, sizeof(*p->gpu), t);
}

static void charge(struct ct_an *a, struct ct_an_proc *p, enum ct_cause c, uint32_t api, uint32_t site,
		   uint64_t g0, uint64_t g1)
{
	struct ct_cost *k = cost_of(&p->sites, (uint64_t)c << 56 | (uint64_t)api << 28 | site);

	p->cause[c].ns += g1 - g0;
	p->cause[c].n++;
	if (k)
		k->ns += g1 - g0, k->n++;
	if (a->on_gap)
		a->on_gap(a->cb_ctx, p->pid, g0, g1, c, site ? ct_names_str(&a->names, site) : NULL);
}

/* A sync (or a collective) the host was inside at g0. */
static const struct ct_an_call *waiting_call(const struct ct_an_proc *p, size_t at, uint64_t g0, bool collective)
{
	uint64_t from = g0 > p->max_wait ? g0 - p->max_wait : 0;

	for (size_t i = at < p->n_calls ? at + 1 : p->n_calls; i-- > 0;) {
		const struct ct_an_call *c = &p->calls[i];
		bool waits = collective ? c->cls == CT_CLASS_COLLECTIVE : c->cls == CT_CLASS_SYNC || c->cls == CT_CLASS_SYNC_COPY;

		if (c->ts < from)
			break;
		if (waits && c->ts <= g0 && c->end >= g0)
			return c;
	}
	return NULL;
}

/*
 * One gap [g0, g1) where the GPU was idle. `ended_by_work`: GPU work starts
 * at g1 (not the step's end).
 */
static void classify(struct ct_an *a, struct ct_an_proc *p, uint64_t g0, uint64_t g1, bool ended_by_work)
{
	size_t at = call_at(p, g0);

	/* Was the host waiting when the GPU ran dry? A sync first: it says why. */
	const struct ct_an_call *w = waiting_call(p, at, g0, false);

	if (w || (w = waiting_call(p, at, g0, true))) {
		charge(a, p, w->cls == CT_CLASS_COLLECTIVE ? CT_CAUSE_COLLECTIVE : CT_CAUSE_SYNC, w->api, w->site, g0, g1);
		return;
	}
	/* Else the call that queued the next work: how long the host took to make it. */
	for (size_t i = at; i < p->n_calls; i++) {
		const struct ct_an_call *c = &p->calls[i];

		if (c->cls != CT_CLASS_LAUNCH && c->cls != CT_CLASS_ASYNC_COPY && c->cls != CT_CLASS_SYNC_COPY)
			continue;
		if (ended_by_work && c->ts >= g1)
			break;
		charge(a, p, c->pause >= a->o.host_gap_ns ? CT_CAUSE_HOST : CT_CAUSE_LAUNCH, c->api, c->site, g0, g1);
		return;
	}
	charge(a, p, CT_CAUSE_OTHER, 0, 0, g0, g1);
}

/* The site of the call that queued g (by its correlation: thread and time). */
static uint32_t queued_by(const struct ct_an_proc *p, const struct ct_an_gpu *g)
{
	size_t i = call_at(p, g->corr_ts + 1);

	for (size_t k = 0; k < 64 && i-- > 0; k++)
		if (p->calls[i].tid == g->corr_tid && p->calls[i].end >= g->corr_ts)
			return p->calls[i].site;
	return 0;
}

static void pageable(struct ct_an *a, struct ct_an_proc *p, const struct ct_an_gpu *g)
{
	uint64_t dur = g->end - g->ts;
	/* What the link would have taken, at its speed. */
	uint64_t ideal = (uint64_t)((double)g->bytes / a->o.link_gbps);
	uint64_t over = dur > ideal ? dur - ideal : 0;
	struct ct_cost *k = cost_of(&p->sites, (uint64_t)CT_CAUSE_PAGEABLE << 56 | queued_by(p, g));

	p->pageable_bytes += g->bytes;
	p->pageable_ns += dur;
	p->cause[CT_CAUSE_PAGEABLE].ns += over;
	p->cause[CT_CAUSE_PAGEABLE].n++;
	if (k)
		k->ns += over, k->n++;
}

static void analyse_step(struct ct_an *a, struct ct_an_proc *p, uint64_t s, uint64_t e)
{
	size_t n = 0;

	if (a->scratch_cap < p->n_gpu) {
		struct ct_iv *ns = realloc(a->scratch, p->n_gpu * sizeof(*ns));

		if (!ns)
			return;
		a->scratch = ns;
		a->scratch_cap = p->n_gpu;
	}
	/* Records are by start: from the first that may reach into the step. */
	for (size_t i = gpu_at(p, s > p->max_gpu ? s - p->max_gpu : 0); i < p->n_gpu && p->gpu[i].ts < e; i++) {
		const struct ct_an_gpu *g = &p->gpu[i];

		if (g->end > s)
			a->scratch[n++] = (struct ct_iv){ g->ts, g->end };
		if (g->ts < s)
			continue;
		/* What started in the step is counted in it. */
		if (g->op == CT_AN_KERNEL) {
			struct ct_cost *k = cost_of(&p->kernels, g->name);

			if (k)
				k->ns += g->end - g->ts, k->n++;
		} else if (g->op == CT_AN_MEMCPY) {
			p->copy_bytes += g->bytes;
			if (g->pageable)
				pageable(a, p, g);
		}
	}
	n = ct_iv_union(a->scratch, n, s, e);

	uint64_t busy = ct_iv_total(a->scratch, n), at = s;

	p->n_steps_done++;
	p->wall += e - s;
	p->busy += busy;
	p->idle += e - s - busy;
	if (a->on_step)
		a->on_step(a->cb_ctx, p->pid, s, e, busy);
	for (size_t i = 0; i <= n; i++) {
		uint64_t g1 = i < n ? a->scratch[i].start : e;

		if (g1 > at)
			classify(a, p, at, g1, i < n);
		if (i < n)
			at = a->scratch[i].end;
	}
}

/* Records that no step still to come can hold. */
static void forget_before(struct ct_an_proc *p, uint64_t t)
{
	size_t k = 0;

	/* A call is kept while a gap after t may still find it (a long sync). */
	uint64_t ct = t > p->max_wait ? t - p->max_wait : 0;

	while (k < p->n_calls && p->calls[k].ts < ct)
		k++;
	memmove(p->calls, p->calls + k, (p->n_calls - k) * sizeof(*p->calls));
	p->n_calls -= k;
	k = 0;
	for (size_t i = 0; i < p->n_gpu; i++)
		if (p->gpu[i].end > t || p->gpu[i].ts >= t)
			p->gpu[k++] = p->gpu[i];
	p->n_gpu = k;
}

static void flush_proc(struct ct_an *a, struct ct_an_proc *p, bool all)
{
	if (p->learning && all)
		period_known(p);
	if (p->learning)
		return; /* nothing is final before the steps are known */

	uint64_t final = all ? UINT64_MAX : a->watermark > a->o.lag_ns ? a->watermark - a->o.lag_ns : 0;
	size_t done = 0;

	while (done < p->n_steps && p->steps[done].end <= final) {
		analyse_step(a, p, p->steps[done].start, p->steps[done].end);
		done++;
	}
	if (done) {
		memmove(p->steps, p->steps + done, (p->n_steps - done) * sizeof(*p->steps));
		p->n_steps -= done;
	}
	if (all)
		return;
	/* Keep what a step found later may hold: from the first pending step,
	 * the open one, or a matching range seen in a call, less the lag. */
	uint64_t keep = final;

	if (p->n_steps && p->steps[0].start < keep)
		keep = p->steps[0].start;
	if (p->has_open && p->open_start < keep)
		keep = p->open_start;
	if (p->range_hint && p->range_hint < keep)
		keep = p->range_hint;
	keep = keep > a->o.lag_ns ? keep - a->o.lag_ns : 0;
	forget_before(p, keep);
}

static void flush(struct ct_an *a, bool all)
{
	struct ct_an_proc *p;

	a->since_flush = 0;
	for (size_t i = 0; ct_u64map_next(&a->procs, &i, NULL, (void **)&p);)
		flush_proc(a, p, all);
}

void ct_an_finish(struct ct_an *a)
{
	flush(a, true);
}
