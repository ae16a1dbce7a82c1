/* SPDX-License-Identifier: MIT */
/*
 * Reading BPF ring buffers, the project's one reader: the session reads
 * every plugin's ring and the watcher's from one epoll set, the guard the
 * watcher's after the tracer is gone. Unlike libbpf's reader, which publishes
 * its position after every record, this one publishes it once per 64 KiB
 * read and at the end of each batch: the producers, which read that
 * position on every record they reserve, do not miss in their cache on it
 * each time.
 */
#ifndef CT_RING_H
#define CT_RING_H

#include <stddef.h>
#include <stdint.h>

/* Called for each record; a negative return stops the batch and is returned. */
typedef int (*ct_ring_fn)(void *ctx, void *data, size_t len);

#define CT_RINGS_MAX 16

struct ct_ring {
	ct_ring_fn fn;
	void *ctx;
	unsigned long *consumer_pos; /* read-write page */
	unsigned long *producer_pos; /* read-only: its page, then the data twice */
	unsigned char *data;
	unsigned long mask;
	size_t prod_len;
};

struct ct_rings {
	int epoll_fd;
	int n;
	struct ct_ring r[CT_RINGS_MAX];
};

/* The size a ring buffer map gets for `want` bytes: a power of two, at
 * least a page (4 KiB), at most CT_RING_SIZE_MAX. */
#define CT_RING_SIZE_MAX (1ull << 31)
uint64_t ct_ring_size(uint64_t want);

void ct_rings_init(struct ct_rings *rs);
/* Add the ring buffer map `map_fd`; returns its index or -errno. */
int ct_rings_add(struct ct_rings *rs, int map_fd, ct_ring_fn fn, void *ctx);
/* Wait up to timeout_ms for a wake-up, then read the rings that have data.
 * Returns the records read (0 on timeout) or -errno. */
int ct_rings_poll(struct ct_rings *rs, int timeout_ms);
/* Read every record waiting in ring i, or in all rings (i < 0). */
int ct_rings_consume(struct ct_rings *rs, int i);
void ct_rings_free(struct ct_rings *rs);

#endif
