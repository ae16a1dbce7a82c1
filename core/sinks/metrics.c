// SPDX-License-Identifier: MIT
/*
 * The metrics model (metrics.h): series in one array, found through an
 * open-addressing table of their keys; snapshots; the publisher.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sinks/hist.h"
#include "sinks/metrics.h"
#include "util/strbuf.h"

#define L(x) (1u << CT_ML_##x)
#define WHO_LABELS (L(CGROUP) | L(CONTAINER) | L(POD))
#define PROC_LABELS (L(PID) | L(COMM) | L(RANK) | L(JOB) | WHO_LABELS)
/* The device of the call, and its GPU (docs/gpu.md): bounded by the node's
 * GPUs and CT_MDEVICE_MAX, so never folded. */
#define DEVICE_LABELS (L(DEVICE) | L(GPU))
#define CALL_LABELS (L(PLUGIN) | L(API) | L(ERROR) | L(HOST) | PROC_LABELS | DEVICE_LABELS)

static const char *const label_names[CT_ML_N] = {
	[CT_ML_API] = "api", [CT_ML_CGROUP] = "cgroup", [CT_ML_COMM] = "comm",
	[CT_ML_CONTAINER] = "container", [CT_ML_DEVICE] = "device", [CT_ML_ERROR] = "error",
	[CT_ML_GPU] = "gpu", [CT_ML_HOST] = "host",
	[CT_ML_JOB] = "job", [CT_ML_KIND] = "kind", [CT_ML_MEMORY] = "memory", [CT_ML_PID] = "pid",
	[CT_ML_PLUGIN] = "plugin", [CT_ML_POD] = "pod", [CT_ML_RANK] = "rank",
};

/* What `labels =` may name: the kinds are part of their families. */
#define CONFIGURABLE (CALL_LABELS)

const struct ct_mfamily ct_mfamilies[CT_MF_N] = {
	[CT_MF_CALLS] = { "cudatracer_calls_total",
			  "Calls to the traced runtimes' APIs; error=\"true\": the call returned an error code",
			  "1", CT_MT_COUNTER, CALL_LABELS, 0 },
	[CT_MF_DURATION] = { "cudatracer_call_duration_seconds",
			     "Time the calls took on the calling thread (APIs recorded at entry only have none)",
			     "s", CT_MT_HISTOGRAM, CALL_LABELS, 0 },
	[CT_MF_BYTES] = { "cudatracer_bytes_moved_total",
			  "Bytes copied or set by calls that succeeded, by copy kind (\"\": the API has none)",
			  "By", CT_MT_COUNTER, CALL_LABELS & ~L(ERROR), L(KIND) },
	[CT_MF_MEMORY] = { "cudatracer_memory_in_use_bytes",
			   "Memory allocated through the traced calls and not yet freed, by memory kind",
			   "By", CT_MT_GAUGE, L(PLUGIN) | L(HOST) | PROC_LABELS, L(MEMORY) },
	[CT_MF_ALLOCS] = { "cudatracer_allocations_outstanding",
			   "Allocations made through the traced calls and not yet freed",
			   "1", CT_MT_GAUGE, L(PLUGIN) | L(HOST) | PROC_LABELS, 0 },
	[CT_MF_LOST] = { "cudatracer_records_lost_total",
			 "Records the kernel could not put in the ring buffer (raise --ringbuf-size or [tracer] ringbuf_size)",
			 "1", CT_MT_COUNTER, L(HOST), 0 },
	[CT_MF_PROBES] = { "cudatracer_probes_attached",
			   "Functions probed in the traced libraries, summed over the files", "1",
			   CT_MT_GAUGE, L(HOST), 0 },
	[CT_MF_FOLDED] = { "cudatracer_series_dropped_total",
			   "Updates whose label set found no room under max_series and went to a series "
			   "whose per-process labels (pid, comm, rank, job, cgroup, container, pod) are \"other\"", "1", CT_MT_COUNTER, L(HOST), 0 },
	[CT_MF_EXPORT_FAILED] = { "cudatracer_export_failures_total",
				  "Pushes of this sink that failed (refused, timed out, or answered 4xx/5xx)",
				  "1", CT_MT_COUNTER, L(HOST), 0 },
	[CT_MF_HUNG] = { "cudatracer_hung_calls",
			 "Collectives and synchronizations in flight past tracer.hang_timeout now (docs/events.md)",
			 "1", CT_MT_GAUGE, L(PLUGIN) | L(API) | L(HOST) | PROC_LABELS, 0 },
};

/* Prometheus's default buckets, spread down to a microsecond: runtime calls are short. */
const uint64_t ct_mbucket_ns[CT_MBUCKETS] = {
	1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
	1000000, 2500000, 5000000, 10000000, 25000000, 50000000, 100000000,
	250000000, 500000000, 1000000000, 2500000000ull, 5000000000ull, 10000000000ull,
};
const char *const ct_mbucket_le[CT_MBUCKETS] = {
	"1e-06", "2.5e-06", "5e-06", "1e-05", "2.5e-05", "5e-05", "0.0001", "0.00025", "0.0005",
	"0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10",
};

#define NO_HIST UINT32_MAX

_Static_assert(sizeof(struct ct_mkey) == 80, "keys are hashed as ten words");

int ct_metrics_check_labels(const void *dst, char *why, size_t why_len)
{
	const struct ct_list *l = dst;

	for (size_t i = 0; i < l->n; i++) {
		int k;

		for (k = 0; k < CT_ML_N; k++)
			if ((CONFIGURABLE & (1u << k)) && !strcmp(l->v[i], label_names[k]))
				break;
		if (k == CT_ML_N) {
			snprintf(why, why_len, "unknown label '%s' (known: plugin, api, error, pid, comm, "
				 "host, rank, job, cgroup, container, pod)", l->v[i]);
			return -EINVAL;
		}
	}
	return 0;
}

int ct_metrics_init(struct ct_metrics *m, const struct ct_metrics_conf *conf, uint64_t now_ns)
{
	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < conf->labels.n; i++)
		for (int k = 0; k < CT_ML_N; k++)
			if (!strcmp(conf->labels.v[i], label_names[k]))
				m->labels |= 1u << k;
	m->max_series = conf->max_series;
	m->exited_grace = conf->exited_grace;
	m->start_ns = now_ns;
	if (gethostname(m->host, sizeof(m->host) - 1))
		strcpy(m->host, "localhost");
	m->n_slots = 1024;
	m->slots = calloc(m->n_slots, sizeof(*m->slots));
	return m->slots ? 0 : -ENOMEM;
}

void ct_metrics_free(struct ct_metrics *m)
{
	uint64_t k;
	void *v;

	for (size_t it = 0; ct_u64map_next(&m->procs, &it, &k, &v);)
		free(v);
	for (size_t it = 0; ct_u64map_next(&m->prev, &it, &k, &v);)
		free(v);
	for (size_t it = 0; ct_u64map_next(&m->strs, &it, &k, &v);)
		free(v);
	for (size_t it = 0; ct_u64map_next(&m->whos, &it, &k, &v);)
		free(v);
	ct_u64map_free(&m->whos);
	ct_u64map_free(&m->who_of);
	ct_u64map_free(&m->procs);
	ct_u64map_free(&m->prev);
	ct_u64map_free(&m->strs);
	ct_u64map_free(&m->exited);
	ct_memtrack_free(&m->mem);
	free(m->v);
	free(m->h);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

/* ---- the series table ---- */

/* Four independent multiplies, then one mix: no chain of ten through the
 * multiplier (the ninth and tenth words join the first two). */
static uint64_t key_hash(const struct ct_mkey *k)
{
	const uint64_t *w = (const uint64_t *)k;
	uint64_t h = (w[0] ^ (w[8] << 7 | w[8] >> 57) ^ 0x9e3779b97f4a7c15ull) *
			     (w[1] ^ (w[9] << 19 | w[9] >> 45) ^ 0xc2b2ae3d27d4eb4full) +
		     (w[2] ^ 0x165667b19e3779f9ull) * (w[3] ^ 0x27d4eb2f165667c5ull) +
		     (w[4] ^ 0x85ebca77c2b2ae63ull) * (w[5] ^ 0xff51afd7ed558ccdull) +
		     (w[6] ^ 0xc4ceb9fe1a85ec53ull) * (w[7] ^ 0x94d049bb133111ebull);

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static int rehash(struct ct_metrics *m)
{
	size_t n = m->n_slots * 2;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		size_t j = key_hash(&m->v[i].k) & (n - 1);

		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(m->slots);
	m->slots = s;
	m->n_slots = n;
	return 0;
}

/* Word by word, inlined: this is the hot path's compare. */
static bool key_equal(const struct ct_mkey *a, const struct ct_mkey *b)
{
	const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
	uint64_t d = 0;

	for (size_t i = 0; i < sizeof(*a) / 8; i++)
		d |= x[i] ^ y[i];
	return !d;
}

static struct ct_mseries *lookup(struct ct_metrics *m, const struct ct_mkey *k, size_t *slot)
{
	size_t j = key_hash(k) & (m->n_slots - 1);

	while (m->slots[j]) {
		struct ct_mseries *x = &m->v[m->slots[j] - 1];

		if (key_equal(&x->k, k))
			return x;
		j = (j + 1) & (m->n_slots - 1);
	}
	*slot = j;
	return NULL;
}

static struct ct_mseries *insert(struct ct_metrics *m, const struct ct_mkey *k, size_t slot)
{
	struct ct_mseries *x;

	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		void *v = realloc(m->v, cap * sizeof(*m->v));

		if (!v)
			return NULL;
		m->v = v;
		m->cap = cap;
	}
	x = &m->v[m->n];
	memset(x, 0, sizeof(*x));
	x->k = *k;
	x->hist = NO_HIST;
	m->slots[slot] = (uint32_t)++m->n;
	if (2 * m->n > m->n_slots && rehash(m))
		return NULL; /* the table stays as it was, still consistent */
	return &m->v[m->n - 1];
}

/*
 * A call series' durations. They live with its count, so that one look-up
 * serves both; the snapshot shows them as the duration family.
 */
static struct ct_mhist *hist_of(struct ct_metrics *m, struct ct_mseries *x)
{
	if (x->hist == NO_HIST) {
		if (m->n_h == m->cap_h) {
			size_t cap = m->cap_h ? m->cap_h * 2 : 64;
			void *h = realloc(m->h, cap * sizeof(*m->h));

			if (!h)
				return NULL;
			m->h = h;
			m->cap_h = cap;
		}
		memset(&m->h[m->n_h], 0, sizeof(*m->h));
		x->hist = (uint32_t)m->n_h++;
	}
	return &m->h[x->hist];
}

/*
 * The series of key k, made if new. Past max_series a new label set is
 * folded: its per-process labels become "other" (the runtimes' tables
 * bound what is left, so folded series need no cap of their own).
 */
static struct ct_mseries *series(struct ct_metrics *m, struct ct_mkey *k, bool capped)
{
	struct ct_mseries *x;
	size_t slot;

	x = lookup(m, k, &slot);
	if (x)
		return x;
	if (capped && m->n_capped >= m->max_series) {
		m->folded++;
		k->pid = 0;
		k->rank = 0;
		k->job = NULL;
		k->who = NULL;
		memset(k->comm, 0, sizeof(k->comm));
		k->folded = 1;
		x = lookup(m, k, &slot);
		if (x)
			return x;
		capped = false;
	}
	x = insert(m, k, slot);
	if (x && capped)
		m->n_capped++;
	return x;
}

/* A string the model keeps (a copy kind without a name, a job id), at most 4096 of them. */
static const char *intern(struct ct_metrics *m, const char *s)
{
	uint64_t h = 1469598103934665603ull;
	char *v;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	for (;; h++) {
		v = ct_u64map_get(&m->strs, h);
		if (!v)
			break;
		if (!strcmp(v, s))
			return v;
	}
	if (m->strs.n >= 4096)
		return "other";
	v = strdup(s);
	if (!v || ct_u64map_put(&m->strs, h, v)) {
		free(v);
		return "other";
	}
	return v;
}

/* A string as a label value, at most cap - 1 bytes and a NUL: valid UTF-8
 * without controls (Prometheus refuses other bytes), anything else as '?'. */
static void label_text(char *dst, size_t cap, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t o = 0;

	while (p && *p && o < cap - 1) {
		int n = ct_text_keep(p);

		if (n == 0 || o + n > cap - 1) {
			dst[o++] = '?';
			p++;
			continue;
		}
		memcpy(dst + o, p, n);
		o += n;
		p += n;
	}
	dst[o] = 0;
}

static void set_comm(char *dst, const char *comm)
{
	label_text(dst, CT_COMM_LEN, comm);
}

/* A string as a label value, interned. */
static const char *intern_label(struct ct_metrics *m, const char *s)
{
	char buf[4096];

	label_text(buf, sizeof(buf), s);
	return intern(m, buf);
}

/* The most cgroup ids remembered, and label triples kept; past them a new
 * cgroup's values are "other" (the strings' own cap is intern()'s). */
#define WHO_MAX 4096
static const struct ct_mwho who_other = { "other", "other", "other" };

/* The cgroup's label values the configuration keeps, interned as a triple:
 * two cgroups with the same kept values (the container label alone, say)
 * are one series. */
static const struct ct_mwho *who_of(struct ct_metrics *m, const struct ct_cgroup *cg)
{
	struct ct_mwho w = { "", "", "" }, *x;
	uint32_t l = m->labels;
	uint64_t h;

	if (!cg || !(l & WHO_LABELS))
		return NULL;
	if (cg->id == m->who_id && m->who_last)
		return m->who_last;
	x = ct_u64map_get(&m->who_of, cg->id);
	if (!x) {
		if ((l & L(CGROUP)) && cg->path)
			w.cgroup = intern_label(m, cg->path);
		if ((l & L(CONTAINER)) && cg->container)
			w.container = intern_label(m, cg->container);
		if ((l & L(POD)) && cg->pod)
			w.pod = intern_label(m, cg->pod);
		/* nothing kept: the series of calls with no cgroup */
		if (!*w.cgroup && !*w.container && !*w.pod)
			return NULL;
		h = ((uintptr_t)w.cgroup * 0x9e3779b97f4a7c15ull) ^ ((uintptr_t)w.container * 0xc2b2ae3d27d4eb4full) ^
		    ((uintptr_t)w.pod * 0x165667b19e3779f9ull);
		for (;; h++) {
			x = ct_u64map_get(&m->whos, h);
			if (!x || (x->cgroup == w.cgroup && x->container == w.container && x->pod == w.pod))
				break;
		}
		if (!x && m->whos.n >= WHO_MAX)
			return &who_other;
		if (!x) {
			x = malloc(sizeof(*x));
			if (!x || ct_u64map_put(&m->whos, h, x)) {
				free(x);
				return &who_other;
			}
			*x = w;
		}
		if (m->who_of.n < WHO_MAX && ct_u64map_put(&m->who_of, cg->id, x))
			return x;
	}
	m->who_id = cg->id;
	m->who_last = x;
	return x;
}

/* The label values of a call's series that the configuration keeps. */
static void call_key(struct ct_metrics *m, struct ct_mkey *k, const struct ct_event *ev)
{
	uint32_t l = m->labels;

	memset(k, 0, sizeof(*k));
	if (l & L(PLUGIN))
		k->plugin = ev->plugin->name;
	if (l & L(API))
		k->api = ev->api ? ev->api->symbol : "unknown";
	if (l & L(ERROR))
		k->error = ev->is_error;
	if (l & L(PID))
		k->pid = ev->pid;
	if ((l & L(COMM)) && ev->comm) {
		/* a thread's calls come in runs: its name is checked once a run */
		if (strncmp(ev->comm, m->comm_raw, CT_COMM_LEN)) {
			memset(m->comm_raw, 0, CT_COMM_LEN);
			memcpy(m->comm_raw, ev->comm, strnlen(ev->comm, CT_COMM_LEN - 1));
			memset(m->comm, 0, CT_COMM_LEN);
			set_comm(m->comm, ev->comm);
		}
		memcpy(k->comm, m->comm, CT_COMM_LEN);
	}
	if (ev->env && (l & L(RANK)))
		k->rank = ev->env->rank + 1; /* 0: not known */
	if (ev->env && (l & L(JOB)) && ev->env->job_id[0])
		k->job = intern(m, ev->env->job_id);
	k->who = who_of(m, ev->cgroup);
	if ((l & L(DEVICE)) && ev->device >= 0)
		k->device = ev->device < CT_MDEVICE_MAX ? (uint8_t)(ev->device + 1) : CT_MDEVICE_OTHER;
	if ((l & L(GPU)) && ev->gpu)
		k->gpu = intern_label(m, ev->gpu->uuid);
}

static unsigned bucket_of(uint64_t ns)
{
	unsigned i = 0;

	while (i < CT_MBUCKETS && ns > ct_mbucket_ns[i])
		i++;
	return i;
}

struct mproc {
	int32_t rank; /* + 1; 0: not known */
	const char *job;
	const struct ct_mwho *who;
};

/* For the memory series, which memtrack keys by pid alone. */
static int remember_proc(struct ct_metrics *m, const struct ct_event *ev)
{
	struct mproc *p;

	bool env = ev->env && (m->labels & (L(RANK) | L(JOB)));
	const struct ct_mwho *who = who_of(m, ev->cgroup);

	if ((!env && !who) || ct_u64map_get(&m->procs, ev->pid))
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->rank = env ? ev->env->rank + 1 : 0;
	p->job = env && ev->env->job_id[0] ? intern(m, ev->env->job_id) : NULL;
	p->who = who;
	if (ct_u64map_put(&m->procs, ev->pid, p)) {
		free(p);
		return -ENOMEM;
	}
	return 0;
}

int ct_metrics_event(struct ct_metrics *m, const struct ct_event *ev)
{
	uint32_t flags = ev->api ? ev->api->flags : 0;
	struct ct_mkey k, base;
	struct ct_mseries *x;

	/* A call begun after the exit was heard: the pid is someone's again. One
	 * begun before it is the ended process's own, read late (its exit came
	 * through the watcher's ring first): its series still go after the grace
	 * (before, such a call kept them for good: the soak's "series kept past
	 * the grace"). */
	if (ev->pid != m->last_live) {
		void *at = m->exited.n ? ct_u64map_get(&m->exited, ev->pid) : NULL;

		if (at && ev->ts_ns > (uint64_t)(uintptr_t)at)
			ct_u64map_del(&m->exited, ev->pid);
		else if (at)
			goto late; /* not the last live: its next call is looked at again */
		m->last_live = ev->pid;
	}
late:
	call_key(m, &base, ev);
	k = base;
	k.fam = CT_MF_CALLS;
	x = series(m, &k, true);
	if (!x)
		return -ENOMEM;
	x->v++;
	if (!ev->entry_only) {
		struct ct_mhist *h = hist_of(m, x);

		if (!h)
			return -ENOMEM;
		h->count++;
		h->sum_ns += ev->dur_ns;
		h->b[bucket_of(ev->dur_ns)]++;
	}
	if (ev->is_error)
		return 0;
	if (flags & CT_API_MOVES_BYTES) {
		const struct ct_field *f = ct_event_role(ev, CT_ROLE_COPY_KIND);

		k = base;
		k.fam = CT_MF_BYTES;
		k.error = 0;
		k.kind = "";
		if (f && f->enum_name) {
			k.kind = f->enum_name;
		} else if (f) {
			char num[24];

			snprintf(num, sizeof(num), "%lld", (long long)f->v);
			k.kind = intern(m, num);
		}
		x = series(m, &k, true);
		if (!x)
			return -ENOMEM;
		x->v += ct_event_bytes(ev);
	}
	if (flags & (CT_API_ALLOC | CT_API_FREE | CT_API_RETAIN)) {
		int err = ct_memtrack_event(&m->mem, ev, NULL);

		if (!err)
			err = remember_proc(m, ev);
		return err;
	}
	return 0;
}

/* A call stuck past tracer.hang_timeout counts in its series until it ends. */
int ct_metrics_hang(struct ct_metrics *m, const struct ct_hang *h)
{
	struct ct_mkey k;
	struct ct_mseries *x;

	call_key(m, &k, h->call);
	k.fam = CT_MF_HUNG;
	k.error = 0;
	x = series(m, &k, true);
	if (!x)
		return -ENOMEM;
	if (h->state == CT_HANG_STUCK)
		x->v++;
	else if (x->v)
		x->v--;
	return 0;
}

/* ---- aggregate mode ---- */

struct mprev {
	uint64_t calls, errors, bytes, total_ns;
	uint64_t b[CT_MBUCKETS + 1];
};

static int plugin_number(struct ct_metrics *m, const struct ct_plugin *p)
{
	for (unsigned i = 0; i < m->n_plugins; i++)
		if (m->plugins[i] == p)
			return (int)i;
	if (m->n_plugins == 64)
		return -E2BIG;
	m->plugins[m->n_plugins] = p;
	return (int)m->n_plugins++;
}

int ct_metrics_totals(struct ct_metrics *m, const struct ct_totals *t)
{
	const struct ct_api *api = t->api_idx < t->plugin->n_apis ? &t->plugin->apis[t->api_idx] : NULL;
	struct ct_event ev = { .plugin = t->plugin, .api = api, .pid = t->pid, .comm = t->comm,
			       .env = t->env, .cgroup = t->cgroup, .device = t->device_from ? t->device : -1,
			       .gpu = t->gpu };
	uint64_t b[CT_MBUCKETS + 1] = { 0 }, key;
	struct ct_mkey base, k;
	struct ct_mseries *x;
	struct mprev *p;
	int pn = plugin_number(m, t->plugin);

	if (pn < 0)
		return pn;
	key = (uint64_t)t->pid << 32 | (uint64_t)pn << 24 | (t->api_idx & 0xffffff);
	p = ct_u64map_get(&m->prev, key);
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p || ct_u64map_put(&m->prev, key, p)) {
			free(p);
			return -ENOMEM;
		}
	}
	/* The kernel's log-linear buckets, each put where its upper end falls. */
	for (unsigned i = 0; t->timed && i < t->n_hist; i++)
		b[bucket_of(ct_hist_bucket_high(i))] += t->hist[i];
	for (int e = 0; e < 2; e++) {
		uint64_t now = e ? t->errors : t->calls - t->errors;
		uint64_t before = e ? p->errors : p->calls - p->errors;
		struct ct_mhist *h;

		ev.is_error = e;
		call_key(m, &base, &ev);
		k = base;
		k.fam = CT_MF_CALLS;
		x = series(m, &k, true);
		if (!x)
			return -ENOMEM;
		x->v += now - before;
		if (e || !t->timed)
			continue;
		/* the kernel does not tell failed calls' durations apart: all go with error="false" */
		h = hist_of(m, x);
		if (!h)
			return -ENOMEM;
		for (int i = 0; i <= CT_MBUCKETS; i++) {
			h->b[i] += b[i] - p->b[i];
			h->count += b[i] - p->b[i];
		}
		h->sum_ns += t->total_ns - p->total_ns;
	}
	ev.is_error = false;
	call_key(m, &base, &ev);
	if (api && (api->flags & CT_API_MOVES_BYTES) && t->bytes != p->bytes) {
		k = base;
		k.fam = CT_MF_BYTES;
		k.kind = ""; /* the kernel does not count by kind */
		x = series(m, &k, true);
		if (!x)
			return -ENOMEM;
		x->v += t->bytes - p->bytes;
	}
	p->calls = t->calls;
	p->errors = t->errors;
	p->bytes = t->bytes;
	p->total_ns = t->total_ns;
	memcpy(p->b, b, sizeof(b));
	return 0;
}

/* ---- label-less series and the run's counters ---- */

void ct_metrics_set(struct ct_metrics *m, enum ct_mfam fam, uint64_t v)
{
	struct ct_mkey k = { .fam = fam };
	struct ct_mseries *x = series(m, &k, false);

	if (x)
		x->v = v;
}

void ct_metrics_stats(struct ct_metrics *m, const struct ct_run_stats *st)
{
	ct_metrics_set(m, CT_MF_LOST, st->lost);
	ct_metrics_set(m, CT_MF_PROBES, st->probes);
}

void ct_metrics_proc_exit(struct ct_metrics *m, uint32_t pid)
{
	/* Its memory is gone with it; its counters stay (they are cumulative). */
	ct_memtrack_drop_pid(&m->mem, pid);
	free(ct_u64map_del(&m->procs, pid));
}

/* ---- exited processes ---- */

void ct_metrics_exit_note(struct ct_metrics *m, uint32_t pid, uint64_t ts_ns)
{
	if (!(m->labels & L(PID)) || ct_u64map_put(&m->exited, pid, (void *)(uintptr_t)ts_ns))
		return; /* without a pid label no series is one process's; out of memory: kept */
	if (m->last_live == pid)
		m->last_live = 0;
}

/*
 * Series of the pids in `gone` leave the table; what is left is moved down,
 * the durations with their counts, and the slots are written again. Once a
 * grace period for a batch of exits: the table is walked, not searched.
 */
static void drop_pids(struct ct_metrics *m, const struct ct_u64map *gone)
{
	size_t w = 0, wh = 0;
	uint64_t key;
	void *val;

	for (size_t i = 0; i < m->n; i++) {
		struct ct_mseries x = m->v[i];

		if (x.k.pid && !x.k.folded && ct_u64map_get(gone, x.k.pid)) {
			m->n_capped--;
			continue;
		}
		/* a series takes its hist when it is made, so hists are in the
		 * series' order and wh <= x.hist: moved down in place */
		if (x.hist != NO_HIST) {
			m->h[wh] = m->h[x.hist];
			x.hist = (uint32_t)wh++;
		}
		m->v[w++] = x;
	}
	m->n = w;
	m->n_h = wh;
	memset(m->slots, 0, m->n_slots * sizeof(*m->slots));
	for (size_t i = 0; i < m->n; i++) {
		size_t j = key_hash(&m->v[i].k) & (m->n_slots - 1);

		while (m->slots[j])
			j = (j + 1) & (m->n_slots - 1);
		m->slots[j] = (uint32_t)i + 1;
	}
	/* aggregate mode's counts before, keyed (pid, plugin, api) */
	for (size_t it = 0; ct_u64map_next(&m->prev, &it, &key, &val);) {
		if (ct_u64map_get(gone, key >> 32)) {
			free(ct_u64map_del(&m->prev, key));
			it = 0; /* a delete may move entries: start over (rare: at expiry) */
		}
	}
}

void ct_metrics_expire(struct ct_metrics *m, uint64_t now_ns)
{
	struct ct_u64map gone = { 0 };
	uint64_t pid;
	void *at;

	if (!m->exited.n)
		return;
	for (size_t it = 0; ct_u64map_next(&m->exited, &it, &pid, &at);)
		if ((uint64_t)(uintptr_t)at + m->exited_grace <= now_ns && ct_u64map_put(&gone, pid, (void *)1))
			break; /* out of memory: the rest at the next tick */
	if (gone.n) {
		drop_pids(m, &gone);
		for (size_t it = 0; ct_u64map_next(&gone, &it, &pid, &at);)
			ct_u64map_del(&m->exited, pid);
	}
	ct_u64map_free(&gone);
}

/* The memory gauges are the books of memtrack, read now. */
static void memory_gauges(struct ct_metrics *m)
{
	uint64_t key;
	void *val;

	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].k.fam == CT_MF_MEMORY || m->v[i].k.fam == CT_MF_ALLOCS)
			m->v[i].v = 0;
	for (size_t it = 0; ct_u64map_next(&m->mem.spaces, &it, &key, &val);) {
		const struct ct_mem_space *sp = val;
		const struct mproc *p = ct_u64map_get(&m->procs, sp->pid);
		struct ct_mkey base = { 0 }, k;
		struct ct_mseries *x;

		if (m->labels & L(PLUGIN))
			base.plugin = sp->plugin;
		if (m->labels & L(PID))
			base.pid = sp->pid;
		if (m->labels & L(COMM))
			set_comm(base.comm, sp->comm);
		if (p && (m->labels & L(RANK)))
			base.rank = p->rank;
		if (p && (m->labels & L(JOB)))
			base.job = p->job;
		if (p)
			base.who = p->who;
		for (unsigned kind = 0; kind < CT_MEM_KINDS; kind++) {
			k = base;
			k.fam = CT_MF_MEMORY;
			k.memory = (uint8_t)kind;
			x = series(m, &k, true);
			if (x)
				x->v += sp->in_use[kind];
		}
		k = base;
		k.fam = CT_MF_ALLOCS;
		x = series(m, &k, true);
		if (x)
			x->v += sp->live.n;
	}
}

struct ct_msnap *ct_metrics_snapshot(struct ct_metrics *m, uint64_t now_ns)
{
	struct ct_msnap *s;
	size_t at[CT_MF_N] = { 0 };

	memory_gauges(m);
	ct_metrics_set(m, CT_MF_FOLDED, m->folded);
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->refs = 1;
	s->time_ns = now_ns;
	s->start_ns = m->start_ns;
	s->host = m->host;
	s->labels = m->labels;
	s->n = m->n + m->n_h;
	s->v = malloc((s->n ? s->n : 1) * sizeof(*s->v));
	s->h = malloc((m->n_h ? m->n_h : 1) * sizeof(*s->h));
	if (!s->v || !s->h) {
		ct_msnap_put(s);
		return NULL;
	}
	if (m->n_h) /* memcpy of nothing from NULL is still undefined */
		memcpy(s->h, m->h, m->n_h * sizeof(*s->h));
	/* grouped by family: the exposition format wants a family's lines together;
	 * a call series with durations is also the duration family's series */
	for (size_t i = 0; i < m->n; i++) {
		s->fam_start[m->v[i].k.fam + 1]++;
		s->fam_start[CT_MF_DURATION + 1] += m->v[i].hist != NO_HIST;
	}
	for (int f = 0; f < CT_MF_N; f++) {
		s->fam_start[f + 1] += s->fam_start[f];
		at[f] = s->fam_start[f];
	}
	for (size_t i = 0; i < m->n; i++) {
		s->v[at[m->v[i].k.fam]++] = m->v[i];
		if (m->v[i].hist != NO_HIST) {
			struct ct_mseries *d = &s->v[at[CT_MF_DURATION]++];

			*d = m->v[i];
			d->k.fam = CT_MF_DURATION;
		}
	}
	return s;
}

void ct_msnap_put(struct ct_msnap *s)
{
	if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL))
		return;
	free(s->v);
	free(s->h);
	free(s);
}

int ct_msnap_labels(const struct ct_msnap *s, const struct ct_mseries *x, const char *names[CT_ML_N],
		    const char *vals[CT_ML_N], char buf[CT_MLABEL_BUF])
{
	const struct ct_mfamily *f = &ct_mfamilies[x->k.fam];
	uint32_t on = (f->may & s->labels) | f->always;
	const struct ct_mkey *k = &x->k;
	char *w = buf;
	int n = 0;

	for (int l = 0; l < CT_ML_N; l++) {
		const char *v = "";

		if (!(on & (1u << l)))
			continue;
		switch (l) {
		case CT_ML_API: v = k->api; break;
		case CT_ML_COMM: v = k->folded ? "other" : k->comm; break;
		case CT_ML_ERROR: v = k->error ? "true" : "false"; break;
		case CT_ML_HOST: v = s->host; break;
		case CT_ML_JOB: v = k->folded ? "other" : k->job; break;
		case CT_ML_KIND: v = k->kind; break;
		case CT_ML_MEMORY: v = ct_mem_kind_name(k->memory); break;
		case CT_ML_PLUGIN: v = k->plugin; break;
		case CT_ML_GPU: v = k->gpu; break;
		case CT_ML_DEVICE:
			if (k->device == CT_MDEVICE_OTHER) {
				v = "other";
			} else if (k->device) {
				v = w;
				w = ct_w_u64(w, k->device - 1u);
				*w++ = 0;
			}
			break;
		case CT_ML_CGROUP: v = k->folded ? "other" : k->who ? k->who->cgroup : ""; break;
		case CT_ML_CONTAINER: v = k->folded ? "other" : k->who ? k->who->container : ""; break;
		case CT_ML_POD: v = k->folded ? "other" : k->who ? k->who->pod : ""; break;
		case CT_ML_PID:
		case CT_ML_RANK: {
			uint64_t num = l == CT_ML_PID ? k->pid : (uint64_t)(k->rank - 1);

			if (k->folded) {
				v = "other";
			} else if (l == CT_ML_RANK && k->rank == 0) {
				v = "";
			} else {
				v = w;
				w = ct_w_u64(w, num);
				*w++ = 0;
			}
			break;
		}
		}
		names[n] = label_names[l];
		vals[n++] = v ? v : "";
	}
	return n;
}

/* ---- the sinks' shared callbacks ---- */

int ct_metric_sink_init(struct ct_metric_sink *ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ct_metrics_init(&ms->m, &ms->mc, ts.tv_sec * 1000000000ull + ts.tv_nsec);
}

int ct_metric_sink_event(void *ctx, const struct ct_event *ev)
{
	return ct_metrics_event(&((struct ct_metric_sink *)ctx)->m, ev);
}

int ct_metric_sink_hang(void *ctx, const struct ct_hang *h)
{
	return ct_metrics_hang(&((struct ct_metric_sink *)ctx)->m, h);
}

int ct_metric_sink_totals(void *ctx, const struct ct_totals *t)
{
	return ct_metrics_totals(&((struct ct_metric_sink *)ctx)->m, t);
}

void ct_metric_sink_stats(void *ctx, const struct ct_run_stats *st)
{
	((struct ct_metric_sink *)ctx)->st = *st;
}

void ct_metric_sink_proc_exit(void *ctx, uint32_t pid, uint64_t ts_ns)
{
	ct_metrics_proc_exit(&((struct ct_metric_sink *)ctx)->m, pid);
	ct_metrics_exit_note(&((struct ct_metric_sink *)ctx)->m, pid, ts_ns);
}

/* ---- publishing ---- */

void ct_mpub_init(struct ct_mpub *p)
{
	pthread_mutex_init(&p->lock, NULL);
	p->cur = NULL;
}

void ct_mpub_set(struct ct_mpub *p, struct ct_msnap *s)
{
	struct ct_msnap *old;

	if (!s)
		return;
	pthread_mutex_lock(&p->lock);
	old = p->cur;
	p->cur = s;
	pthread_mutex_unlock(&p->lock);
	ct_msnap_put(old);
}

struct ct_msnap *ct_mpub_get(struct ct_mpub *p)
{
	struct ct_msnap *s;

	pthread_mutex_lock(&p->lock);
	s = p->cur;
	if (s)
		__atomic_add_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&p->lock);
	return s;
}

void ct_mpub_free(struct ct_mpub *p)
{
	ct_msnap_put(p->cur);
	p->cur = NULL;
	pthread_mutex_destroy(&p->lock);
}
