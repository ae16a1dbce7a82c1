/* SPDX-License-Identifier: MIT */
/*
 * CUDA graph nodes of one process (docs/gpu.md, "CUDA graphs"): each node
 * the injection library said was made (GRAPHNODE, inject/wire.h) tied to
 * the traced call of its thread whose span holds the moment it was made,
 * and each clone (the executable graph's nodes, made at instantiate)
 * mapped to the node it was cloned from; so a kernel replayed from the
 * graph, whose record names the clone, names the call that captured it.
 *
 * The library hands a GRAPHNODE over from inside the call that made the
 * node (before it returns), so the ring has it before that call's record:
 * the node waits on its thread for the calls that end after it, and takes
 * each that holds its time, the outermost last (depth 0: the call the
 * program made, not a driver call inside it). A depth-0 call that holds it
 * or begins after it ends the wait.
 *
 * Bounded: CT_GRAPH_NODES_MAX nodes a process (more are counted, not kept),
 * CT_GRAPH_WAIT_MAX nodes waiting for their call (past it the oldest stop).
 */
#ifndef CT_DECODE_GRAPHS_H
#define CT_DECODE_GRAPHS_H

#include <stdbool.h>
#include <stdint.h>
#include <cudatracer/event.h>
#include "util/u64map.h"

#define CT_GRAPH_NODES_MAX (1u << 18)
#define CT_GRAPH_WAIT_MAX 4096u

/* The traced call that made a node. */
struct ct_graph_call {
	uint32_t tid;         /* the tracer's numbering */
	const char *api;      /* the plugin's symbol */
	uint64_t mono_ns, ts_ns; /* its entry */
	char *site;           /* owned; NULL: no stack */
};

struct ct_graph_node {
	uint64_t made;        /* the node as made: itself, or the one it was cloned from */
	uint32_t graph_id;
	bool has_call;
	struct ct_graph_call call; /* nodes made, not clones */
};

struct ct_graph_wait {
	uint64_t node, ts;    /* ts: CLOCK_MONOTONIC, inside the call */
	uint32_t tid;
};

struct ct_graphs {
	struct ct_u64map nodes; /* node id -> struct ct_graph_node */
	struct ct_graph_wait *wait;
	size_t n_wait, cap_wait;
	struct ct_u64map wait_tids; /* tid -> how many of its nodes wait (a call of another thread looks at none) */
	uint64_t dropped;     /* nodes not kept: CT_GRAPH_NODES_MAX, or no memory */
};

/*
 * A node made (original 0) or cloned from `original`, on thread `tid`
 * (the tracer's) at CLOCK_MONOTONIC `ts`. 0; -ENOSPC when not kept
 * (counted in dropped); -EINVAL for node id 0.
 */
int ct_graphs_put(struct ct_graphs *g, uint64_t node, uint64_t original, uint32_t graph_id, uint32_t tid,
		  uint64_t ts);
/* A traced call of this process ended: the nodes waiting on its thread may be its. */
void ct_graphs_call(struct ct_graphs *g, const struct ct_event *ev);
/* Whether any node of any process waits for its call: a call costs a
 * load and a branch otherwise, not a lookup of its process. */
bool ct_graphs_any_waiting(void);
/* The node as made, with its call if known, for a device record's node id; NULL: never heard of. */
const struct ct_graph_node *ct_graphs_made(const struct ct_graphs *g, uint64_t node);
void ct_graphs_free(struct ct_graphs *g);

#endif
