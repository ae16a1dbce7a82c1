// SPDX-License-Identifier: MIT
/*
 * The in-process engine's ring (see shmring.h and inproc/shm.h). The reader
 * trusts nothing the command wrote: every length is bounded, a position
 * beyond the producer's is never read, and a record whose header does not
 * name its own position is not yet there.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "util/log.h"
#include "capture/shmring.h"

#define PAGE 4096ull
/* A record reserved and not committed for this long: its producer died
 * writing it (SIGKILL between the two). */
#define STUCK_NS 1000000000ull
/* Between reads the producers have their cache lines to themselves: the
 * reader takes prod_pos's line and the lines being written from them at
 * most this often, unless the ring was filling (a quarter full at the last
 * read) or tracing is over. */
#define PACE_NS 1000000ull

static uint64_t meta_size(void)
{
	uint64_t specs = (uint64_t)CT_MAX_CALLS * sizeof(struct ct_shm_spec);

	return CT_SHM_HEAD_SIZE + ((specs + PAGE - 1) & ~(PAGE - 1));
}

/* The current conversion into the header, for readers other than us (seqlock). */
static void publish_clock(struct ct_shmring *r)
{
	struct ct_shm_head *h = r->head;
	uint32_t seq = h->time_seq;

	__atomic_store_n(&h->time_seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	h->time_shift = CT_TSC_SHIFT;
	h->time_mult = r->tsc.cur.mult;
	h->time_cycles = r->tsc.cur.at;
	h->time_zero = r->tsc.cur.zero;
	__atomic_store_n(&h->time_seq, seq + 2, __ATOMIC_RELEASE);
}

/* TSC or clock_gettime, said in -v and kept in clock_why for --explain's kind. */
static void choose_clock(struct ct_shmring *r, bool allow_tsc)
{
	char why[96];

	r->clock = CT_SHM_CLOCK_MONO;
	if (!allow_tsc)
		snprintf(r->clock_why, sizeof(r->clock_why), "clock_gettime (tracer.inproc_clock = monotonic)");
	else if (!ct_tsc_usable(why, sizeof(why)))
		snprintf(r->clock_why, sizeof(r->clock_why), "clock_gettime: %s", why);
	else if (ct_tsc_clock_start(&r->tsc))
		snprintf(r->clock_why, sizeof(r->clock_why), "clock_gettime: the TSC did not advance");
	else {
		r->clock = CT_SHM_CLOCK_TSC;
		snprintf(r->clock_why, sizeof(r->clock_why), "TSC (%s), converted to CLOCK_MONOTONIC by the tracer",
			 why);
	}
	ct_info("--engine inproc: calls timed by %s", r->clock_why);
}

int ct_shmring_create(struct ct_shmring *r, uint64_t data_size, bool allow_tsc, ct_ring_fn fn, void *ctx)
{
	uint64_t meta = meta_size(), total = meta + data_size;
	int err;

	memset(r, 0, sizeof(*r));
	r->fd = memfd_create(CT_SHM_MEMFD_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (r->fd < 0)
		return -errno;
	/* The pages allocated now, once: else every process's first lap of the
	 * ring faults them in, one by one, inside the calls it traces. */
	if (ftruncate(r->fd, (off_t)total) || fallocate(r->fd, 0, 0, (off_t)total) ||
	    fcntl(r->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		err = -errno;
		goto fail;
	}
	r->meta_len = meta;
	r->head = mmap(NULL, meta, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->head == MAP_FAILED) {
		r->head = NULL;
		err = -errno;
		goto fail;
	}
	r->data = mmap(NULL, 2 * data_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->data == MAP_FAILED ||
	    mmap(r->data, data_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, r->fd, (off_t)meta) == MAP_FAILED ||
	    mmap(r->data + data_size, data_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, r->fd,
		 (off_t)meta) == MAP_FAILED) {
		err = -errno;
		if (r->data != MAP_FAILED)
			munmap(r->data, 2 * data_size);
		r->data = NULL;
		goto fail;
	}
	r->size = data_size;
	r->fn = fn;
	r->ctx = ctx;
	*r->head = (struct ct_shm_head){
		.magic = CT_SHM_MAGIC, .version = CT_SHM_VERSION, .head_size = CT_SHM_HEAD_SIZE,
		.total_size = total, .specs_off = CT_SHM_HEAD_SIZE, .data_off = meta, .data_size = data_size,
	};
	choose_clock(r, allow_tsc);
	r->head->clock = r->clock;
	if (r->clock == CT_SHM_CLOCK_TSC)
		publish_clock(r);
	return 0;
fail:
	ct_shmring_close(r);
	return err;
}

int ct_shmring_set_specs(struct ct_shmring *r, const struct ct_shm_spec *specs, uint32_t n, bool parents)
{
	if (n > CT_MAX_CALLS)
		return -E2BIG;
	memcpy((char *)r->head + r->head->specs_off, specs, n * sizeof(*specs));
	r->head->n_specs = n;
	r->head->track_parents = parents;
	/* Published last: a process that maps the ring sees the table whole. */
	__atomic_store_n(&r->head->on, 1, __ATOMIC_RELEASE);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Whether a header's length and word counts describe a packed record
 * (shm.h) that fits a struct ct_record. */
static bool packed_ok(uint32_t bits)
{
	uint32_t len = bits & CT_SHM_LEN_MASK, n_args = (bits >> CT_SHM_ARGS_SHIFT) & 15,
		 n_mem = (bits >> CT_SHM_MEM_SHIFT) & 15, words = CT_SHM_FIXED + n_args + n_mem;

	return n_args <= CT_REC_ARGS && n_mem <= CT_REC_MEM && len >= words * 8 && len - words * 8 <= CT_REC_STR;
}

/*
 * A packed record (packed_ok), out of the memory the command shares (it
 * cannot change it under us then), unpacked into the struct ct_record the
 * eBPF engine would have sent (what is not sent, zeroes), with its times in
 * CLOCK_MONOTONIC ns, to the callback.
 */
static int deliver(struct ct_shmring *r, const unsigned char *p, uint32_t bits)
{
	uint32_t len = bits & CT_SHM_LEN_MASK, n_args = (bits >> CT_SHM_ARGS_SHIFT) & 15,
		 n_mem = (bits >> CT_SHM_MEM_SHIFT) & 15, str_at = (CT_SHM_FIXED + n_args + n_mem) * 8;
	uint64_t w[CT_SHM_FIXED + CT_REC_ARGS + CT_REC_MEM + CT_REC_STR / 8];
	struct ct_record rec;
	size_t out;

	memcpy(w, p, len);
	memset(&rec, 0, offsetof(struct ct_record, str));
	rec.ts_ns = w[CT_SHM_W_TS];
	rec.dur_ns = w[CT_SHM_W_DUR];
	rec.pid = (uint32_t)w[CT_SHM_W_WHO];
	rec.tid = (uint32_t)(w[CT_SHM_W_WHO] >> 32);
	rec.call = (uint32_t)w[CT_SHM_W_CALL];
	rec.flags = (uint32_t)(w[CT_SHM_W_CALL] >> 32);
	rec.depth = (uint32_t)w[CT_SHM_W_DEPTH];
	rec.parent = (uint32_t)(w[CT_SHM_W_DEPTH] >> 32);
	rec.ret = w[CT_SHM_W_RET];
	memcpy(rec.comm, &w[CT_SHM_W_COMM], CT_COMM_LEN);
	memcpy(rec.args, &w[CT_SHM_FIXED], n_args * 8);
	memcpy(rec.mem, &w[CT_SHM_FIXED + n_args], n_mem * 8);
	memcpy(rec.str, (const char *)w + str_at, len - str_at);
	if (len > str_at)
		out = offsetof(struct ct_record, str) + (len - str_at);
	else if (n_mem)
		out = offsetof(struct ct_record, mem) + n_mem * 8;
	else
		out = offsetof(struct ct_record, args) + n_args * 8;
	if (r->clock == CT_SHM_CLOCK_TSC) {
		rec.ts_ns = ct_tsc_ns(&r->tsc, rec.ts_ns);
		rec.dur_ns = ct_tsc_dur_ns(&r->tsc, rec.dur_ns);
	}
	return r->fn(r->ctx, &rec, out);
}

/*
 * The first record after a reservation at `cons` that its producer never
 * wrote (it was killed between the two): every record's header names its
 * own position (shm.h), and a reservation's length is a multiple of 8, so
 * the next one is the first 8-byte word past `cons` that names its own
 * position with a length (committed or being written; what a lap before
 * left names a position a ring's size back). `cons` itself while none is
 * written yet.
 */
static uint64_t resync(const struct ct_shmring *r, uint64_t cons, uint64_t prod)
{
	for (uint64_t q = cons + 8; q < prod; q += 8) {
		uint64_t hdr = __atomic_load_n((uint64_t *)(r->data + (q & (r->size - 1))), __ATOMIC_ACQUIRE);

		if ((uint32_t)(hdr >> 32) == (uint32_t)(q >> 3) && (hdr & CT_SHM_LEN_MASK) &&
		    q + CT_SHM_REC_HDR + CT_SHM_ALIGN(hdr & CT_SHM_LEN_MASK) <= prod)
			return q;
	}
	return cons;
}

int ct_shmring_consume(struct ct_shmring *r)
{
	struct ct_shm_head *h = r->head;
	uint64_t cons = __atomic_load_n(&h->cons_pos, __ATOMIC_RELAXED), prod, now = mono_ns();
	int n = 0, err = 0;

	if (r->broken || (!r->stopped && !r->behind && now - r->read_ns < PACE_NS))
		return 0;
	r->read_ns = now;
	prod = __atomic_load_n(&h->prod_pos, __ATOMIC_ACQUIRE);
	r->behind = prod - cons > r->size / 4;
	if (prod - cons > r->size) { /* written by no producer of ours */
		ct_err("the in-process ring's positions are corrupt (%llu written, %llu read): no more records read",
		       (unsigned long long)prod, (unsigned long long)cons);
		r->broken = true;
		return 0;
	}
	if (r->clock == CT_SHM_CLOCK_TSC && cons < prod) {
		uint64_t at = r->tsc.next_ns;

		ct_tsc_clock_check(&r->tsc, now);
		if (r->tsc.next_ns != at)
			publish_clock(r);
	}
	while (cons < prod) {
		unsigned char *p = r->data + (cons & (r->size - 1));
		uint64_t hdr = __atomic_load_n((uint64_t *)p, __ATOMIC_ACQUIRE);
		uint32_t bits = (uint32_t)hdr & ~CT_SHM_BUSY, len = bits & CT_SHM_LEN_MASK;
		/* No record is empty: a zero length is memory no producer has
		 * written yet, at a position whose stamp is 0 too (the ring's
		 * first, reserved and not yet written; or one every 32 GiB):
		 * taken for a record, it was delivered empty and the reader went
		 * on into the middle of the record being written there. */
		bool mine = (uint32_t)(hdr >> 32) == (uint32_t)(cons >> 3) && len;

		if (mine && !packed_ok(bits)) {
			ct_err("the in-process ring holds a record of %u bytes with %u argument and %u memory words: no "
			       "more records read", len, (bits >> CT_SHM_ARGS_SHIFT) & 15, (bits >> CT_SHM_MEM_SHIFT) & 15);
			r->broken = true;
			break;
		}
		if (!mine || (hdr & CT_SHM_BUSY)) {
			uint64_t now = mono_ns();

			/* Being written; or its producer was killed mid-record. */
			if (!r->stuck_ns)
				r->stuck_ns = now;
			if (now - r->stuck_ns < STUCK_NS)
				break;
			if (!mine) {
				uint64_t next = resync(r, cons, prod);

				if (next == cons && !r->stopped)
					break; /* nothing written after it yet */
				if (next == cons)
					next = prod; /* tracing is over: the dead reservation was the last */
				if (!r->resynced++)
					ct_warn("a process of the command died reserving a record in the in-process ring: "
						"it is counted lost, and the records after it are read on");
				r->skipped++;
				r->stuck_ns = 0;
				cons = next;
				continue;
			}
			r->skipped++;
		} else {
			err = deliver(r, p + CT_SHM_REC_HDR, bits);
			n++;
		}
		r->stuck_ns = 0;
		cons += CT_SHM_REC_HDR + CT_SHM_ALIGN(len);
		if (err < 0)
			break;
	}
	__atomic_store_n(&h->cons_pos, cons, __ATOMIC_RELEASE);
	return err < 0 ? err : n;
}

void ct_shmring_stats(const struct ct_shmring *r, uint64_t out[CT_SHM_STAT_MAX])
{
	for (int i = 0; i < CT_SHM_STAT_MAX; i++)
		out[i] = r->head ? __atomic_load_n(&r->head->stat[i], __ATOMIC_RELAXED) : 0;
	out[CT_SHM_LOST] += r->skipped;
}

void ct_shmring_pause(struct ct_shmring *r, bool paused)
{
	if (!r->head || r->stopped)
		return;
	/* paused before on falls to 0: a process that starts meanwhile still waits for its start to be read */
	if (paused)
		__atomic_store_n(&r->head->paused, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&r->head->on, !paused, __ATOMIC_RELEASE);
	if (!paused)
		__atomic_store_n(&r->head->paused, 0, __ATOMIC_RELEASE);
}

void ct_shmring_stop(struct ct_shmring *r)
{
	if (r->head) {
		__atomic_store_n(&r->head->on, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&r->head->paused, 0, __ATOMIC_RELEASE);
	}
	r->stopped = true;
}

void ct_shmring_close(struct ct_shmring *r)
{
	if (r->data)
		munmap(r->data, 2 * r->size);
	if (r->head)
		munmap(r->head, r->meta_len);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}
