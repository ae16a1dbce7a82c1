// SPDX-License-Identifier: MIT
/*
 * ct-floor: attach do-nothing BPF programs to the same symbols cudatracer
 * would probe, so that a benchmark can measure what the kernel's uprobes
 * cost by themselves. With --programs clock or record, programs that do
 * only the parts of a timed record (two clock reads; and one record sent
 * to a ring buffer per call, which this program drains). With --attach
 * session, the same as uprobe session programs (one program at entry and
 * return, as cudatracer's tracer.attach = session). Runs until
 * SIGINT/SIGTERM.
 *   ct-floor PLUGIN.so FILE [--entry-only GLOB] [--programs empty|clock|record]
 *            [--attach multi|session]
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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

/* The kernel's attach type of uprobe session programs; libbpf 1.4 has no name for it. */
#define CT_TRACE_UPROBE_SESSION 57

/* One session link for every probe; cookie 1: an entry-only API's (its return declined). */
static int attach_session(struct bpf_program *prog, const char *file, const unsigned long *offs,
			  const uint64_t *cookies, size_t n, int *fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = bpf_program__fd(prog);
	attr.link_create.attach_type = CT_TRACE_UPROBE_SESSION;
	attr.link_create.uprobe_multi.path = (uint64_t)(uintptr_t)file;
	attr.link_create.uprobe_multi.offsets = (uint64_t)(uintptr_t)offs;
	attr.link_create.uprobe_multi.cookies = (uint64_t)(uintptr_t)cookies;
	attr.link_create.uprobe_multi.cnt = (uint32_t)n;
	*fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return *fd < 0 ? -errno : 0;
}

static int drop(void *ctx, void *data, size_t len)
{
	return 0;
}

int main(int argc, char **argv)
{
	const char *entry_only = NULL, *set = "empty";
	bool session = false;
	char prog[64];
	int session_fd = -1;
	uint64_t *cookies = NULL;
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
		fprintf(stderr, "usage: ct-floor PLUGIN.so FILE [--entry-only GLOB] [--programs empty|clock|record] "
			"[--attach multi|session]\n");
		return 2;
	}
	for (int i = 3; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--entry-only")) {
			entry_only = argv[i + 1];
		} else if (!strcmp(argv[i], "--programs") && (!strcmp(argv[i + 1], "empty") ||
			   !strcmp(argv[i + 1], "clock") || !strcmp(argv[i + 1], "record"))) {
			set = argv[i + 1];
		} else if (!strcmp(argv[i], "--attach") && (!strcmp(argv[i + 1], "multi") ||
			   !strcmp(argv[i + 1], "session"))) {
			session = !strcmp(argv[i + 1], "session");
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
	cookies = calloc(n, sizeof(*cookies));
	if (!names || !offs || !eo || !xo || !cookies)
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
		cookies[ne] = entry_only && !fnmatch(entry_only, names[i], 0);
		eo[ne++] = offs[i];
		if (!cookies[ne - 1])
			xo[nx++] = offs[i];
	}
	obj = bpf_object__open_mem(ct_bpf_empty_start, ct_bpf_empty_end - ct_bpf_empty_start, NULL);
	if (obj) {
		struct bpf_program *p;

		/* Only the programs used are loaded: a kernel without sessions loads the rest. */
		snprintf(prog, sizeof(prog), "%s_session", set);
		bpf_object__for_each_program(p, obj)
			bpf_program__set_autoload(p, !strcmp(bpf_program__name(p), prog) ? session
						  : !session && !strstr(bpf_program__name(p), "_session"));
		p = bpf_object__find_program_by_name(obj, prog);
		if (session && p)
			bpf_program__set_expected_attach_type(p, (enum bpf_attach_type)CT_TRACE_UPROBE_SESSION);
	}
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "ct-floor: cannot load the empty programs%s\n",
			session ? " (uprobe session programs need kernel 6.13+)" : "");
		goto cleanup;
	}
	if (session ? attach_session(bpf_object__find_program_by_name(obj, prog), argv[2], eo, cookies, ne,
				     &session_fd)
		    : attach(obj, set, "entry", argv[2], eo, ne, false, &l1) ||
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
	fprintf(stderr, "ct-floor: %zu entry and %zu exit probes attached (%s programs%s)\n", ne, nx, set,
		session ? ", uprobe session" : "");
	/* The records are sent without wake-ups: drained every 10 ms. */
	while (!done) {
		ring_buffer__consume(ring);
		usleep(10000);
	}
	err = 0;
cleanup:
	ring_buffer__free(ring);
	if (session_fd >= 0)
		close(session_fd);
	bpf_link__destroy(l2);
	bpf_link__destroy(l1);
	bpf_object__close(obj);
	free(names);
	free(offs);
	free(eo);
	free(xo);
	free(cookies);
	ct_plugin_unload(&lp);
	return err;
}
