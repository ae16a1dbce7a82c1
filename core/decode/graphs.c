// SPDX-License-Identifier: MIT
/*
 * CUDA graph nodes tied to the calls that made them (graphs.h says how).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "decode/decode.h"
#include "decode/graphs.h"

static void node_free(void *v)
{
	struct ct_graph_node *n = v;

	free(n->call.site);
	free(n);
}

/* Nodes waiting for their call, in every process. */
static size_t waiting_all;

bool ct_graphs_any_waiting(void)
{
	return waiting_all != 0;
}

static void wait_remove(struct ct_graphs *g, size_t i)
{
	uintptr_t k = (uintptr_t)ct_u64map_get(&g->wait_tids, g->wait[i].tid);

	if (k > 1)
		ct_u64map_put(&g->wait_tids, g->wait[i].tid, (void *)(k - 1));
	else
		ct_u64map_del(&g->wait_tids, g->wait[i].tid);
	memmove(&g->wait[i], &g->wait[i + 1], (g->n_wait - i - 1) * sizeof(g->wait[0]));
	g->n_wait--;
	waiting_all--;
}

static void wait_add(struct ct_graphs *g, uint64_t node, uint32_t tid, uint64_t ts)
{
	if (g->n_wait == CT_GRAPH_WAIT_MAX)
		wait_remove(g, 0); /* its call never came: the node stays without one */
	if (g->n_wait == g->cap_wait) {
		size_t cap = g->cap_wait ? g->cap_wait * 2 : 16;
		struct ct_graph_wait *w = realloc(g->wait, cap * sizeof(*w));

		if (!w)
			return;
		g->wait = w;
		g->cap_wait = cap;
	}
	if (ct_u64map_put(&g->wait_tids, tid, (void *)((uintptr_t)ct_u64map_get(&g->wait_tids, tid) + 1)))
		return; /* no memory: the node stays without its call */
	g->wait[g->n_wait++] = (struct ct_graph_wait){ node, ts, tid };
	waiting_all++;
}

int ct_graphs_put(struct ct_graphs *g, uint64_t node, uint64_t original, uint32_t graph_id, uint32_t tid,
		  uint64_t ts)
{
	struct ct_graph_node *n = ct_u64map_get(&g->nodes, node);
	const struct ct_graph_node *o = original ? ct_u64map_get(&g->nodes, original) : NULL;

	if (!node || node == original)
		return -EINVAL;
	if (n) { /* an id made again (a CUPTI that reuses ids): the new node replaces it */
		free(n->call.site);
	} else {
		if (g->nodes.n >= CT_GRAPH_NODES_MAX || !(n = malloc(sizeof(*n))) || ct_u64map_put(&g->nodes, node, n)) {
			free(n);
			g->dropped++;
			return -ENOSPC;
		}
	}
	*n = (struct ct_graph_node){ .made = original ? (o ? o->made : original) : node, .graph_id = graph_id };
	if (!original)
		wait_add(g, node, tid, ts);
	return 0;
}

/* The call into the node, replacing an inner call it had. */
static void take_call(struct ct_graphs *g, uint64_t node, const struct ct_event *ev)
{
	struct ct_graph_node *n = ct_u64map_get(&g->nodes, node);
	char site[1024];
	const char *s = ct_event_site(ev, site, sizeof(site));

	if (!n)
		return;
	free(n->call.site);
	n->has_call = true;
	n->call = (struct ct_graph_call){ .tid = ev->tid, .api = ev->api ? ev->api->symbol : NULL,
					  .mono_ns = ev->mono_ns, .ts_ns = ev->ts_ns, .site = s ? strdup(s) : NULL };
}

void ct_graphs_call(struct ct_graphs *g, const struct ct_event *ev)
{
	uint64_t end = ev->mono_ns + (ev->entry_only ? 0 : ev->dur_ns);
	size_t i = 0;

	if (!ct_u64map_get(&g->wait_tids, ev->tid))
		return;
	while (i < g->n_wait) {
		const struct ct_graph_wait *w = &g->wait[i];
		bool holds = ev->mono_ns <= w->ts && w->ts <= end;

		if (w->tid != ev->tid) {
			i++;
			continue;
		}
		if (holds)
			take_call(g, w->node, ev);
		if (ev->depth == 0 && (holds || ev->mono_ns > w->ts))
			wait_remove(g, i);
		else
			i++;
	}
}

const struct ct_graph_node *ct_graphs_made(const struct ct_graphs *g, uint64_t node)
{
	const struct ct_graph_node *n = node ? ct_u64map_get(&g->nodes, node) : NULL;
	const struct ct_graph_node *m = n && n->made != node ? ct_u64map_get(&g->nodes, n->made) : n;

	return m ? m : n;
}

void ct_graphs_free(struct ct_graphs *g)
{
	ct_u64map_free_all(&g->nodes, node_free);
	ct_u64map_free(&g->wait_tids);
	waiting_all -= g->n_wait;
	free(g->wait);
	memset(g, 0, sizeof(*g));
}
