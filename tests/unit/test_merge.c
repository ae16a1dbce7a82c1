// SPDX-License-Identifier: MIT
/*
 * The merge's alignment and straggler computation on synthetic jsonl: two
 * hosts, host b's wall clock 5 s ahead, three collectives whose ends
 * coincide in true time and whose stragglers are known; a second trace of
 * host a taken after an NTP step (another wall offset, the same monotonic
 * clock) is rebased, not shifted; and the JSON reader on cut lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "decode/procenv.h"
#include "report/json.h"
#include "merge/merge.h"

#define OFF_A 1000000000000000000ll /* host a: wall = mono + OFF_A */
#define SKEW_B 5000000000ll         /* host b's wall clock runs 5 s ahead */

static char *tmp_path(const char *name)
{
	static char buf[4][256];
	static int i;
	char *p = buf[i++ % 4];

	snprintf(p, 256, "%s/%s", CT_TEST_TMP, name);
	return p;
}

static FILE *trace(const char *path, const char *host, const char *boot, long long off)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "{\"kind\":\"meta\",\"host\":\"%s\",\"boot_id\":\"%s\",\"wall_offset_ns\":%lld}\n", host, boot, off);
	return f;
}

/* A collective call of `rank` starting at true monotonic time `start` and
 * ending at `end`, written with the trace's own wall offset. */
static void call(FILE *f, long long off, int rank, int seq, long long start, long long end)
{
	fprintf(f, "{\"ts_ns\":%lld,\"plugin\":\"nccl\",\"api\":\"ncclAllReduce\",\"pid\":%d,\"tid\":%d,"
		"\"comm\":\"r\",\"depth\":0,\"rank\":%d,\"world_size\":3,\"job_id\":\"7\",\"host\":\"x\","
		"\"communicator\":{\"rank\":%d,\"nranks\":3,\"id\":\"0xabc\",\"seq\":%d},\"bytes\":64,"
		"\"dur_ns\":%lld,\"result\":0,\"result_name\":\"ncclSuccess\",\"error\":false,"
		"\"args\":{\"count\":16,\"datatype\":\"ncclFloat32\"}}\n",
		start + off, 100 + rank, 100 + rank, rank, rank, seq, end - start);
}

static void test_align_and_stragglers(void **state)
{
	/* True (monotonic) arrivals per collective and rank; each ends at 1000 + 10 ms * seq. */
	static const long long arrive[3][3] = {
		{ 0, 2000000, 9000000 },        /* seq 1: rank 2 is 9 ms after rank 0 */
		{ 15000000, 11000000, 12000000 }, /* seq 2: rank 0, 4 ms after rank 1 */
		{ 21000000, 29000000, 20000000 }, /* seq 3: rank 1, 9 ms after rank 2 */
	};
	const long long step = 777; /* host a's second trace: the NTP step since the first */
	char *pa = tmp_path("a.jsonl"), *pa2 = tmp_path("a2.jsonl"), *pb = tmp_path("b.jsonl");
	char *paths[] = { pa, pa2, pb };
	FILE *fa = trace(pa, "a", "boot-a", OFF_A), *fa2 = trace(pa2, "a", "boot-a", OFF_A + step);
	FILE *fb = trace(pb, "b", "boot-b", OFF_A + SKEW_B + 123456789);
	struct ct_merge m = { .tolerance_ns = 100000 };
	struct ct_straggler *s;
	size_t n;

	for (int seq = 1; seq <= 3; seq++) {
		long long end = 30000000 + 10000000ll * seq;

		call(fa, OFF_A, 0, seq, arrive[seq - 1][0], end);
		call(fa2, OFF_A + step, 1, seq, arrive[seq - 1][1], end);
		/* host b's own monotonic clock is elsewhere: what counts is its wall clock */
		call(fb, OFF_A + SKEW_B, 2, seq, arrive[seq - 1][2], end);
	}
	fclose(fa), fclose(fa2), fclose(fb);

	assert_int_equal(ct_merge_load(&m, paths, 3), 0);
	assert_int_equal(m.n_procs, 3);
	assert_int_equal(ct_merge_align(&m), 0);
	assert_int_equal(m.n_domains, 2);
	assert_int_equal(m.domains[0].shift_ns, 0);
	assert_int_equal(m.domains[1].shift_ns, -SKEW_B);
	assert_int_equal(m.domains[1].matched, 3);
	assert_true(m.domains[1].aligned);
	assert_int_equal(ct_merge_check_overlap(&m), 0);
	/* every event back at its true time on host a's first clock */
	for (size_t i = 0; i < m.n_events; i++) {
		const struct ct_mevent *e = &m.events[i];
		int rank = m.procs[e->proc].rank;

		assert_int_equal(ct_merge_ts(&m, e), (uint64_t)(arrive[e->comm_seq - 1][rank] + OFF_A));
	}
	assert_int_equal(ct_merge_stragglers(&m, &s, &n), 0);
	assert_int_equal(n, 3);
	{
		static const int last[3] = { 2, 0, 1 };
		static const long long late[3] = { 9000000, 4000000, 9000000 };

		for (int i = 0; i < 3; i++) {
			assert_int_equal(s[i].seq, i + 1);
			assert_int_equal(s[i].ranks, 3);
			assert_int_equal(m.procs[s[i].last_proc].rank, last[i]);
			assert_int_equal(s[i].last_ns - s[i].first_ns, late[i]);
		}
	}
	free(s);
	ct_merge_free(&m);

	/* Within the tolerance, a host is left as its clock says. */
	m = (struct ct_merge){ .tolerance_ns = 10000000000ll };
	assert_int_equal(ct_merge_load(&m, paths, 3), 0);
	assert_int_equal(ct_merge_align(&m), 0);
	assert_int_equal(m.domains[1].shift_ns, 0);
	assert_false(m.domains[1].aligned);
	ct_merge_free(&m);
	unlink(pa), unlink(pa2), unlink(pb);
}

static int any_key(void *ctx, const char *key, struct ct_jp *j)
{
	return 1;
}

static void test_json_whole_lines(void **state)
{
	static const char *const good[] = { "{}", "{\"a\":1}", "{\"a\":{\"b\":[1,2,{\"c\":null}]},\"d\":\"\\u0041\\\"\"}",
					    " { \"a\" : -1.5e3 , \"b\" : true } " };
	static const char *const bad[] = { "", "{", "{\"a\":1", "{\"a\":1,}", "{\"a\"}", "{\"a\":\"x}",
					   "{\"a\":tru}", "{\"a\":[1,2}", "[1]", "{\"a\":1}}" };

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct ct_jp j = { good[i], good[i] + strlen(good[i]) };

		assert_int_equal(ct_jp_object(&j, any_key, NULL), 0);
		assert_true(ct_jp_at_end(&j));
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ct_jp j = { bad[i], bad[i] + strlen(bad[i]) };

		assert_false(ct_jp_object(&j, any_key, NULL) == 0 && ct_jp_at_end(&j));
	}
}

static void test_procenv(void **state)
{
	/* torchrun's RANK wins over Slurm's; a bad number is no value; Slurm fills the rest */
	static const char env[] = "PATH=/bin\0SLURM_PROCID=7\0RANK=2\0LOCAL_RANK=x1\0SLURM_LOCALID=1\0"
				  "SLURM_NTASKS=8\0SLURM_JOB_ID=4242\0RANKS=9";
	static const char none[] = "PATH=/bin\0HOME=/root\0RANK=\0RANK=-3";
	struct ct_proc_env e;

	assert_true(ct_procenv_parse(env, sizeof(env) - 1, &e));
	assert_int_equal(e.rank, 2);
	assert_int_equal(e.local_rank, 1);
	assert_int_equal(e.world_size, 8);
	assert_string_equal(e.job_id, "4242");
	assert_false(ct_procenv_parse(none, sizeof(none) - 1, &e));
	assert_int_equal(e.rank, -1);
	/* Open MPI's, cut without a final NUL */
	assert_true(ct_procenv_parse("OMPI_COMM_WORLD_RANK=3", 22, &e));
	assert_int_equal(e.rank, 3);
	assert_int_equal(e.job_id[0], 0);
	/* The job id is the process's to choose: not UTF-8, controls, a line
	 * break, kept as '?' (a label value Prometheus and OTLP accept); valid
	 * UTF-8 kept as it is. */
	assert_true(ct_procenv_parse("SLURM_JOB_ID=j\xff\xfe" "1\n\x1b[2J\xc3\xa9", 24, &e));
	assert_string_equal(e.job_id, "j??1??[2J\xc3\xa9");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_align_and_stragglers),
		cmocka_unit_test(test_json_whole_lines),
		cmocka_unit_test(test_procenv),
	};

	mkdir(CT_TEST_TMP, 0700);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
