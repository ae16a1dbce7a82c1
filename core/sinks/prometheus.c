// SPDX-License-Identifier: MIT
/*
 * prometheus sink: serves the metrics model (metrics.h) at
 * http://LISTEN/metrics in the text exposition format 0.0.4, from
 * libmicrohttpd's own thread. The reader publishes a snapshot about once a
 * second; a scrape takes a reference to the latest and formats it in the
 * HTTP thread, so a scrape never holds up the reader, however many series
 * it has. A port in use is said once and tried again every 10 s; tracing
 * goes on meanwhile. With `path`, the final values are also written there
 * as text at the end (e.g. for node_exporter's textfile collector).
 *
 * Any local user can connect, so no client may hold the server: at most
 * PER_ADDR_MAX connections from one address, and a connection whose request
 * has not been answered within REQUEST_NS of its start (or of its previous
 * answer) is cut, however often it sends a byte. libmicrohttpd's own
 * time-out is renewed by each byte: 70 clients trickling a byte every few
 * seconds held every slot and no scrape was answered.
 */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "sinks/endpoint.h"
#include "sinks/listeners.h"
#include "sinks/metrics.h"
#include "sinks/netlibs.h"
#include "sinks/sink.h"
#include "util/log.h"
#include "util/strbuf.h"

#define RETRY_NS 10000000000ull
#define CONN_MAX 64u
#define PER_ADDR_MAX 8u
#define IDLE_S 10u
#define REQUEST_NS 10000000000ull

/* A client's connection, followed from the HTTP thread's callbacks so that
 * the reader's tick can cut it once its deadline has passed. */
struct prom_conn {
	int fd;                 /* -1: a free slot */
	bool cut;
	uint64_t deadline_ns;   /* CLOCK_MONOTONIC */
};

struct prom_ctx {
	struct ct_metric_sink ms; /* first: the shared callbacks take the context as one */
	char *listen;
	char *http_path;
	struct ct_mpub pub;
	struct MHD_Daemon *d;
	char where[600];        /* http://host:port/path, once listening */
	uint64_t next_try_ns;
	bool said_busy;
	uint64_t scrapes;       /* served; counted in the HTTP thread */
	pthread_mutex_t conns_lock; /* conns: the HTTP thread's callbacks and the tick */
	struct prom_conn conns[CONN_MAX];
	uint64_t cut;           /* connections cut at their deadline */
};

static const struct ct_key prom_keys[] = {
	{ "listen", CT_KEY_STR, "127.0.0.1:9464", offsetof(struct prom_ctx, listen),
	  "ADDR:PORT to serve on ([v6]:PORT for IPv6; port 0: any free one; the address is said at the start)", NULL, ct_check_listen },
	{ "http_path", CT_KEY_STR, "/metrics", offsetof(struct prom_ctx, http_path),
	  "The URL path of the metrics" },
	CT_METRICS_KEYS(struct prom_ctx, ms.mc),
	{ 0 },
};

/* ---- the text exposition format, 0.0.4 ---- */

/* A label value or HELP text: backslash, newline (and in label values the
 * double quote) escaped as the format says. */
static bool put_escaped(struct ct_sb *b, const char *s, bool quote)
{
	size_t n = strlen(s);
	char *w;

	if (!ct_sb_room(b, 2 * n))
		return false;
	w = b->p + b->len;
	for (; *s; s++) {
		if (*s == '\\' || *s == '\n' || (quote && *s == '"')) {
			*w++ = '\\';
			*w++ = *s == '\n' ? 'n' : *s;
		} else {
			*w++ = *s;
		}
	}
	b->len = w - b->p;
	return true;
}

static bool put(struct ct_sb *b, const char *s)
{
	size_t n = strlen(s);

	if (!ct_sb_room(b, n))
		return false;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	return true;
}

static bool put_u64(struct ct_sb *b, uint64_t v)
{
	if (!ct_sb_room(b, 24))
		return false;
	b->len = ct_w_u64(b->p + b->len, v) - b->p;
	return true;
}

/* name{labels[,le="x"]} */
static bool put_series(struct ct_sb *b, const char *name, const char *suffix, int n,
		       const char *const *names, const char *const *vals, const char *le)
{
	bool ok = put(b, name) && put(b, suffix);

	if (n || le)
		ok = ok && put(b, "{");
	for (int i = 0; i < n && ok; i++)
		ok = put(b, i ? "," : "") && put(b, names[i]) && put(b, "=\"") &&
		     put_escaped(b, vals[i], true) && put(b, "\"");
	if (le)
		ok = ok && put(b, n ? ",le=\"" : "le=\"") && put(b, le) && put(b, "\"");
	if (n || le)
		ok = ok && put(b, "}");
	return ok && put(b, " ");
}

static bool put_hist(struct ct_sb *b, const char *name, int n, const char *const *names,
		     const char *const *vals, const struct ct_mhist *h)
{
	uint64_t cum = 0;
	char sum[40];
	bool ok = true;

	for (int i = 0; i <= CT_MBUCKETS && ok; i++) {
		cum += h->b[i];
		ok = put_series(b, name, "_bucket", n, names, vals, i < CT_MBUCKETS ? ct_mbucket_le[i] : "+Inf") &&
		     put_u64(b, cum) && put(b, "\n");
	}
	snprintf(sum, sizeof(sum), "%.9f\n", (double)h->sum_ns / 1e9);
	return ok && put_series(b, name, "_sum", n, names, vals, NULL) && put(b, sum) &&
	       put_series(b, name, "_count", n, names, vals, NULL) && put_u64(b, h->count) && put(b, "\n");
}

bool ct_prom_text(struct ct_sb *b, const struct ct_msnap *s)
{
	static const char *const types[] = { "counter", "gauge", "histogram" };
	bool ok = true;

	for (int f = 0; f < CT_MF_N && ok; f++) {
		const struct ct_mfamily *fam = &ct_mfamilies[f];

		if (s->fam_start[f] == s->fam_start[f + 1])
			continue;
		ok = put(b, "# HELP ") && put(b, fam->name) && put(b, " ") && put_escaped(b, fam->help, false) &&
		     put(b, "\n# TYPE ") && put(b, fam->name) && put(b, " ") && put(b, types[fam->type]) &&
		     put(b, "\n");
		for (size_t i = s->fam_start[f]; i < s->fam_start[f + 1] && ok; i++) {
			const struct ct_mseries *x = &s->v[i];
			const char *names[CT_ML_N], *vals[CT_ML_N];
			char buf[CT_MLABEL_BUF];
			int n = ct_msnap_labels(s, x, names, vals, buf);

			if (fam->type == CT_MT_HISTOGRAM)
				ok = put_hist(b, fam->name, n, names, vals, &s->h[x->hist]);
			else
				ok = put_series(b, fam->name, "", n, names, vals, NULL) && put_u64(b, x->v) &&
				     put(b, "\n");
		}
	}
	return ok;
}

int ct_metric_sink_final(struct ct_metric_sink *ms, uint64_t now_ns)
{
	struct ct_sb b = { 0 };
	struct ct_msnap *s;
	int err = 0;

	if (!ms->c.path)
		return 0;
	ct_metrics_stats(&ms->m, &ms->st);
	s = ct_metrics_snapshot(&ms->m, now_ns);
	if (!s || !ct_prom_text(&b, s))
		err = -ENOMEM;
	else if (b.len && fwrite(b.p, 1, b.len, ms->c.out) != b.len)
		err = -EIO;
	ct_msnap_put(s);
	ct_sb_free(&b);
	return err;
}

/* ---- the server ---- */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req)
{
	struct prom_ctx *p = cls;
	struct MHD_Response *r;
	struct ct_msnap *s;
	struct ct_sb b = { 0 };
	unsigned status = MHD_HTTP_OK;
	enum MHD_Result ret;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)req;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		put(&b, "cudatracer: only GET\n");
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
	} else if (strcmp(url, p->http_path)) {
		put(&b, "cudatracer: the metrics are at ");
		put(&b, p->http_path);
		put(&b, "\n");
		status = MHD_HTTP_NOT_FOUND;
	} else {
		s = ct_mpub_get(&p->pub);
		if (s && !ct_prom_text(&b, s))
			status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		ct_msnap_put(s);
		__atomic_add_fetch(&p->scrapes, 1, __ATOMIC_RELAXED);
	}
	r = ct_mhd.create_response_from_buffer(b.len, b.p ? b.p : (char *)"", b.p ? MHD_RESPMEM_MUST_FREE
										 : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		ct_sb_free(&b);
		return MHD_NO;
	}
	ct_mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				status == MHD_HTTP_OK ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain");
	ret = ct_mhd.queue_response(conn, status, r);
	ct_mhd.destroy_response(r);
	return ret;
}

/* ---- slow clients ---- */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **slot,
			  enum MHD_ConnectionNotificationCode what)
{
	struct prom_ctx *p = cls;
	const union MHD_ConnectionInfo *fd = ct_mhd.get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct prom_conn *c = *slot;

	/* MHD closes the socket only after this returns, so the tick never
	 * shuts down a descriptor that has become another one. */
	pthread_mutex_lock(&p->conns_lock);
	if (what == MHD_CONNECTION_NOTIFY_CLOSED && c) {
		c->fd = -1;
	} else if (what == MHD_CONNECTION_NOTIFY_STARTED && fd) {
		for (unsigned i = 0; i < CONN_MAX && !*slot; i++) {
			if (p->conns[i].fd >= 0)
				continue;
			p->conns[i] = (struct prom_conn){ fd->connect_fd, false, mono_ns() + REQUEST_NS };
			*slot = &p->conns[i];
		}
	}
	pthread_mutex_unlock(&p->conns_lock);
}

/* An answer sent in full: the connection's next request has its own time. */
static void on_completed(void *cls, struct MHD_Connection *conn, void **req, enum MHD_RequestTerminationCode how)
{
	struct prom_ctx *p = cls;
	const union MHD_ConnectionInfo *ci = ct_mhd.get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct prom_conn *c = ci ? ci->socket_context : NULL;

	(void)req;
	if (how != MHD_REQUEST_TERMINATED_COMPLETED_OK || !c)
		return;
	pthread_mutex_lock(&p->conns_lock);
	c->deadline_ns = mono_ns() + REQUEST_NS;
	pthread_mutex_unlock(&p->conns_lock);
}

/* Shut down, not closed: the descriptor stays MHD's, which sees the end of
 * the stream and closes the connection in its own thread. */
static void cut_late(struct prom_ctx *p)
{
	uint64_t now = mono_ns();

	pthread_mutex_lock(&p->conns_lock);
	for (unsigned i = 0; i < CONN_MAX; i++) {
		struct prom_conn *c = &p->conns[i];

		if (c->fd < 0 || c->cut || now < c->deadline_ns)
			continue;
		shutdown(c->fd, SHUT_RDWR);
		c->cut = true;
		p->cut++;
	}
	pthread_mutex_unlock(&p->conns_lock);
}

/* A socket bound to `listen` and listening: -errno, with why. */
static int bind_listener(const char *listen_at, const char *host, const char *port, char *why, size_t wn)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE, .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int fd, one = 1, err = getaddrinfo(host[0] ? host : NULL, port, &hints, &ai);

	if (err) {
		snprintf(why, wn, "cannot resolve %s: %s", listen_at, gai_strerror(err));
		return -EINVAL;
	}
	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
		err = errno ? -errno : -EIO;
		snprintf(why, wn, "cannot listen on %s: %s", listen_at, strerror(-err));
		if (fd >= 0)
			close(fd);
		fd = err;
	}
	freeaddrinfo(ai);
	return fd;
}

/* The listening socket: the one a daemon's session before this one served
 * the same address on (never let go between them), or a new one. */
static int open_listener(struct prom_ctx *p, char *why, size_t wn)
{
	char host[256], port[32], shown[64];
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	int fd;

	if (ct_listen_split(p->listen, host, sizeof(host), port, sizeof(port))) {
		snprintf(why, wn, "listen = %s is not ADDR:PORT", p->listen);
		return -EINVAL;
	}
	fd = ct_listeners_take(p->listen);
	if (fd < 0)
		fd = bind_listener(p->listen, host, port, why, wn);
	if (fd < 0)
		return fd;
	if (getsockname(fd, (struct sockaddr *)&sa, &sl) ||
	    getnameinfo((struct sockaddr *)&sa, sl, NULL, 0, shown, sizeof(shown), NI_NUMERICSERV)) {
		int err = errno ? -errno : -EIO;

		snprintf(why, wn, "cannot listen on %s: %s", p->listen, strerror(-err));
		close(fd);
		return err;
	}
	snprintf(p->where, sizeof(p->where), "http://%s%s%s:%s%s", strchr(host, ':') ? "[" : "",
		 host[0] ? host : "0.0.0.0", strchr(host, ':') ? "]" : "", shown, p->http_path);
	return fd;
}

static int serve(struct prom_ctx *p)
{
	char why[512];
	sigset_t all, old;
	int fd = open_listener(p, why, sizeof(why));

	if (fd == -EINVAL) {
		ct_err("sink '%s' (prometheus): %s", p->ms.c.name, why);
		return fd;
	}
	if (fd < 0) {
		if (!p->said_busy)
			ct_err("sink '%s' (prometheus): %s; tracing goes on, the address is tried again "
			       "every 10 s (another one: listen = ADDR:PORT)", p->ms.c.name, why);
		p->said_busy = true;
		return 0;
	}
	/* The server's thread takes no signals: they are the reader's to handle. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	/* ITC: so that the socket can be taken back at the end (MHD_quiesce_daemon). */
	p->d = ct_mhd.start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC, 0, NULL, NULL,
				on_request, p,
				MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT, CONN_MAX,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, PER_ADDR_MAX,
				MHD_OPTION_CONNECTION_TIMEOUT, IDLE_S,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, p,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, p, MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!p->d) {
		close(fd);
		ct_err("sink '%s' (prometheus): the HTTP server did not start on %s", p->ms.c.name, p->listen);
		return -EIO;
	}
	/* MHD owns the socket now; prom_destroy takes it back */
	if (p->said_busy)
		ct_warn("sink '%s' (prometheus): serving at %s now", p->ms.c.name, p->where);
	else
		ct_note("sink '%s' (prometheus): serving at %s", p->ms.c.name, p->where);
	return 0;
}

static void publish(struct prom_ctx *p, uint64_t now_ns)
{
	ct_metrics_stats(&p->ms.m, &p->ms.st);
	ct_mpub_set(&p->pub, ct_metrics_snapshot(&p->ms.m, now_ns));
}

static int prom_open(void *ctx)
{
	struct prom_ctx *p = ctx;
	int err;

	err = ct_netlib_mhd(p->ms.c.name, "prometheus");
	if (err)
		return err;
	ct_mpub_init(&p->pub);
	pthread_mutex_init(&p->conns_lock, NULL);
	for (unsigned i = 0; i < CONN_MAX; i++)
		p->conns[i].fd = -1;
	err = ct_metric_sink_init(&p->ms);
	if (err)
		return err;
	publish(p, p->ms.m.start_ns);
	err = serve(p);
	p->next_try_ns = p->ms.m.start_ns + RETRY_NS;
	return err;
}

static int prom_tick(void *ctx, uint64_t now_ns)
{
	struct prom_ctx *p = ctx;

	ct_metrics_expire(&p->ms.m, now_ns);
	publish(p, now_ns);
	if (p->d)
		cut_late(p);
	if (!p->d && now_ns >= p->next_try_ns) {
		p->next_try_ns = now_ns + RETRY_NS;
		return serve(p);
	}
	return 0;
}

static int prom_close(void *ctx, const struct ct_run_stats *st)
{
	struct prom_ctx *p = ctx;
	int err;

	p->ms.st = *st;
	publish(p, st->end_ns);
	err = ct_metric_sink_final(&p->ms, st->end_ns);
	if (!p->d)
		ct_warn("sink '%s' (prometheus): never served: %s could not be listened on", p->ms.c.name, p->listen);
	else
		ct_info("sink '%s' (prometheus): %llu scrapes served at %s", p->ms.c.name,
			(unsigned long long)__atomic_load_n(&p->scrapes, __ATOMIC_RELAXED), p->where);
	if (p->cut)
		ct_warn("sink '%s' (prometheus): %llu connections cut: no request answered within %llu s",
			p->ms.c.name, (unsigned long long)p->cut, REQUEST_NS / 1000000000ull);
	return err;
}

static void prom_destroy(void *ctx)
{
	struct prom_ctx *p = ctx;

	if (p->d) {
		/* The socket, kept listening for a daemon's next session (listeners.h):
		 * a scrape meanwhile waits in its queue, and no one else can bind the port. */
		int fd = ct_mhd.quiesce_daemon(p->d);

		ct_mhd.stop_daemon(p->d);
		if (fd >= 0)
			ct_listeners_keep(p->listen, fd);
	}
	p->d = NULL;
	pthread_mutex_destroy(&p->conns_lock);
	ct_mpub_free(&p->pub);
	ct_metrics_free(&p->ms.m);
}

const struct ct_sink_ops ct_sink_prometheus = {
	.type = "prometheus",
	.where_key = "listen",
	.where_arg = "ADDR:PORT",
	.where_help = "serve metrics at http://ADDR:PORT/metrics",
	.help = "Serve metrics (calls, durations, bytes, memory, losses) to Prometheus at http://LISTEN/metrics",
	.keys = prom_keys,
	.ctx_size = sizeof(struct prom_ctx),
	.open = prom_open,
	.event = ct_metric_sink_event,
	.tick = prom_tick,
	.close = prom_close,
	.destroy = prom_destroy,
	.proc_exit = ct_metric_sink_proc_exit,
	.hang = ct_metric_sink_hang,
	.totals = ct_metric_sink_totals,
	.stats = ct_metric_sink_stats,
};
