/* SPDX-License-Identifier: MIT */
/*
 * A recorded call line made an event again, as the decoder made it live:
 * the plugin the line names is loaded and its API table gives the event
 * its row (flags, argument kinds and roles, enum and error tables), so that
 * sinks see what they saw live. The line's values are read back by each
 * argument's kind (docs/events.md); a kernel or handle that was named keeps
 * its name (its address was not recorded).
 *
 * A plugin that cannot be loaded is an error (its calls cannot be read); an
 * API its table does not have (a trace from another version) is skipped and
 * counted.
 */
#ifndef CT_REPORT_REPLAY_H
#define CT_REPORT_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <cudatracer/event.h>
#include "config/config.h"
#include "plugin/loader.h"
#include "util/u64map.h"

struct ct_replay_skip {
	char plugin[32], api[128];
	uint64_t n;
};

struct ct_replay {
	char **dirs;
	struct ct_loaded_plugin plugins[CT_MAX_PLUGINS];
	struct ct_u64map by_name[CT_MAX_PLUGINS]; /* hash of a symbol -> api index + 1 */
	int n_plugins;
	int64_t wall_offset_ns;    /* the trace's: mono = ts - offset */
	struct ct_event ev;        /* the last line's */
	struct ct_comm_info comm;
	struct ct_proc_env env;
	char comm_text[64], parent_plugin[32], parent_api[128];
	char *arena;               /* the line's strings; room for the whole line */
	size_t arena_cap, arena_len;
	/* The line's stack (--stacks): frames whose strings are in the arena. */
	struct ct_frame_info *frames;
	uint32_t n_frames, frames_cap;
	struct ct_callstack stack;
	struct ct_py_frames *py;   /* its Python frames */
	uint32_t py_cap;
	/* NVTX (docs/nvtx.md): a call line's `nvtx` list (strings in the arena),
	 * and the last range or mark line. */
	const char *nvtx[64];
	struct ct_nvtx_event nvtx_ev;
	/* The GPUs the lines named (gpu_uuid, gpu_bus), each kept once so that
	 * its events point at one; minor: its place here. */
	struct ct_gpu_info gpus[64];
	size_t n_gpus;
	struct ct_replay_skip *skips; /* APIs not in the loaded tables */
	size_t n_skips;
	uint64_t skipped, other_kinds;
};

/* `preload`: plugins (names or paths) loaded first, matched by their name. */
int ct_replay_init(struct ct_replay *r, const char *plugin_path, const struct ct_list *preload,
		   int64_t wall_offset_ns);
/*
 * One line of a trace: 0 and r->ev filled; CT_REPLAY_NVTX and r->nvtx_ev
 * filled for an NVTX range or mark line; 1 when it is skipped (an API the
 * plugin does not have, a kind of line that is neither: counted); <0 on an
 * error, said with path:lineno.
 */
#define CT_REPLAY_NVTX 2
int ct_replay_line(struct ct_replay *r, const char *line, size_t len, const char *path, long lineno);
struct ct_jp;
/* A line's gpu_uuid (uuid) or gpu_bus: 0, or -EINVAL when it is not of the
 * shape the driver gives it (the line is damaged). */
int ct_replay_gpu_text(struct ct_jp *j, char *out, size_t cap, bool uuid);
/* The replay's one copy of a GPU the lines named, the same for every line
 * (call or GPU activity) that names it; NULL past 64 (not named). */
const struct ct_gpu_info *ct_replay_gpu(struct ct_replay *r, const struct ct_gpu_info *g);
void ct_replay_free(struct ct_replay *r);

struct ct_jp;
/* A line's "communicator" object (merge reads it too). */
int ct_replay_comm(struct ct_jp *j, struct ct_comm_info *c);

#endif
