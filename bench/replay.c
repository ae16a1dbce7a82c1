// SPDX-License-Identifier: MIT
/*
 * ct-replay: the user-space path alone, with no kernel involved. Feeds N
 * synthetic records of a plugin, each cut to the bytes the engine sends for
 * its API and made whole as the reader does, through the decoder and one
 * sink type writing to PATH (default /dev/null), and prints one JSON line:
 * events per second per core (CPU time of this process) and peak RSS.
 *   ct-replay PLUGIN.so N SINK-TYPE [PATH]     (SINK-TYPE "none": decode only)
 * Each run is its own process, so its peak RSS is its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "config/config.h"
#include "decode/decode.h"
#include "sinks/output.h"
#include "plugin/loader.h"

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A mix like a training loop's: launches, async copies, alloc/free pairs, syncs. */
static const char *const mix[] = { "cudaLaunchKernel", "cudaLaunchKernel", "cudaLaunchKernel",
				   "cudaMemcpyAsync", "cudaMalloc", "cudaFree", "cudaStreamSynchronize" };

static int api_index(const struct ct_plugin *p, const char *sym)
{
	for (size_t i = 0; i < p->n_apis; i++)
		if (!strcmp(p->apis[i].symbol, sym))
			return (int)i;
	return 0;
}

int main(int argc, char **argv)
{
	struct ct_loaded_plugin lp;
	struct ct_output out = { 0 };
	struct ct_run_stats st = { 0 };
	struct ct_config conf;
	struct ct_record r, whole;
	struct ct_event ev;
	struct rusage ru;
	int idx[sizeof(mix) / sizeof(mix[0])];
	size_t sent[sizeof(mix) / sizeof(mix[0])]; /* bytes the engine sends for each */
	bool sink;
	long n;
	double t0, t1;

	if (argc < 4) {
		fprintf(stderr, "usage: ct-replay PLUGIN.so N SINK-TYPE [PATH]\n");
		return 2;
	}
	n = atol(argv[2]);
	sink = strcmp(argv[3], "none") != 0;
	if (ct_plugin_load(argv[1], NULL, &lp))
		return 1;
	for (size_t i = 0; i < sizeof(mix) / sizeof(mix[0]); i++) {
		uint8_t stack;

		idx[i] = api_index(lp.p, mix[i]);
		sent[i] = ct_record_words(&lp.p->apis[idx[i]], &stack) * 8;
	}
	ct_config_init(&conf);
	if (sink && (ct_config_add_sink(&conf, argv[3], argc > 4 ? argv[4] : "/dev/null") ||
		     ct_config_finish(&conf) || ct_output_open(&out, &conf)))
		return 1;

	memset(&r, 0, sizeof(r));
	strcpy(r.comm, "python3");
	r.pid = 4242;
	t0 = cpu_seconds();
	for (long i = 0; i < n; i++) {
		int k = i % (sizeof(mix) / sizeof(mix[0]));

		r.call = idx[k];
		r.ts_ns = 1795948855097976711ull + i * 1000; /* a real clock's 19 digits */
		r.dur_ns = 500 + (i * 7919) % 5000;
		r.tid = 4242 + (i & 3);
		r.ret = (i % 1000) == 0 ? 2 : 0;
		/* Launches run one of 8 kernels; the pointer freed is the one allocated. */
		r.args[0] = k < 3 ? 0x401000ull + (i % 8) * 0x40 : 0x7f0000000000ull + (i / 7) * 4096;
		r.args[1] = (i & 63) + 1;
		r.args[2] = 1ull << 20;
		r.args[3] = 256;
		r.args[4] = 1;
		r.mem[0] = r.args[0];
		/* As the reader gets it: the prefix the API uses, made whole. */
		ct_decode(lp.p, ct_record_whole(&r, sent[k], &whole), 0, &ev);
		if (sink)
			ct_output_event(&out, &ev);
		/* the reader's tick, about once a second at a million events a second */
		if (sink && (i & ((1 << 20) - 1)) == 0)
			ct_output_tick(&out, r.ts_ns);
	}
	if (sink)
		ct_output_close(&out, &st);
	t1 = cpu_seconds();
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"sink\": \"%s\", \"events\": %ld, \"cpu_s\": %.3f, \"events_per_s_per_core\": %.0f, \"peak_rss_kb\": %ld}\n",
	       argv[3], n, t1 - t0, n / (t1 - t0), ru.ru_maxrss);
	ct_config_free(&conf);
	ct_plugin_unload(&lp);
	return 0;
}
