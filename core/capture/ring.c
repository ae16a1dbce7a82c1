// SPDX-License-Identifier: MIT
/* BPF ring buffer reader with batched position updates (see ring.h). */
#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>
#include "capture/ring.h"

#define PUBLISH_EVERY (64 * 1024) /* bytes read between position updates */

uint64_t ct_ring_size(uint64_t want)
{
	uint64_t p = 4096;

	while (p < want && p < CT_RING_SIZE_MAX)
		p <<= 1;
	return p;
}

void ct_rings_init(struct ct_rings *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->epoll_fd = -1;
}

int ct_rings_add(struct ct_rings *rs, int map_fd, ct_ring_fn fn, void *ctx)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	long page = sysconf(_SC_PAGESIZE);
	struct ct_ring *r;
	struct epoll_event ev = { .events = EPOLLIN };
	void *p;

	if (rs->n >= CT_RINGS_MAX)
		return -E2BIG;
	if (bpf_map_get_info_by_fd(map_fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_RINGBUF || !info.max_entries)
		return -EINVAL;
	if (rs->epoll_fd < 0) {
		rs->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
		if (rs->epoll_fd < 0)
			return -errno;
	}
	r = &rs->r[rs->n];
	memset(r, 0, sizeof(*r));
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->consumer_pos = p;
	/* The data area is mapped twice in a row: a record that wraps reads
	 * as one piece. */
	r->prod_len = page + 2 * (size_t)info.max_entries;
	p = mmap(NULL, r->prod_len, PROT_READ, MAP_SHARED, map_fd, page);
	if (p == MAP_FAILED) {
		int err = -errno;

		munmap(r->consumer_pos, page);
		return err;
	}
	r->producer_pos = p;
	r->data = (unsigned char *)p + page;
	r->mask = info.max_entries - 1;
	r->fn = fn;
	r->ctx = ctx;
	ev.data.u32 = rs->n;
	if (epoll_ctl(rs->epoll_fd, EPOLL_CTL_ADD, map_fd, &ev)) {
		int err = -errno;

		munmap(r->producer_pos, r->prod_len);
		munmap(r->consumer_pos, page);
		return err;
	}
	return rs->n++;
}

/* Every record the producers have committed; stops at one still being written. */
static int consume(struct ct_ring *r)
{
	unsigned long cons = __atomic_load_n(r->consumer_pos, __ATOMIC_ACQUIRE), published = cons;
	int n = 0, err = 0;

	for (;;) {
		unsigned long prod = __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE);

		if (cons >= prod)
			break;
		while (cons < prod) {
			unsigned char *hdr = r->data + (cons & r->mask);
			__u32 len = __atomic_load_n((__u32 *)hdr, __ATOMIC_ACQUIRE);
			__u32 size = len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);

			if (len & BPF_RINGBUF_BUSY_BIT)
				goto out; /* reserved, not yet committed */
			cons += (size + BPF_RINGBUF_HDR_SZ + 7) & ~7ul;
			if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
				n++;
				err = r->fn(r->ctx, hdr + BPF_RINGBUF_HDR_SZ, size);
				if (err < 0)
					goto out;
			}
			if (cons - published >= PUBLISH_EVERY) {
				__atomic_store_n(r->consumer_pos, cons, __ATOMIC_RELEASE);
				published = cons;
			}
		}
	}
out:
	if (cons != published)
		__atomic_store_n(r->consumer_pos, cons, __ATOMIC_RELEASE);
	return err < 0 ? err : n;
}

int ct_rings_consume(struct ct_rings *rs, int i)
{
	int total = 0;

	for (int k = i < 0 ? 0 : i; k < (i < 0 ? rs->n : i + 1) && k < rs->n; k++) {
		int n = consume(&rs->r[k]);

		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

int ct_rings_poll(struct ct_rings *rs, int timeout_ms)
{
	struct epoll_event ev[CT_RINGS_MAX];
	int n, total = 0;

	if (rs->epoll_fd < 0)
		return -EINVAL;
	n = epoll_wait(rs->epoll_fd, ev, CT_RINGS_MAX, timeout_ms);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		int got = consume(&rs->r[ev[i].data.u32]);

		if (got < 0)
			return got;
		total += got;
	}
	return total;
}

void ct_rings_free(struct ct_rings *rs)
{
	long page = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < rs->n; i++) {
		munmap(rs->r[i].producer_pos, rs->r[i].prod_len);
		munmap(rs->r[i].consumer_pos, page);
	}
	if (rs->epoll_fd >= 0)
		close(rs->epoll_fd);
	ct_rings_init(rs);
}
