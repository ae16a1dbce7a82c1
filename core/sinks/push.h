/* SPDX-License-Identifier: MIT */
/*
 * The sender of the push sinks (remote_write, otlp): a thread of its own
 * with a bounded queue of batches, HTTP POST through libcurl, retries with
 * exponential back-off on refusals, time-outs, 429 and 5xx (a 4xx is the
 * request's fault: dropped, not retried). The reader only queues: it never
 * waits on the network. A batch of cumulative values (a metrics snapshot)
 * is superseded by a newer one of the same kind, since the newer holds
 * everything the older did; others (spans) are dropped oldest first when
 * the queue is full. Everything that could not be sent is counted, said
 * when it starts failing and again at the end.
 */
#ifndef CT_PUSH_H
#define CT_PUSH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "util/strbuf.h"

struct curl_slist;

struct ct_push_item {
	struct ct_push_item *next;
	unsigned kind;        /* which URL: an index in urls */
	bool cumulative;
	uint64_t samples;     /* what it holds, for the counts of what was lost */
	void *obj;
};

struct ct_push {
	/* set by the sink */
	const char *sink;     /* the section's name, for messages */
	const char *type;
	const char *urls[2];
	const char *units[2];  /* what a kind's samples are: "samples", "spans" */
	const char *const *headers; /* "Name: value", NULL-ended */
	uint64_t timeout_ns;
	unsigned max_queue;
	void *ud;
	/* the request body of an item; false when out of memory */
	bool (*encode)(void *ud, const struct ct_push_item *it, struct ct_sb *body);
	void (*release)(void *ud, struct ct_push_item *it);

	/* the sender's */
	pthread_t th;
	bool started, stop, done;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct ct_push_item *head, *tail;
	unsigned queued;
	uint64_t deadline_ns;     /* at stop: when to give up (CLOCK_MONOTONIC) */
	struct curl_slist *hdrs;
	/* counts (under lock) */
	uint64_t sent, failures, superseded;
	uint64_t lost_batches[2], lost[2]; /* per kind: batches and samples never delivered */
	bool failing;             /* said; the next success says it recovered */
	char last_error[256];
};

int ct_push_start(struct ct_push *p);
/* Queue an item (the push takes it); never waits for the network. */
void ct_push_offer(struct ct_push *p, struct ct_push_item *it);
uint64_t ct_push_failures(struct ct_push *p);
/* Send what is queued for at most flush_ns, stop the thread and say what
 * could not be sent. Returns 0, or -EIO when something was lost; once. */
int ct_push_stop(struct ct_push *p, uint64_t flush_ns);

#endif
