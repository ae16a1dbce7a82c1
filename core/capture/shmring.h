/* SPDX-License-Identifier: MIT */
/*
 * The in-process engine's ring, the tracer's side (inproc/shm.h is the
 * layout): a sealed memfd with the header, the spec table and the records
 * the preload library writes; read into the same record callback as the
 * BPF rings (ring.h), with the same counts of what was lost.
 */
#ifndef CT_SHMRING_H
#define CT_SHMRING_H

#include <stdbool.h>
#include <stdint.h>
#include "shm.h"
#include "capture/ring.h"
#include "capture/tsc.h"

struct ct_shmring {
	int fd;                   /* the memfd, left open (without CLOEXEC) for the command */
	struct ct_shm_head *head; /* the header and spec table, mapped */
	size_t meta_len;
	unsigned char *data;      /* the records, mapped twice in a row */
	uint64_t size;
	ct_ring_fn fn;
	void *ctx;
	uint64_t stuck_ns;        /* since when the reader waits at a record not yet committed */
	uint64_t skipped;         /* records a producer never committed (it died writing), skipped */
	uint64_t resynced;        /* reservations never written, read past (their records are skipped) */
	bool broken;              /* the positions are corrupt: nothing more is read */
	bool stopped;             /* tracing is over: every read drains the ring */
	bool behind;              /* the ring was a quarter full at the last read: read again at once */
	uint64_t read_ns;         /* when the ring was last read (reads are paced) */
	enum ct_shm_clock clock;  /* what the records' times count; the header's copy is the command's to read */
	struct ct_tsc_clock tsc;  /* CT_SHM_CLOCK_TSC: cycles to CLOCK_MONOTONIC ns */
	char clock_why[192];      /* why this clock */
};

/* A memfd of `data_size` bytes of ring (a power of two, at least a page);
 * records timed by the TSC where allow_tsc and ct_tsc_usable(), else by
 * clock_gettime. Records reach fn with CLOCK_MONOTONIC ns either way. */
int ct_shmring_create(struct ct_shmring *r, uint64_t data_size, bool allow_tsc, ct_ring_fn fn, void *ctx);
/* The spec table, written before the command runs. */
int ct_shmring_set_specs(struct ct_shmring *r, const struct ct_shm_spec *specs, uint32_t n, bool parents);
/* Every committed record; returns how many, or -errno from fn. */
int ct_shmring_consume(struct ct_shmring *r);
/* The counters the processes keep in the header (enum ct_shm_stat). */
void ct_shmring_stats(const struct ct_shmring *r, uint64_t out[CT_SHM_STAT_MAX]);
/* Paused (SIGUSR1), or resumed: calls that begin meanwhile go on untraced,
 * those in flight are still recorded; nothing changes in the processes. */
void ct_shmring_pause(struct ct_shmring *r, bool paused);
/* Tracing is over: the command's calls go on untraced. */
void ct_shmring_stop(struct ct_shmring *r);
void ct_shmring_close(struct ct_shmring *r);

#endif
