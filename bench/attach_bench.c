// SPDX-License-Identifier: MIT
/*
 * ct-attach-bench: how long attaching 400 probes (entry and exit) takes,
 * with uprobe_multi and with one link per symbol. The plugin is the cudart
 * plugin's BPF object with a generated 400-row table naming the functions
 * of libct_many_funcs.so. Prints one JSON line. Needs root.
 *   ct-attach-bench CUDART-PLUGIN.so LIB
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "plugin/loader.h"
#include "capture/probe.h"

#define N 400

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double attach_once(struct ct_loaded_plugin *lp, const char *lib, enum ct_attach_mode mode, int *n)
{
	bool enabled[N];
	struct ct_probe_opts o = { .ringbuf_size = 1 << 16, .pids_fd = -1, .callstack_fd = -1, .mode = mode, .enabled = enabled };
	struct ct_probe pr;
	double t0, t1;

	for (int i = 0; i < N; i++)
		enabled[i] = true;
	if (ct_probe_open(&pr, lp, &o))
		return -1;
	t0 = now_ms();
	*n = ct_probe_attach_file(&pr, lib, lib);
	t1 = now_ms();
	ct_probe_close(&pr);
	return *n > 0 ? t1 - t0 : -1;
}

int main(int argc, char **argv)
{
	static const struct ct_arg bench_arg = CT_ARG("x", CT_ARG_INT, CT_SLOT(0), 4, CT_ROLE_NONE);
	static struct ct_api apis[N];
	static char names[N][32];
	struct ct_loaded_plugin real, fake;
	struct ct_plugin desc;
	double multi, single;
	int nm = 0, ns = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: ct-attach-bench CUDART-PLUGIN.so LIB\n");
		return 2;
	}
	if (ct_plugin_load(argv[1], NULL, &real))
		return 1;
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "ct_bench_f%d", i);
		apis[i].symbol = names[i];
		apis[i].str_slot = CT_NO_STR;
		apis[i].n_args = 1;
		apis[i].args = &bench_arg;
	}
	desc = *real.p;
	desc.name = "bench";
	desc.apis = apis;
	desc.n_apis = N;
	fake = real;
	fake.p = &desc;
	multi = attach_once(&fake, argv[2], CT_ATTACH_MULTI, &nm);
	single = attach_once(&fake, argv[2], CT_ATTACH_SINGLE, &ns);
	printf("{\"probes\": %d, \"uprobe_multi_ms\": %.1f, \"one_link_per_symbol_ms\": %.1f}\n", nm, multi, single);
	ct_plugin_unload(&real);
	return multi < 0 || single < 0;
}
