// SPDX-License-Identifier: MIT
/* The push sinks' sender (push.h). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sinks/netlibs.h"
#include "sinks/push.h"
#include "util/log.h"
#include "util/plural.h"

#define BACKOFF_FIRST_NS 500000000ull
#define BACKOFF_MAX_NS 30000000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * One deadline for every push sink's stop: the first stop sets it, the
 * others keep it, and every request from then on is cut to it. A request
 * already under way ends within its own timeout of its start. So the sinks'
 * stops, one after another, take one timeout in all, not two each (the
 * deadline, then a request begun just before it). Reset when the last of
 * them has stopped (a daemon's reload starts new ones).
 */
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t stop_by_ns; /* 0: no stop under way */
static unsigned n_live;

static uint64_t stop_by(void)
{
	uint64_t v;

	pthread_mutex_lock(&stop_lock);
	v = stop_by_ns;
	pthread_mutex_unlock(&stop_lock);
	return v;
}

/* The start of an answer's body, for the message that says why it failed. */
struct reply {
	char text[160];
	size_t n;
};

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
	struct reply *r = ud;
	size_t len = size * n, take = len;

	if (take > sizeof(r->text) - 1 - r->n)
		take = sizeof(r->text) - 1 - r->n;
	for (size_t i = 0; i < take; i++)
		r->text[r->n++] = data[i] == '\n' || data[i] == '\r' ? ' ' : data[i];
	r->text[r->n] = 0;
	return len;
}

enum outcome { SENT, RETRY, REJECTED };

static enum outcome post(struct ct_push *p, CURL *c, const struct ct_push_item *it, char *why, size_t wn)
{
	struct ct_sb body = { 0 };
	struct reply r = { 0 };
	uint64_t now = mono_ns(), by = stop_by(), ms = p->timeout_ns / 1000000;
	long code = 0;
	CURLcode cc;

	if (by && by > now && (by - now) / 1000000 < ms)
		ms = (by - now) / 1000000;
	ct_curl.easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(ms ? ms : 1));
	ct_curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(ms ? ms : 1));
	if (!p->encode(p->ud, it, &body)) {
		ct_sb_free(&body);
		snprintf(why, wn, "out of memory encoding a batch");
		return REJECTED;
	}
	ct_curl.easy_setopt(c, CURLOPT_URL, p->urls[it->kind]);
	ct_curl.easy_setopt(c, CURLOPT_HTTPHEADER, p->hdrs);
	ct_curl.easy_setopt(c, CURLOPT_POSTFIELDS, body.p ? body.p : "");
	ct_curl.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body.len);
	ct_curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	ct_curl.easy_setopt(c, CURLOPT_WRITEDATA, &r);
	cc = ct_curl.easy_perform(c);
	ct_sb_free(&body);
	if (cc != CURLE_OK) {
		snprintf(why, wn, "%s", ct_curl.easy_strerror(cc));
		return RETRY;
	}
	ct_curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (code >= 200 && code < 300)
		return SENT;
	snprintf(why, wn, "HTTP %ld%s%s", code, r.n ? ": " : "", r.text);
	/* 429 and 5xx may pass later; another 4xx would be refused again */
	return code == 429 || code >= 500 ? RETRY : REJECTED;
}

static bool newer_queued(struct ct_push *p, const struct ct_push_item *it)
{
	for (struct ct_push_item *q = p->head; q && it->cumulative; q = q->next)
		if (q->cumulative && q->kind == it->kind)
			return true;
	return false;
}

static void lose(struct ct_push *p, struct ct_push_item *it)
{
	p->lost_batches[it->kind]++;
	p->lost[it->kind] += it->samples;
}

static void say_failed(struct ct_push *p, const struct ct_push_item *it, const char *why, bool rejected)
{
	bool same = p->failing && !strcmp(p->last_error, why);

	snprintf(p->last_error, sizeof(p->last_error), "%s", why);
	if (same)
		return;
	p->failing = true;
	if (rejected)
		ct_err("sink '%s' (%s): %s refused a batch (%llu %s): %s; it is dropped (a 4xx is not retried); "
		       "tracing goes on", p->sink, p->type, p->urls[it->kind], (unsigned long long)it->samples,
		       p->units[it->kind], why);
	else
		ct_err("sink '%s' (%s): cannot push to %s: %s; retrying with back-off (up to %llu s); "
		       "tracing goes on", p->sink, p->type, p->urls[it->kind], why,
		       (unsigned long long)(BACKOFF_MAX_NS / 1000000000ull));
}

/* Send one item, retrying until it is sent, refused, superseded or the stop's deadline. Under lock. */
static void send_item(struct ct_push *p, CURL *c, struct ct_push_item *it)
{
	uint64_t backoff = BACKOFF_FIRST_NS;
	char why[256];

	for (;;) {
		uint64_t by = stop_by();
		enum outcome o;

		if (by && mono_ns() >= by) { /* the stop's deadline: no time left to try */
			lose(p, it);
			return;
		}
		pthread_mutex_unlock(&p->lock);
		o = post(p, c, it, why, sizeof(why));
		pthread_mutex_lock(&p->lock);
		if (o == SENT) {
			p->sent++;
			if (p->failing)
				ct_warn("sink '%s' (%s): pushes to %s go through again (%llu failed so far)", p->sink,
					p->type, p->urls[it->kind], (unsigned long long)p->failures);
			p->failing = false;
			return;
		}
		p->failures++;
		say_failed(p, it, why, o == REJECTED);
		if (o == REJECTED) {
			lose(p, it);
			return;
		}
		for (;;) {
			uint64_t now = mono_ns(), until = now + backoff;
			struct timespec ts;

			if (newer_queued(p, it)) {
				p->superseded++;
				return;
			}
			if (p->stop && now >= p->deadline_ns) {
				lose(p, it);
				return;
			}
			if (p->stop && until > p->deadline_ns)
				until = p->deadline_ns;
			if (now >= until)
				break;
			/* CLOCK_REALTIME is the condition variable's clock */
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += (until - now) / 1000000000ull;
			ts.tv_nsec += (until - now) % 1000000000ull;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			if (pthread_cond_timedwait(&p->cv, &p->lock, &ts) == ETIMEDOUT)
				break;
		}
		backoff = backoff * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : backoff * 2;
	}
}

static void *sender(void *arg)
{
	struct ct_push *p = arg;
	CURL *c = ct_curl.easy_init();

	if (c) {
		ct_curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L); /* timeouts: each post's own */
		ct_curl.easy_setopt(c, CURLOPT_USERAGENT, "cudatracer/" CT_VERSION);
	}
	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct ct_push_item *it;

		while (!p->head && !p->stop)
			pthread_cond_wait(&p->cv, &p->lock);
		it = p->head;
		if (!it)
			break;
		p->head = it->next;
		if (!p->head)
			p->tail = NULL;
		p->queued--;
		if (!c)
			lose(p, it);
		else if (p->stop && mono_ns() >= p->deadline_ns)
			lose(p, it);
		else
			send_item(p, c, it);
		pthread_mutex_unlock(&p->lock);
		p->release(p->ud, it);
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	if (c)
		ct_curl.easy_cleanup(c);
	return NULL;
}

int ct_push_start(struct ct_push *p)
{
	sigset_t all, old;
	int err;

	err = ct_netlib_curl(p->sink, p->type);
	if (err)
		return err;
	/* once, from the reader, before any sender runs: it is not thread-safe */
	if (ct_curl.global_init(CURL_GLOBAL_DEFAULT))
		return -EIO;
	for (int i = 0; p->headers && p->headers[i]; i++) {
		struct curl_slist *h = ct_curl.slist_append(p->hdrs, p->headers[i]);

		if (!h)
			return -ENOMEM;
		p->hdrs = h;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cv, NULL);
	/* The sender takes no signals: they are the reader's to handle. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = -pthread_create(&p->th, NULL, sender, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	p->started = !err;
	if (p->started) {
		pthread_mutex_lock(&stop_lock);
		n_live++;
		pthread_mutex_unlock(&stop_lock);
	}
	return err;
}

void ct_push_offer(struct ct_push *p, struct ct_push_item *it)
{
	struct ct_push_item *drop = NULL;

	it->next = NULL;
	pthread_mutex_lock(&p->lock);
	if (it->cumulative) {
		/* the newer holds all the older did */
		for (struct ct_push_item **q = &p->head; *q; q = &(*q)->next) {
			if ((*q)->cumulative && (*q)->kind == it->kind) {
				drop = *q;
				*q = drop->next;
				p->queued--;
				p->superseded++;
				break;
			}
		}
		p->tail = NULL;
		for (struct ct_push_item *q = p->head; q; q = q->next)
			p->tail = q;
	} else if (p->queued >= p->max_queue) {
		drop = p->head;
		p->head = drop->next;
		if (!p->head)
			p->tail = NULL;
		p->queued--;
		lose(p, drop);
	}
	if (p->tail)
		p->tail->next = it;
	else
		p->head = it;
	p->tail = it;
	p->queued++;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->lock);
	if (drop)
		p->release(p->ud, drop);
}

uint64_t ct_push_failures(struct ct_push *p)
{
	uint64_t n;

	pthread_mutex_lock(&p->lock);
	n = p->failures;
	pthread_mutex_unlock(&p->lock);
	return n;
}

int ct_push_stop(struct ct_push *p, uint64_t flush_ns)
{
	bool lost = false;

	if (p->done)
		return 0;
	p->done = true;
	if (p->started) {
		uint64_t now = mono_ns(), by = now;

		if (flush_ns) { /* 0: none of its own (the destroy after a failed open) */
			pthread_mutex_lock(&stop_lock);
			if (!stop_by_ns)
				stop_by_ns = now + flush_ns;
			by = stop_by_ns;
			pthread_mutex_unlock(&stop_lock);
		}
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		p->deadline_ns = by;
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->th, NULL);
		pthread_mutex_lock(&stop_lock);
		if (!--n_live)
			stop_by_ns = 0;
		pthread_mutex_unlock(&stop_lock);
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->cv);
		p->started = false;
	}
	for (int k = 0; k < 2; k++) {
		if (!p->lost_batches[k])
			continue;
		lost = true;
		ct_warn("sink '%s' (%s): %llu %s (%llu %s) could not be sent to %s; last error: %s", p->sink,
			p->type, (unsigned long long)p->lost_batches[k],
			ct_plural(p->lost_batches[k], "batch", "batches"), (unsigned long long)p->lost[k],
			p->units[k] ? p->units[k] : "samples", p->urls[k], p->last_error);
	}
	if (!lost && p->failures)
		ct_info("sink '%s' (%s): %llu pushes failed and were retried; the last values went through",
			p->sink, p->type, (unsigned long long)p->failures);
	if (ct_curl.global_cleanup) { /* NULL where libcurl could not be opened */
		ct_curl.slist_free_all(p->hdrs);
		p->hdrs = NULL;
		ct_curl.global_cleanup();
	}
	return lost ? -EIO : 0;
}
