/* SPDX-License-Identifier: MIT */
/*
 * Where and when a trace was taken, as the file sinks record it first
 * (jsonl's meta line, sqlite's meta table; docs/events.md): the host, its
 * boot, the tracer's pid and both clocks read together, so that `cudatracer
 * merge` can put several hosts' traces on one timeline.
 * CUDATRACER_TEST_HOST and CUDATRACER_TEST_CLOCK_SKEW_NS make a tracer act
 * as another host whose wall clock is that far off: a test hook.
 */
#ifndef CT_SINKS_RUNMETA_H
#define CT_SINKS_RUNMETA_H

#include <stdint.h>

struct ct_run_meta {
	char host[256], boot_id[64];
	uint32_t tracer_pid;
	uint64_t wall_ns, mono_ns; /* read together; wall_ns includes the skew */
	int64_t skew_ns;           /* the test hook's, else 0 */
};

void ct_run_meta_read(struct ct_run_meta *m);

#endif
