// SPDX-License-Identifier: MIT
/*
 * The in-process engine's ring, the reader's side (core/capture/shmring.c),
 * with a producer played by hand: a record reserved and not yet written is
 * not read, even at the ring's first position, where a header of zeroes
 * names position 0 (read as a record of no bytes, the reader delivered it
 * and went on into the middle of the one being written: a sh -c 'a; b'
 * under --engine inproc under load lost every record, "a process of the
 * command died reserving a record"). Then committed, it is read whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "capture/shmring.h"

struct got {
	int n;
	size_t len[4];
	struct ct_record rec[4];
};

static int on_rec(void *ctx, void *data, size_t len)
{
	struct got *g = ctx;

	if (g->n < 4) {
		g->len[g->n] = len;
		memset(&g->rec[g->n], 0xaa, sizeof(g->rec[g->n])); /* what was not delivered is not zero here */
		memcpy(&g->rec[g->n], data, len);
	}
	g->n++;
	return 0;
}

/* A packed record's length (shm.h) with these words and string bytes. */
static uint32_t packed_len(uint32_t n_args, uint32_t n_mem, uint32_t str_len)
{
	return (CT_SHM_FIXED + n_args + n_mem) * 8 + str_len;
}

/* What inproc/hooks.c's emit() does, in its three steps. */
static uint64_t reserve(struct ct_shmring *r, uint32_t len)
{
	uint64_t pos = r->head->prod_pos;

	r->head->prod_pos = pos + CT_SHM_REC_HDR + CT_SHM_ALIGN(len);
	return pos;
}

/* A record of call `call` by pid 7, tid 8, "worker": arguments 100, 101,
 * ..., memory words 200, 201, ..., and the string, if any. */
static void write_rec(struct ct_shmring *r, uint64_t pos, uint32_t call, uint32_t n_args, uint32_t n_mem,
		      const char *str, bool commit)
{
	uint64_t *w = (uint64_t *)(r->data + (pos & (r->size - 1)));
	uint32_t str_len = str ? (uint32_t)strlen(str) + 1 : 0, len = packed_len(n_args, n_mem, str_len);

	w[1 + CT_SHM_W_TS] = 1000;
	w[1 + CT_SHM_W_DUR] = 50;
	w[1 + CT_SHM_W_WHO] = 7 | (uint64_t)8 << 32;
	w[1 + CT_SHM_W_CALL] = call | (uint64_t)(str ? CT_REC_HAS_STR : 0) << 32;
	w[1 + CT_SHM_W_DEPTH] = 1 | (uint64_t)33 << 32;
	w[1 + CT_SHM_W_RET] = 0x1234;
	memcpy(&w[1 + CT_SHM_W_COMM], "worker\0\0\0\0\0\0\0\0\0", CT_COMM_LEN);
	for (uint32_t i = 0; i < n_args; i++)
		w[1 + CT_SHM_FIXED + i] = 100 + i;
	for (uint32_t i = 0; i < n_mem; i++)
		w[1 + CT_SHM_FIXED + n_args + i] = 200 + i;
	if (str)
		memcpy(&w[1 + CT_SHM_FIXED + n_args + n_mem], str, str_len);
	len |= n_args << CT_SHM_ARGS_SHIFT | n_mem << CT_SHM_MEM_SHIFT;
	__atomic_store_n(w, CT_SHM_HDR(pos, len | (commit ? 0 : CT_SHM_BUSY)), __ATOMIC_RELEASE);
}

/* Reserved and committed at once. */
static uint64_t put(struct ct_shmring *r, uint32_t call, uint32_t n_args, uint32_t n_mem, const char *str)
{
	uint64_t pos = reserve(r, packed_len(n_args, n_mem, str ? (uint32_t)strlen(str) + 1 : 0));

	write_rec(r, pos, call, n_args, n_mem, str, true);
	return pos;
}

/* A ring of 64 KiB read by on_rec into g, and at every consume: no pacing. */
static void open_ring(struct ct_shmring *r, struct got *g)
{
	assert_int_equal(ct_shmring_create(r, 1 << 16, false, on_rec, g), 0);
	ct_shmring_stop(r);
}

static void reserved_not_written(void **state)
{
	struct ct_shmring r;
	struct got g = { 0 };
	uint64_t a;

	(void)state;
	open_ring(&r, &g);
	a = reserve(&r, packed_len(0, 0, 0));
	assert_int_equal(a, 0);
	/* Reserved, the header not yet written: zeroes at position 0. */
	assert_int_equal(ct_shmring_consume(&r), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(r.head->cons_pos, 0);
	/* Being written. */
	write_rec(&r, a, 5, 0, 0, NULL, false);
	assert_int_equal(ct_shmring_consume(&r), 0);
	assert_int_equal(g.n, 0);
	/* A second producer's record after it, committed first: still behind the first. */
	put(&r, 6, 1, 0, NULL);
	assert_int_equal(ct_shmring_consume(&r), 0);
	/* Committed: both, in order, whole. */
	write_rec(&r, a, 5, 0, 0, NULL, true);
	assert_int_equal(ct_shmring_consume(&r), 2);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.len[0], CT_REC_HEAD_SIZE);
	assert_int_equal(g.rec[0].call, 5);
	assert_int_equal(g.len[1], CT_REC_HEAD_SIZE + 8);
	assert_int_equal(g.rec[1].call, 6);
	assert_int_equal(r.head->cons_pos, r.head->prod_pos);
	assert_false(r.broken);
	ct_shmring_close(&r);
}

/* A producer killed between its reservation and its header's write: after
 * STUCK_NS its record is counted lost and the records after it are read
 * (before: none of them was, nor counted). */
static void dead_reservation_read_past(void **state)
{
	struct ct_shmring r;
	struct got g = { 0 };
	uint64_t s[CT_SHM_STAT_MAX];

	(void)state;
	assert_int_equal(ct_shmring_create(&r, 1 << 16, false, on_rec, &g), 0);
	put(&r, 4, 0, 0, NULL);
	reserve(&r, packed_len(2, 1, 0)); /* never written */
	put(&r, 5, 1, 0, NULL);
	put(&r, 6, 0, 0, "name");
	assert_int_equal(ct_shmring_consume(&r), 1);
	assert_int_equal(g.n, 1);
	r.stuck_ns = 1; /* as if it had waited past STUCK_NS */
	r.read_ns = 0;
	assert_int_equal(ct_shmring_consume(&r), 2);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.rec[1].call, 5);
	assert_int_equal(g.rec[2].call, 6);
	assert_string_equal(g.rec[2].str, "name");
	assert_int_equal(r.head->cons_pos, r.head->prod_pos);
	assert_false(r.broken);
	ct_shmring_stats(&r, s);
	assert_int_equal(s[CT_SHM_LOST], 1);
	/* The last reservation dead, at the stop: counted, the ring read to its end. */
	reserve(&r, packed_len(0, 0, 0));
	ct_shmring_stop(&r);
	assert_int_equal(ct_shmring_consume(&r), 0);
	r.stuck_ns = 1;
	assert_int_equal(ct_shmring_consume(&r), 0);
	assert_int_equal(r.head->cons_pos, r.head->prod_pos);
	ct_shmring_stats(&r, s);
	assert_int_equal(s[CT_SHM_LOST], 2);
	ct_shmring_close(&r);
}

/* The fields of every record write_rec() writes, unpacked. */
static void assert_header(const struct ct_record *rec, uint32_t call)
{
	assert_int_equal(rec->ts_ns, 1000);
	assert_int_equal(rec->dur_ns, 50);
	assert_int_equal(rec->pid, 7);
	assert_int_equal(rec->tid, 8);
	assert_int_equal(rec->call, call);
	assert_int_equal(rec->depth, 1);
	assert_int_equal(rec->parent, 33);
	assert_int_equal(rec->ret, 0x1234);
	assert_int_equal(rec->cgroup, 0);
	assert_int_equal(rec->ustack, 0);
	assert_int_equal(rec->pystack, 0);
	assert_string_equal(rec->comm, "worker");
}

/*
 * A packed record reaches the callback as the struct ct_record the eBPF
 * engine sends for the same call: its prefix through the last word used
 * (the memory words, or the string's NUL), the argument slots the record
 * did not carry zero, the memory words after the arguments' slots.
 */
static void unpacked(void **state)
{
	struct ct_shmring r;
	struct got g = { 0 };

	(void)state;
	open_ring(&r, &g);
	put(&r, 9, 1, 1, NULL);      /* cudaGetDevice's: one argument, one memory word */
	put(&r, 10, 2, 0, "hello");  /* two arguments and a string, no memory words */
	put(&r, 11, 4, 0, NULL);     /* four arguments alone */
	assert_int_equal(ct_shmring_consume(&r), 3);

	assert_int_equal(g.len[0], offsetof(struct ct_record, mem) + 8);
	assert_header(&g.rec[0], 9);
	assert_int_equal(g.rec[0].flags, 0);
	assert_int_equal(g.rec[0].args[0], 100);
	for (int i = 1; i < CT_REC_ARGS; i++)
		assert_int_equal(g.rec[0].args[i], 0);
	assert_int_equal(g.rec[0].mem[0], 200);

	assert_int_equal(g.len[1], offsetof(struct ct_record, str) + 6);
	assert_header(&g.rec[1], 10);
	assert_int_equal(g.rec[1].flags, CT_REC_HAS_STR);
	assert_int_equal(g.rec[1].args[0], 100);
	assert_int_equal(g.rec[1].args[1], 101);
	for (int i = 2; i < CT_REC_ARGS; i++)
		assert_int_equal(g.rec[1].args[i], 0);
	for (int i = 0; i < CT_REC_MEM; i++)
		assert_int_equal(g.rec[1].mem[i], 0);
	assert_string_equal(g.rec[1].str, "hello");

	assert_int_equal(g.len[2], offsetof(struct ct_record, args) + 4 * 8);
	assert_header(&g.rec[2], 11);
	assert_int_equal(g.rec[2].args[3], 103);
	assert_false(r.broken);
	ct_shmring_close(&r);
}

/* A header whose stamp is the same place's on the ring's last lap is a
 * record not yet written there: never read as the new one. */
static void stale_lap_not_read(void **state)
{
	struct ct_shmring r;
	struct got g = { 0 };
	uint64_t a;

	(void)state;
	open_ring(&r, &g);
	/* The last lap's record, read; then the ring goes round to it again. */
	put(&r, 3, 1, 0, NULL);
	assert_int_equal(ct_shmring_consume(&r), 1);
	r.head->prod_pos = r.head->cons_pos = r.size;
	a = reserve(&r, packed_len(1, 0, 0));
	assert_int_equal(a & (r.size - 1), 0);
	assert_int_equal(ct_shmring_consume(&r), 0);
	assert_int_equal(g.n, 1);
	write_rec(&r, a, 4, 1, 0, NULL, true);
	assert_int_equal(ct_shmring_consume(&r), 1);
	assert_int_equal(g.rec[1].call, 4);
	assert_false(r.broken);
	ct_shmring_close(&r);
}

/* A header whose length and word counts cannot be a record (a producer
 * that is not ours): nothing delivered, the ring no longer read. */
static void malformed_refused(void **state)
{
	static const uint32_t bad[] = {
		13u << CT_SHM_ARGS_SHIFT | (CT_SHM_FIXED + 13) * 8,        /* 13 argument words */
		9u << CT_SHM_MEM_SHIFT | (CT_SHM_FIXED + 9) * 8,           /* 9 memory words */
		2u << CT_SHM_ARGS_SHIFT | (CT_SHM_FIXED + 1) * 8,          /* shorter than its words */
		(CT_SHM_FIXED * 8) + CT_REC_STR + 1,                        /* a string past CT_REC_STR */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ct_shmring r;
		struct got g = { 0 };
		uint64_t a;

		open_ring(&r, &g);
		a = reserve(&r, bad[i] & CT_SHM_LEN_MASK);
		*(uint64_t *)(r.data + a) = CT_SHM_HDR(a, bad[i]);
		assert_int_equal(ct_shmring_consume(&r), 0);
		assert_int_equal(g.n, 0);
		assert_true(r.broken);
		ct_shmring_close(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reserved_not_written),
		cmocka_unit_test(dead_reservation_read_past),
		cmocka_unit_test(unpacked),
		cmocka_unit_test(stale_lap_not_read),
		cmocka_unit_test(malformed_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
