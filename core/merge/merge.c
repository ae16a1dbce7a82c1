// SPDX-License-Identifier: MIT
/* `cudatracer merge`: its command line, and the order of the work. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "merge/merge.h"
#include "report/tracefile.h"
#include "util/log.h"

static const char usage[] =
	"usage: cudatracer merge TRACE.jsonl|TRACE.db... -o chrome:PATH [-o summary[:PATH]]\n"
	"\n"
	"Put several jsonl traces (ranks, tracer instances, hosts) on one timeline.\n"
	"Traces of one host share its monotonic clock; other hosts are aligned on the\n"
	"ends of the collectives every rank made (docs/nccl.md).\n"
	"\n"
	"  -o chrome:PATH         one Perfetto/Chrome trace, a process per host and rank\n"
	"  -o summary[:PATH]      clock offsets applied and the straggler of each\n"
	"                         collective (default: stdout)\n"
	"      --tolerance NS     hosts whose collectives end within NS of each other are\n"
	"                         left as their clocks say (default 100000)\n"
	"  -v, --verbose          say more (twice: debug)\n"
	"  -q, --quiet            errors only\n"
	"  -h, --help\n";

int ct_merge_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ct_merge m = { .tolerance_ns = 100000 };
	const char *chrome = NULL, *summary = NULL;
	const char *outs[2];
	size_t n_outs = 0;
	bool want_summary = false;
	int opt, err;
	char *end;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:vqh", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			if (!strncmp(optarg, "chrome:", 7) && optarg[7]) {
				chrome = optarg + 7;
			} else if (!strcmp(optarg, "summary") || !strncmp(optarg, "summary:", 8)) {
				want_summary = true;
				summary = optarg[7] ? optarg + 8 : NULL;
			} else {
				ct_err("merge: -o %s: expected chrome:PATH or summary[:PATH]", optarg);
				return 2;
			}
			break;
		case 't':
			errno = 0;
			m.tolerance_ns = strtoll(optarg, &end, 10);
			if (errno || *end || m.tolerance_ns < 0) {
				ct_err("merge: --tolerance %s: not a number of nanoseconds", optarg);
				return 2;
			}
			break;
		case 'v': ct_verbosity++; break;
		case 'q': ct_verbosity = CT_LOG_ERROR; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind >= argc || (!chrome && !want_summary)) {
		if (optind >= argc)
			ct_err("merge: no trace given: name the jsonl traces to merge");
		else
			ct_err("merge: no output given: add -o chrome:PATH for the merged timeline, "
			       "-o summary[:PATH] for the offsets and stragglers, or both");
		fputs(usage, stderr);
		return 2;
	}
	if (chrome)
		outs[n_outs++] = chrome;
	if (want_summary)
		outs[n_outs++] = summary;
	if (ct_tracefile_refuse_outputs("merge", argv + optind, (size_t)(argc - optind), outs, n_outs))
		return 2;
	err = ct_merge_load(&m, argv + optind, (size_t)(argc - optind));
	if (!err)
		err = ct_merge_align(&m);
	if (!err)
		err = ct_merge_check_overlap(&m);
	/* Said whatever the outputs: a shift moves every event of a host. */
	for (size_t d = 1; !err && d < m.n_domains && ct_verbosity >= CT_LOG_WARN; d++)
		fprintf(stderr, "cudatracer merge: host %s: clock offset %+" PRId64 " ns applied "
			"(%d collectives matched with host %s)\n", m.domains[d].host, m.domains[d].shift_ns,
			m.domains[d].matched, m.domains[0].host);
	if (!err && chrome)
		err = ct_merge_write_chrome(&m, chrome);
	if (!err && want_summary)
		err = ct_merge_write_summary(&m, summary);
	if (err == -ENOMEM)
		ct_err("merge: out of memory");
	ct_merge_free(&m);
	return err ? 1 : 0;
}
