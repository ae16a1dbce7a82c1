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
	uint32_t call[4];
};

static int on_rec(void *ctx, void *data, size_t len)
{
	struct got *g = ctx;

	if (g->n < 4) {
		g->len[g->n] = len;
		g->call[g->n] = ((const struct ct_record *)data)->call;
	}
	g->n++;
	return 0;
}

/* What inproc/hooks.c's emit() does, in its three steps. */
static uint64_t reserve(struct ct_shmring *r, uint32_t len)
{
	uint64_t pos = r->head->prod_pos;

	r->head->prod_pos = pos + CT_SHM_REC_HDR + CT_SHM_ALIGN(len);
	return pos;
}

static void write_rec(struct ct_shmring *r, uint64_t pos, uint32_t len, uint32_t call, bool commit)
{
	unsigned char *p = r->data + (pos & (r->size - 1));
	struct ct_record rec = { .ts_ns = 1, .call = call, .pid = 7, .tid = 7 };

	memcpy(p + CT_SHM_REC_HDR, &rec, len);
	*(uint64_t *)p = CT_SHM_HDR(pos, len | (commit ? 0 : CT_SHM_BUSY));
}

static void reserved_not_written(void **state)
{
	struct ct_shmring r;
	struct got g = { 0 };
	uint64_t a, b;

	(void)state;
	assert_int_equal(ct_shmring_create(&r, 1 << 16, false, on_rec, &g), 0);
	ct_shmring_stop(&r); /* every consume reads: no pacing */
	a = reserve(&r, CT_REC_HEAD_SIZE);
	assert_int_equal(a, 0);
	/* Reserved, the header not yet written: zeroes at position 0. */
	assert_int_equal(ct_shmring_consume(&r), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(r.head->cons_pos, 0);
	/* Being written. */
	write_rec(&r, a, CT_REC_HEAD_SIZE, 5, false);
	assert_int_equal(ct_shmring_consume(&r), 0);
	assert_int_equal(g.n, 0);
	/* A second producer's record after it, committed first: still behind the first. */
	b = reserve(&r, CT_REC_HEAD_SIZE + 8);
	write_rec(&r, b, CT_REC_HEAD_SIZE + 8, 6, true);
	assert_int_equal(ct_shmring_consume(&r), 0);
	/* Committed: both, in order, whole. */
	write_rec(&r, a, CT_REC_HEAD_SIZE, 5, true);
	assert_int_equal(ct_shmring_consume(&r), 2);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.len[0], CT_REC_HEAD_SIZE);
	assert_int_equal(g.call[0], 5);
	assert_int_equal(g.len[1], CT_REC_HEAD_SIZE + 8);
	assert_int_equal(g.call[1], 6);
	assert_int_equal(r.head->cons_pos, r.head->prod_pos);
	assert_false(r.broken);
	ct_shmring_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reserved_not_written),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
