// SPDX-License-Identifier: MIT
/*
 * Reading the inputs of `cudatracer merge`: each a jsonl trace that begins
 * with its meta line (report/tracefile.c reads it, plain or gzip). Refused, with the file and line: a file that cannot be
 * read, one without a meta line, a line that is not whole JSON (a trace cut
 * short), two processes that say they are the same rank of one job, the
 * same process in two inputs, processes of different jobs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report/json.h"
#include "report/replay.h"
#include "report/tracefile.h"
#include "merge/merge.h"
#include "util/log.h"

/* What one line says, before it is filed. */
struct line {
	bool meta, has_ts, has_parent;
	char kind[16], comm[32], job_id[64];
	uint32_t pid;
	int32_t rank, local_rank, world_size;
	struct ct_mevent ev;
	const char *args_from, *args_to;
};

static int line_key(void *ctx, const char *key, struct ct_jp *j)
{
	struct line *l = ctx;
	struct ct_mevent *e = &l->ev;

	if (!strcmp(key, "kind")) {
		if (ct_jp_string(j, l->kind, sizeof(l->kind)))
			return -EINVAL;
		l->meta = !strcmp(l->kind, "meta");
		return 0;
	}
	if (!strcmp(key, "ts_ns"))
		return l->has_ts = true, ct_jp_u64(j, &e->ts_ns);
	if (!strcmp(key, "dur_ns"))
		return ct_jp_u64(j, &e->dur_ns);
	if (!strcmp(key, "pid"))
		return ct_jp_u32(j, &l->pid);
	if (!strcmp(key, "tid"))
		return ct_jp_u32(j, &e->tid);
	if (!strcmp(key, "depth"))
		return ct_jp_u32(j, &e->depth);
	if (!strcmp(key, "api"))
		return ct_jp_string(j, e->api, sizeof(e->api));
	if (!strcmp(key, "plugin"))
		return ct_jp_string(j, e->plugin, sizeof(e->plugin));
	if (!strcmp(key, "comm"))
		return ct_jp_string(j, l->comm, sizeof(l->comm));
	if (!strcmp(key, "result_name") && *j->p == '"')
		return ct_jp_string(j, e->result_name, sizeof(e->result_name));
	if (!strcmp(key, "error"))
		return ct_jp_bool(j, &e->error);
	if (!strcmp(key, "entry_only"))
		return ct_jp_bool(j, &e->entry_only);
	if (!strcmp(key, "bytes"))
		return ct_jp_u64(j, &e->bytes);
	if (!strcmp(key, "rank"))
		return ct_jp_i32(j, &l->rank);
	if (!strcmp(key, "local_rank"))
		return ct_jp_i32(j, &l->local_rank);
	if (!strcmp(key, "world_size"))
		return ct_jp_i32(j, &l->world_size);
	if (!strcmp(key, "job_id"))
		return ct_jp_string(j, l->job_id, sizeof(l->job_id));
	if (!strcmp(key, "parent"))
		return l->has_parent = true, 1;
	if (!strcmp(key, "communicator")) {
		struct ct_comm_info c;

		if (ct_replay_comm(j, &c))
			return -EINVAL;
		e->comm_rank = c.rank;
		e->comm_nranks = c.nranks;
		e->comm_id = c.id;
		e->comm_seq = c.seq;
		return 0;
	}
	if (!strcmp(key, "args")) {
		l->args_from = j->p;
		if (ct_jp_skip(j))
			return -EINVAL;
		l->args_to = j->p;
		return 0;
	}
	return 1;
}

static int parse_line(const char *text, size_t len, struct line *l)
{
	struct ct_jp j = { text, text + len };

	memset(l, 0, sizeof(*l));
	l->rank = l->local_rank = l->world_size = -1;
	l->ev.comm_rank = l->ev.comm_nranks = -1;
	if (ct_jp_object(&j, line_key, l) || !ct_jp_at_end(&j))
		return -EINVAL;
	return 0;
}

static int grow(void **v, size_t n, size_t size)
{
	void *nv;

	if (n && (n < 16 || (n & (n - 1))))
		return 0; /* room left: capacities are powers of two from 16 */
	nv = realloc(*v, (n < 16 ? 16 : n * 2) * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	return 0;
}

/* The process of (trace, pid); a new one from this line if first seen. */
static int proc_of(struct ct_merge *m, int trace, const struct line *l)
{
	uint64_t key = (uint64_t)trace << 32 | l->pid;
	uintptr_t known = (uintptr_t)ct_u64map_get(&m->proc_idx, key);
	struct ct_mproc *p;

	if (known)
		return (int)(known - 1);
	if (grow((void **)&m->procs, m->n_procs, sizeof(*m->procs)) ||
	    ct_u64map_put(&m->proc_idx, key, (void *)(uintptr_t)(m->n_procs + 1)))
		return -ENOMEM;
	p = &m->procs[m->n_procs];
	*p = (struct ct_mproc){ .trace = trace, .pid = l->pid, .rank = l->rank,
				.local_rank = l->local_rank, .world_size = l->world_size };
	snprintf(p->comm, sizeof(p->comm), "%s", l->comm);
	snprintf(p->job_id, sizeof(p->job_id), "%s", l->job_id);
	return (int)m->n_procs++;
}

static int load_one(struct ct_merge *m, int ti)
{
	struct ct_mtrace *t = &m->traces[ti];
	struct ct_tracefile tf;
	const char *text;
	size_t len;
	struct line l;
	int err = ct_tracefile_open(&tf, t->path, "merge"), more;

	if (err) {
		ct_tracefile_close(&tf);
		return err;
	}
	snprintf(t->host, sizeof(t->host), "%s", tf.host);
	snprintf(t->boot_id, sizeof(t->boot_id), "%s", tf.boot_id);
	t->wall_offset_ns = tf.wall_offset_ns;
	t->first_ns = UINT64_MAX;
	while ((more = ct_tracefile_next(&tf, &text, &len)) > 0) {
		struct ct_mevent *e;
		int pi;

		if (parse_line(text, len, &l)) {
			ct_err("merge: %s:%ld: not a whole JSON object: the trace is damaged", t->path, tf.lineno);
			err = -EINVAL;
			break;
		}
		if (l.meta) {
			ct_err("merge: %s:%ld: a meta line after the first line", t->path, tf.lineno);
			err = -EINVAL;
			break;
		}
		/* A kind of line this merge does not know (GPU activity, kind gpu, has its own). */
		if (!l.has_ts || l.kind[0])
			continue;
		pi = proc_of(m, ti, &l);
		if (pi < 0 || grow((void **)&m->events, m->n_events, sizeof(*m->events))) {
			err = -ENOMEM;
			break;
		}
		e = &m->events[m->n_events];
		*e = l.ev;
		e->proc = pi;
		snprintf(e->comm, sizeof(e->comm), "%s", l.comm);
		e->nested = e->depth && !l.has_parent;
		e->collective = e->comm_id && e->comm_seq && !e->nested;
		e->args = NULL;
		if (l.args_from) {
			e->args = strndup(l.args_from, (size_t)(l.args_to - l.args_from));
			if (!e->args) {
				err = -ENOMEM;
				break;
			}
		}
		m->n_events++;
		if (e->ts_ns < t->first_ns)
			t->first_ns = e->ts_ns;
		if (e->ts_ns + e->dur_ns > t->last_ns)
			t->last_ns = e->ts_ns + e->dur_ns;
	}
	if (!err && more < 0)
		err = more;
	if (!err && t->first_ns == UINT64_MAX) {
		ct_err("merge: %s holds no calls", t->path);
		err = -EINVAL;
	}
	ct_tracefile_close(&tf);
	return err;
}

/* A process's identity across inputs: its pid, rank, host and boot. */
static uint64_t proc_key(const struct ct_mproc *p, const struct ct_mtrace *t)
{
	uint64_t h = 0xcbf29ce484222325ull ^ p->pid ^ (uint64_t)(uint32_t)p->rank << 32;

	for (const char *c = t->host; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	for (const char *c = t->boot_id; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	return h;
}

/* One job, each rank once, each process once: each process looked up among
 * those before it by rank and by identity, never compared with every one. */
static int check_procs(const struct ct_merge *m)
{
	const struct ct_mproc *job = NULL;
	struct ct_u64map ranks = { 0 }, ids = { 0 };
	int err = 0;

	for (size_t i = 0; i < m->n_procs && !err; i++) {
		const struct ct_mproc *p = &m->procs[i], *q;
		const struct ct_mtrace *tp = &m->traces[p->trace];
		uint64_t id = proc_key(p, tp);

		if (p->job_id[0] && job && strcmp(job->job_id, p->job_id)) {
			ct_err("merge: the inputs are from different jobs: job %s (%s) and job %s (%s)",
			       job->job_id, m->traces[job->trace].path, p->job_id, tp->path);
			err = -EINVAL;
			break;
		}
		if (p->job_id[0] && !job)
			job = p;
		if (p->rank >= 0 && (q = ct_u64map_get(&ranks, (uint32_t)p->rank))) {
			ct_err("merge: rank %d is in two inputs: pid %u in %s and pid %u in %s",
			       p->rank, q->pid, m->traces[q->trace].path, p->pid, tp->path);
			err = -EINVAL;
		} else if ((q = ct_u64map_get(&ids, id)) && p->pid == q->pid && p->trace != q->trace &&
			   p->rank == q->rank && !strcmp(tp->host, m->traces[q->trace].host) &&
			   !strcmp(tp->boot_id, m->traces[q->trace].boot_id)) {
			ct_err("merge: process %u of host %s is in two inputs: %s and %s",
			       p->pid, tp->host, m->traces[q->trace].path, tp->path);
			err = -EINVAL;
		} else if ((p->rank >= 0 && ct_u64map_put(&ranks, (uint32_t)p->rank, (void *)p)) ||
			   (!q && ct_u64map_put(&ids, id, (void *)p))) {
			err = -ENOMEM;
		}
	}
	ct_u64map_free(&ranks);
	ct_u64map_free(&ids);
	return err;
}

int ct_merge_load(struct ct_merge *m, char *const *paths, size_t n)
{
	int err = 0;

	m->traces = calloc(n, sizeof(*m->traces));
	if (!m->traces)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		m->traces[i].path = strdup(paths[i]);
		if (!m->traces[i].path)
			return -ENOMEM;
		m->n_traces++;
		err = load_one(m, (int)i);
		if (err)
			return err;
	}
	return check_procs(m);
}

void ct_merge_free(struct ct_merge *m)
{
	for (size_t i = 0; i < m->n_events; i++)
		free(m->events[i].args);
	free(m->events);
	for (size_t i = 0; i < m->n_traces; i++)
		free(m->traces[i].path);
	free(m->traces);
	free(m->procs);
	ct_u64map_free(&m->proc_idx);
	free(m->domains);
	memset(m, 0, sizeof(*m));
}
