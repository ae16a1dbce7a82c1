// SPDX-License-Identifier: MIT
/*
 * ct-floor: attach do-nothing BPF programs to the same symbols cudatracer
 * would probe, so that a benchmark can measure what the kernel's uprobes
 * cost by themselves. With --programs clock or record, programs that do
 * only the parts of a timed record (two clock reads; and one record sent
 * to a ring buffer per call, which this program drains). Runs until
 * SIGINT/SIGTERM.
 *   ct-floor PLUGIN.so FILE [--entry-only GLOB] [--programs empty|clock|record]
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/elf.h"
#include "plugin/loader.h"

extern const char ct_bpf_empty_start[], ct_bpf_empty_end[];
static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	done = 1;
}

static int attach(struct bpf_object *obj, const char *set, const char *kind, const char *file,
		  unsigned long *offs, size_t n, bool ret, struct bpf_link **out)
{
	LIBBPF_OPTS(bpf_uprobe_multi_opts, o, .offsets = offs, .cnt = n, .retprobe = ret);
	char name[64];

	if (!n)
		return 0;
	snprintf(name, sizeof(name), "%s_%s", set, kind);
	*out = bpf_program__attach_uprobe_multi(bpf_object__find_program_by_name(obj, name), -1, file, NULL, &o);
	return *out ? 0 : -errno;
}

static int drop(void *ctx, void *data, size_t len)
{
	return 0;
}

int main(int argc, char **argv)
{
	const char *entry_only = NULL, *set = "empty";
	struct ct_loaded_plugin lp;
	struct ring_buffer *ring = NULL;
	struct bpf_object *obj = NULL;
	struct bpf_link *l1 = NULL, *l2 = NULL;
	unsigned long *eo = NULL, *xo = NULL;
	uint64_t *offs = NULL;
	const char **names = NULL;
	size_t ne = 0, nx = 0, n;
	int err = 1;

	if (argc < 3 || argc % 2 == 0) {
		fprintf(stderr, "usage: ct-floor PLUGIN.so FILE [--entry-only GLOB] [--programs empty|clock|record]\n");
		return 2;
	}
	for (int i = 3; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--entry-only")) {
			entry_only = argv[i + 1];
		} else if (!strcmp(argv[i], "--programs") && (!strcmp(argv[i + 1], "empty") ||
			   !strcmp(argv[i + 1], "clock") || !strcmp(argv[i + 1], "record"))) {
			set = argv[i + 1];
		} else {
			fprintf(stderr, "ct-floor: unknown option %s %s\n", argv[i], argv[i + 1]);
			return 2;
		}
	}
	if (ct_plugin_load(argv[1], NULL, &lp))
		return 1;
	n = lp.p->n_apis;
	names = calloc(n, sizeof(*names));
	offs = calloc(n, sizeof(*offs));
	eo = calloc(n, sizeof(*eo));
	xo = calloc(n, sizeof(*xo));
	if (!names || !offs || !eo || !xo)
		goto cleanup;
	for (size_t i = 0; i < n; i++)
		names[i] = lp.p->apis[i].symbol;
	if (ct_elf_resolve(argv[2], names, n, offs) <= 0) {
		fprintf(stderr, "ct-floor: %s defines none of the plugin's symbols\n", argv[2]);
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++) {
		if (!offs[i])
			continue;
		eo[ne++] = offs[i];
		if (!entry_only || fnmatch(entry_only, names[i], 0))
			xo[nx++] = offs[i];
	}
	obj = bpf_object__open_mem(ct_bpf_empty_start, ct_bpf_empty_end - ct_bpf_empty_start, NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "ct-floor: cannot load the empty programs\n");
		goto cleanup;
	}
	if (attach(obj, set, "entry", argv[2], eo, ne, false, &l1) ||
	    attach(obj, set, "exit", argv[2], xo, nx, true, &l2)) {
		fprintf(stderr, "ct-floor: attach failed: %s\n", strerror(errno));
		goto cleanup;
	}
	ring = ring_buffer__new(bpf_map__fd(bpf_object__find_map_by_name(obj, "part_ring")), drop, NULL, NULL);
	if (!ring) {
		fprintf(stderr, "ct-floor: ring buffer: %s\n", strerror(errno));
		goto cleanup;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "ct-floor: %zu entry and %zu exit probes attached (%s programs)\n", ne, nx, set);
	/* The records are sent without wake-ups: drained every 10 ms. */
	while (!done) {
		ring_buffer__consume(ring);
		usleep(10000);
	}
	err = 0;
cleanup:
	ring_buffer__free(ring);
	bpf_link__destroy(l2);
	bpf_link__destroy(l1);
	bpf_object__close(obj);
	free(names);
	free(offs);
	free(eo);
	free(xo);
	ct_plugin_unload(&lp);
	return err;
}
