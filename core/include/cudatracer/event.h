/* SPDX-License-Identifier: MIT */
/*
 * A decoded event: what sinks see. Sinks are runtime-agnostic: they read
 * api flags and argument roles, never API names or raw records.
 */
#ifndef CUDATRACER_EVENT_H
#define CUDATRACER_EVENT_H

#include <stdbool.h>
#include <stdint.h>
#include <cudatracer/plugin.h>

#define CT_COMM_LEN 16 /* a thread's name, NUL included (the kernel's TASK_COMM_LEN) */

struct ct_field {
	const struct ct_arg *arg;  /* name, kind, role, enum names */
	uint64_t v;                /* the value (sign-extended for CT_ARG_INT) */
	uint64_t v3[3];            /* CT_ARG_DIM3 / CT_ARG_SIZES3 */
	uint8_t n3;                /* how many of v3 are meaningful */
	const char *str;           /* CT_ARG_STRING; a remembered name for handles */
	const char *enum_name;     /* CT_ARG_ENUM: name, or NULL if unknown */
	bool valid;                /* false: the read failed (e.g. unmapped pointer) */
};

/* A communicator as the calls that created or queried it told (decode/comms.c). */
struct ct_comm_info {
	int32_t rank, nranks; /* -1: not known */
	uint64_t id;          /* the first word of the id its members created it with; 0: none */
	uint64_t seq;         /* this call's place among the COLLECTIVE calls on it, from 1; 0: none */
};

/*
 * A process's place in a distributed job, from its environment
 * (decode/procenv.c): RANK or SLURM_PROCID or OMPI_COMM_WORLD_RANK,
 * LOCAL_RANK, WORLD_SIZE, SLURM_JOB_ID. -1 or "": not set.
 */
struct ct_proc_env {
	int32_t rank, local_rank, world_size;
	char job_id[64];
};

/*
 * The cgroup v2 a call was made from (decode/cgroup.c), and what its path
 * says of the container and the Kubernetes pod it runs in.
 */
struct ct_cgroup {
	uint64_t id;           /* the cgroup v2 id (its directory's inode on cgroup2fs) */
	const char *path;      /* under the v2 root, "/..."; NULL: not resolved (removed before) */
	const char *container; /* the container runtime's id (64 hex digits), or NULL */
	const char *pod;       /* the Kubernetes pod UID (8-4-4-4-12), or NULL */
};

/*
 * An NVIDIA GPU as its driver names it (/proc/driver/nvidia/gpus/BUS/information).
 * The minor number is the N of /dev/nvidiaN, not the CUDA index a process
 * sees (CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER renumber).
 */
struct ct_gpu_info {
	int32_t minor;
	char uuid[48];  /* "GPU-" and 8-4-4-4-12 hex digits */
	char bus[24];   /* PCI domain:bus:device.function, "0000:3b:00.0" */
};

/* Where an event's device came from (jsonl `device_from`, docs/events.md). */
enum ct_device_from {
	CT_DEVICE_FROM_NONE,     /* not known: device -1, no gpu */
	CT_DEVICE_FROM_CALL,     /* device: the thread's calls said */
	CT_DEVICE_FROM_VISIBLE,  /* device 0: CUDA_VISIBLE_DEVICES names one, and the process holds one GPU open */
	CT_DEVICE_FROM_OPEN_GPU, /* gpu only: the one GPU the process holds open; device -1 */
	CT_DEVICE_FROM_ONLY_GPU, /* device 0: the process holds the node's only GPU open, no CUDA_VISIBLE_DEVICES */
};

/*
 * One frame of a call stack (--stacks, docs/stacks.md). A native frame has
 * a module and an address; a Python frame (kind CT_FRAME_PYTHON) has
 * py_function, py_file and py_line. The last frame of a stack may instead
 * say why the stack ends there: CT_FRAME_TRUNCATED (deeper than was kept:
 * stacks.depth, or the copy of stacks.dwarf_bytes) or CT_FRAME_UNWOUND
 * (the unwinder found no way on: code with no unwind info, JIT code, a
 * module it could not read).
 */
enum ct_frame_kind { CT_FRAME_NATIVE, CT_FRAME_PYTHON, CT_FRAME_TRUNCATED, CT_FRAME_UNWOUND };

struct ct_frame_info {
	enum ct_frame_kind kind;
	uint64_t addr;         /* native: the return address, in the process */
	const char *module;    /* native: the mapped file (as the process names it); NULL: none (JIT, anonymous) */
	const char *function;  /* native: demangled; NULL: no symbol covers it ([unknown]) */
	uint64_t offset;       /* from the function's start; without a function, from the file's start */
	const char *py_function, *py_file; /* Python frames */
	uint32_t py_line;
	/* native: the source file and line of the call, from the module's DWARF
	 * line table (built with -g); NULL: none */
	const char *src_file;
	uint32_t src_line;
};

/* A call's stack, innermost frame first (the caller of the traced API). */
struct ct_callstack {
	const struct ct_frame_info *frames;
	uint32_t n;
	/* The same for the same frames in any process (modules by file name,
	 * functions, offsets): the allocation or error site sinks group by. */
	uint64_t site;
};

/*
 * Python frames of a call (docs/stacks-python.md), innermost first. A frame
 * whose function or line could not be recovered has "?" or line 0, and
 * `why` says what was missing; NULL otherwise.
 */
struct ct_py_frame_info {
	const char *function, *file;
	int32_t line;
	const char *why;
};

struct ct_py_frames {
	uint32_t n;
	bool truncated;       /* deeper than the engine keeps: the outermost are cut */
	struct ct_py_frame_info f[];
};

struct ct_event {
	const struct ct_record *rec;
	const struct ct_plugin *plugin;
	const struct ct_api *api;
	uint32_t api_idx;
	uint64_t ts_ns;       /* wall clock, ns since the epoch */
	uint64_t mono_ns;     /* CLOCK_MONOTONIC, as captured */
	uint64_t dur_ns;
	uint32_t pid, tid;
	uint32_t depth;
	/* With several plugins: the other plugin's call this one was made in
	 * (a driver call inside a runtime call); NULL if none. */
	const char *parent_plugin, *parent_api;
	const char *comm;
	bool entry_only;      /* no result, no duration */
	bool has_result;
	int64_t result;       /* the error code */
	const char *result_name; /* NULL if the code is not in the plugin's table */
	bool is_error;
	bool has_ret_handle;
	uint64_t ret_handle;  /* CT_RES_HANDLE */
	uint8_t n_fields;
	struct ct_field fields[CT_MAX_ARGS];
	/* The communicator a call with a COMM or COMM_NEW argument used or
	 * created, once known; NULL otherwise. */
	const struct ct_comm_info *comm_info;
	/* The process's job environment; NULL when it has none of the variables. */
	const struct ct_proc_env *env;
	/* The thread's current device as its calls told (decode/device.c): the
	 * device a SET_DEVICE call made current, or that of its current context;
	 * -1 while none of its calls said (attached mid-run). */
	int32_t device;
	/* The calling thread's cgroup; NULL when the record has none (cgroup id
	 * 0). Valid while the event is dispatched: a sink copies what it keeps. */
	const struct ct_cgroup *cgroup;
	/* --stacks: the call's stack; NULL when it has none (its API was not
	 * chosen, or it could not be taken: counted). Valid during the event. */
	const struct ct_callstack *stack;
	/* The Python frames of the call (--stacks); NULL: none. */
	const struct ct_py_frames *py_stack;
	/* Where `device` came from; and the GPU itself when the process holds
	 * exactly one open (decode/procgpu.c), NULL otherwise: whatever device
	 * says, all of such a process's work is on that GPU. */
	enum ct_device_from device_from;
	const struct ct_gpu_info *gpu;
	/* The thread's NVTX push/pop ranges open at the call's entry,
	 * outermost first (docs/nvtx.md); n_nvtx 0: none. Valid during the event. */
	const char *const *nvtx;
	uint32_t n_nvtx;
};

/*
 * A call in flight longer than tracer.hang_timeout (docs/events.md, kind
 * "hang"): told once when it passes the timeout (stuck), and once more when
 * it ends: it returned (ended, with its whole duration), or its process
 * exited, or its thread left it unseen (gone). Only collectives and
 * synchronizations are watched. Sinks get these through their `hang`
 * callback.
 */
enum ct_hang_state { CT_HANG_STUCK, CT_HANG_ENDED, CT_HANG_GONE };

struct ct_hang {
	enum ct_hang_state state;
	/* The call as it was at entry: its arguments, communicator, stacks
	 * (taken at entry); dur_ns is its time in the call so far (stuck, gone)
	 * or its whole duration (ended). has_result only when ended. */
	const struct ct_event *call;
	uint64_t timeout_ns;  /* tracer.hang_timeout */
	uint64_t ts_ns;       /* wall clock of this report */
	uint32_t stuck_in_pid; /* calls of the call's process stuck now, after this report */
	/* A collective's communicator as the ranks this tracer sees it: the
	 * rank furthest behind (the fewest collectives begun on it), when one
	 * is behind this call's; behind_rank -1: none is, or none is known. */
	int32_t behind_rank;
	uint32_t behind_pid;
	uint64_t behind_seq;  /* the last collective that rank began on it */
};

/*
 * What the GPU did (--gpu-activity, docs/gpu.md): one kernel, copy or set
 * executed on a device, from CUPTI's activity records, with the API call
 * that launched it. Sinks get these through their `gpu` callback.
 */
enum ct_gpu_kind { CT_GPU_KERNEL = 1, CT_GPU_MEMCPY, CT_GPU_MEMSET };

struct ct_gpu_event {
	enum ct_gpu_kind kind;
	uint32_t pid;         /* the process, as the tracer's other events name it */
	uint64_t mono_ns, dur_ns; /* start on the device, CLOCK_MONOTONIC as the API events' */
	uint64_t ts_ns;       /* the same start, wall clock */
	uint32_t device;      /* CUDA device ordinal */
	uint32_t context, stream; /* CUPTI's ids of the context and stream */
	const char *name;     /* kernels: demangled name; NULL: its name was not received */
	uint32_t grid[3], block[3];
	uint32_t shared_bytes; /* static + dynamic shared memory per block */
	uint64_t bytes;       /* copies and sets */
	const char *copy_kind; /* copies: "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", ... */
	uint32_t set_value;   /* sets */
	uint32_t correlation; /* CUPTI's correlation id; 0: none */
	/* The call that launched it (from CUPTI's runtime/driver API record of
	 * that correlation id): its thread, API and start; has_launch false
	 * when that record never came. */
	bool has_launch;
	uint32_t launch_tid;
	const char *launch_api;
	uint64_t launch_mono_ns, launch_ts_ns;
	/* The GPU, when the process holds exactly one open (as ct_event's); NULL otherwise. */
	const struct ct_gpu_info *gpu;
	/* Copies: the memory on each side, "pageable", "pinned", "device",
	 * "array", "managed", ... (CUPTI's memory kind); NULL for others. A
	 * pageable side makes the driver stage the copy (docs/analysis.md). */
	const char *src_kind, *dst_kind;
	/* The launching thread's NVTX push/pop ranges open when it launched
	 * this, outermost first, as ct_event's; n_nvtx 0: none (or not known). */
	const char *const *nvtx;
	uint32_t n_nvtx;
	/* Run from a CUDA graph (docs/gpu.md, "CUDA graphs"): CUPTI's ids of
	 * the graph and of the node (the executable graph's); 0: not. */
	uint32_t graph_id;
	uint64_t graph_node;
	/* The traced call that made the node this one was cloned from (a
	 * launch captured from a stream, cudaGraphAddKernelNode, ...): the node
	 * as made, the call's thread, API, entry (its event's mono_ns and ts_ns)
	 * and site ("function (file:line)": its innermost Python frame, else
	 * native; NULL without a stack). has_capture false when not known
	 * (made before tracing began, or in a call not traced). */
	bool has_capture;
	uint64_t capture_node;
	uint32_t capture_tid;
	const char *capture_api;
	uint64_t capture_mono_ns, capture_ts_ns;
	const char *capture_site;
};

/*
 * An NVTX range or mark (docs/nvtx.md), to sinks' `nvtx` callback: a range
 * when it ends (or, still open, when tracing stops or its process exits),
 * a mark when it is made.
 */
struct ct_nvtx_event {
	bool mark;
	bool open;            /* a range still open at the end: end is when tracing stopped */
	uint32_t pid, tid;    /* tid: the thread that pushed or started it */
	const char *domain;   /* NULL: NVTX's default domain */
	const char *name;     /* UTF-8, at most 255 bytes */
	uint64_t ts_ns, mono_ns;         /* start (wall clock, CLOCK_MONOTONIC) */
	uint64_t end_ns, end_mono_ns;    /* end; a mark: its start */
	int32_t depth;        /* push/pop: nesting on its thread (0: outermost); -1: start/end range or mark */
};

/* The name of where a device came from as jsonl writes it ("call",
 * "visible_devices", "open_gpu", "only_gpu"); NULL for CT_DEVICE_FROM_NONE or a value
 * out of range. */
const char *ct_device_from_name(enum ct_device_from from);

/* Field lookup by role; NULL if the API has no such argument. */
const struct ct_field *ct_event_role(const struct ct_event *ev, enum ct_role role);

/* Bytes moved by a copy/set or allocated: BYTES (times HEIGHT and DEPTH);
 * or an array's ELEMENTS (times HEIGHT, DEPTH, LEVELS) times the size of one
 * element (ELEM_TYPE's times CHANNELS, or the ELEM_BITS). 0 if none. */
uint64_t ct_event_bytes(const struct ct_event *ev);

#endif
