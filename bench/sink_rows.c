// SPDX-License-Identifier: MIT
/*
 * ct-sink-rows: one sink alone, fed events decoded once. The mix of
 * bench/replay.c is decoded up front; each of the N events is one of them
 * with its time, duration, thread and result changed, handed to the sink
 * writing PATH. Prints one JSON line: events (rows) per second per core
 * while they come (CPU time of this process, ticks included: what the
 * reader's thread spends), the CPU time of the sink's close (its final
 * output: the sqlite sink builds its indexes there), the file's size and
 * peak RSS. bench/sqlite_bench.sh runs it.
 *   ct-sink-rows PLUGIN.so N SINK-TYPE PATH
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include "config/config.h"
#include "decode/decode.h"
#include "sinks/output.h"
#include "plugin/loader.h"

#define N_MIX 7

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *const mix[N_MIX] = { "cudaLaunchKernel", "cudaLaunchKernel", "cudaLaunchKernel", "cudaMemcpyAsync",
					"cudaMalloc",       "cudaFree",         "cudaStreamSynchronize" };

int main(int argc, char **argv)
{
	static struct ct_event ev[N_MIX];
	struct ct_record rec[N_MIX], whole;
	struct ct_loaded_plugin lp;
	struct ct_output out = { 0 };
	struct ct_run_stats st = { 0 };
	struct ct_config conf;
	struct rusage ru;
	struct stat fst;
	long n;
	double t0, t1, t2;

	if (argc < 5) {
		fprintf(stderr, "usage: ct-sink-rows PLUGIN.so N SINK-TYPE PATH\n");
		return 2;
	}
	n = atol(argv[2]);
	if (ct_plugin_load(argv[1], NULL, &lp))
		return 1;
	for (int k = 0; k < N_MIX; k++) {
		uint8_t stack;
		size_t a = 0;

		while (a < lp.p->n_apis && strcmp(lp.p->apis[a].symbol, mix[k]))
			a++;
		memset(&rec[k], 0, sizeof(rec[k]));
		strcpy(rec[k].comm, "python3");
		rec[k].pid = rec[k].tid = 4242;
		rec[k].call = (uint32_t)a;
		rec[k].args[0] = k < 3 ? 0x401000ull + k * 0x40 : 0x7f0000000000ull;
		rec[k].args[1] = 64;
		rec[k].args[2] = 1ull << 20;
		rec[k].args[3] = 256;
		rec[k].args[4] = 1;
		rec[k].mem[0] = rec[k].args[0];
		ct_decode(lp.p, ct_record_whole(&rec[k], ct_record_words(&lp.p->apis[a], &stack) * 8, &whole), 0,
			  &ev[k]);
		ev[k].rec = NULL; /* the record is gone: the sink sees a replayed event */
	}
	ct_config_init(&conf);
	if (ct_config_add_sink(&conf, argv[3], argv[4]) || ct_config_finish(&conf) || ct_output_open(&out, &conf))
		return 1;
	t0 = cpu_seconds();
	for (long i = 0; i < n; i++) {
		struct ct_event *e = &ev[i % N_MIX];

		e->ts_ns = 1795948855097976711ull + i * 1000; /* a real clock's 19 digits */
		e->dur_ns = 500 + (i * 7919) % 5000;
		e->tid = 4242 + (i & 3);
		ct_output_event(&out, e);
		if ((i & ((1 << 20) - 1)) == 0) /* the reader's tick, about once a second */
			ct_output_tick(&out, e->ts_ns);
	}
	t1 = cpu_seconds();
	ct_output_close(&out, &st);
	t2 = cpu_seconds();
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"sink\": \"%s\", \"rows\": %ld, \"cpu_s\": %.3f, \"rows_per_s_per_core\": %.0f, \"close_s\": %.3f, "
	       "\"bytes\": %lld, \"peak_rss_kb\": %ld}\n",
	       argv[3], n, t1 - t0, n / (t1 - t0), t2 - t1, stat(argv[4], &fst) ? -1LL : (long long)fst.st_size,
	       ru.ru_maxrss);
	ct_config_free(&conf);
	ct_plugin_unload(&lp);
	return 0;
}
