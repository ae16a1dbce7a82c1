/* SPDX-License-Identifier: MIT */
/*
 * The lines of a recorded trace that are not calls (docs/events.md): a GPU
 * activity line ("kind":"gpu") made the event --gpu-activity handed the
 * sinks live, so that `cudatracer report` replays a trace's kernels and
 * copies too; an NVTX range line read for the analysis's steps.
 */
#ifndef CT_REPORT_GPULINE_H
#define CT_REPORT_GPULINE_H

#include <stddef.h>
#include <stdint.h>
#include <cudatracer/event.h>

struct ct_gpuline {
	struct ct_gpu_event ev;
	char name[4200], copy_kind[16], src_kind[24], dst_kind[24], launch_api[128];
	char capture_api[128], capture_site[1024]; /* captured_by's (a trace without them: unset) */
	struct ct_gpu_info gpu; /* gpu_uuid, gpu_bus; uuid[0] 0: none (ev.gpu is the caller's to set) */
};

/*
 * 1 and g->ev filled (its strings in g) when the line is a GPU line; 0 when
 * it is another kind; -EINVAL when it is a GPU line that does not read.
 */
int ct_gpuline_read(struct ct_gpuline *g, const char *line, size_t len, int64_t wall_offset_ns);

/* An NVTX range line ("kind":"range"): 1 and its fields, 0 for another kind,
 * -EINVAL for a range line that does not read. */
struct ct_rangeline {
	uint32_t pid;
	uint64_t start, end;
	char name[4200];
};
int ct_rangeline_read(struct ct_rangeline *r, const char *line, size_t len);

#endif
