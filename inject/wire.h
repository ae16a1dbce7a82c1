/* SPDX-License-Identifier: MIT */
/*
 * What the injection library (libcudatracer-inject.so, loaded by the CUDA
 * driver in the traced process) sends the tracer: a batch of items, each a
 * head and its body, 8-byte aligned, handed to ct_gpu_batch(buf, len),
 * whose entry the tracer uprobes (bpf/gpu.bpf.c copies the batch into the
 * session's one ring). The tracer reads every item as hostile input: every
 * length is checked against the batch before a byte is read.
 *
 * The library turns CUPTI's activity records into these compact items, so
 * the tracer never depends on one CUPTI version's struct layouts, and a
 * kernel's or API's name crosses once per process (NAME), not per record.
 */
#ifndef CT_GPU_WIRE_H
#define CT_GPU_WIRE_H

/* 2: graph ids on device records, GRAPHNODE items. */
#define CT_GPU_WIRE_VERSION 2
/* The most one batch holds (the ring record's header is 32 bytes more). */
#define CT_GPU_BATCH_MAX 8160
/* The longest name sent, NUL included; longer ones are cut (and counted). */
#define CT_GPU_NAME_MAX 4096
/* The exported function whose entry the tracer probes. */
#define CT_GPU_BATCH_SYMBOL "ct_gpu_batch"

#ifndef __bpf__ /* the BPF side needs the sizes only */
#include <stdint.h>

enum ct_wire_type {
	CT_W_HELLO = 1, /* the library is on: versions, clock */
	CT_W_MSG,       /* a message for the user (aux: enum ct_wire_level), text */
	CT_W_NAME,      /* a name (aux: its id), text */
	CT_W_KERNEL,
	CT_W_MEMCPY,
	CT_W_MEMSET,
	CT_W_API,       /* a runtime or driver call that launched device work */
	CT_W_DROPPED,   /* records lost before they reached a batch */
	CT_W_GRAPHNODE, /* a CUDA graph node made, or cloned at instantiate */
	CT_W_MAX
};

enum ct_wire_level { CT_W_INFO = 0, CT_W_WARN, CT_W_ERROR };

struct ct_w_head {
	uint16_t type; /* enum ct_wire_type */
	uint16_t len;  /* bytes of the item, head included, a multiple of 8 */
	uint32_t aux;
};

/* hello.flags */
#define CT_W_CLOCK_MONOTONIC (1u << 0) /* CUPTI's timestamps are CLOCK_MONOTONIC (our callback) */

struct ct_w_hello {
	struct ct_w_head h;   /* aux: CT_GPU_WIRE_VERSION */
	uint32_t cupti_version; /* cuptiGetVersion() */
	uint32_t header_version; /* CUPTI_API_VERSION the library was built with */
	uint32_t ns_pid;      /* getpid() in the process's own namespace */
	uint32_t flags;
	/* Add to a CUPTI timestamp to get CLOCK_MONOTONIC ns (0 with CT_W_CLOCK_MONOTONIC). */
	int64_t clock_offset;
};

struct ct_w_kernel {
	struct ct_w_head h;
	uint64_t start, end;
	uint32_t correlation, device, context, stream;
	uint32_t name_id;     /* 0: no name */
	uint32_t grid[3], block[3];
	uint32_t shared_bytes;
	uint32_t graph_id, pad; /* graph_id: CUPTI's graphId; 0: not run from a graph */
	uint64_t graph_node;  /* CUPTI's graphNodeId (the executable graph's node); 0: none */
};

struct ct_w_memcpy {
	struct ct_w_head h;
	uint64_t start, end, bytes;
	uint32_t correlation;     /* the driver call's */
	uint32_t rt_correlation;  /* the runtime call's; 0: none */
	uint32_t device, context, stream;
	uint8_t copy_kind;        /* CUpti_ActivityMemcpyKind */
	uint8_t src_kind, dst_kind, pad;
	uint32_t graph_id, pad2;  /* as the kernel's */
	uint64_t graph_node;
};

struct ct_w_memset {
	struct ct_w_head h;
	uint64_t start, end, bytes;
	uint32_t correlation, device, context, stream, value, graph_id;
	uint64_t graph_node;      /* as the kernel's */
};

enum ct_wire_domain { CT_W_RUNTIME = 1, CT_W_DRIVER = 2 };

struct ct_w_api {
	struct ct_w_head h;   /* aux: enum ct_wire_domain */
	uint64_t start, end;
	uint32_t correlation, tid; /* tid: gettid() in the process's namespace */
	uint32_t cbid, name_id;
};

struct ct_w_dropped {
	struct ct_w_head h;
	uint64_t cupti;       /* records CUPTI dropped (cuptiActivityGetNumDroppedRecords) */
	uint64_t names_cut;   /* names longer than CT_GPU_NAME_MAX */
	uint64_t other;       /* records of kinds the library does not send on */
};

/*
 * A graph node was made (CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED: a launch
 * captured from a stream, cudaGraphAdd*Node, ...) or cloned
 * (CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED: cudaGraphInstantiate copies every
 * node into the executable graph, whose ids the device records carry). Sent
 * from CUPTI's callback, on the thread and inside the call that made it,
 * and handed to the tracer before that call returns: the tracer ties the
 * node to the traced call of that thread whose span holds `ts`.
 */
struct ct_w_graphnode {
	struct ct_w_head h;
	uint64_t node;        /* cuptiGetGraphNodeId() */
	uint64_t original;    /* a clone's original node; 0: made, not cloned */
	uint64_t ts;          /* CLOCK_MONOTONIC ns, inside the call */
	uint32_t graph_id;    /* cuptiGetGraphId() of the node's graph */
	uint32_t tid;         /* gettid() in the process's namespace */
};

_Static_assert(sizeof(struct ct_w_kernel) == 88, "wire layout");
_Static_assert(sizeof(struct ct_w_memcpy) == 72, "wire layout");
_Static_assert(sizeof(struct ct_w_memset) == 64, "wire layout");
_Static_assert(sizeof(struct ct_w_graphnode) == 40, "wire layout");

/* The size of an item of `body` bytes after its head, rounded up to 8. */
#define CT_W_ALIGN(n) (((n) + 7u) & ~7u)

#endif /* __bpf__ */
#endif
