// SPDX-License-Identifier: MIT
/*
 * GPU activity batches (inject/wire.h) to events (decode/gpu.c): a kernel
 * joined with the call that launched it, a record that comes before its
 * call, a copy joined by its runtime call, CUPTI's own clock moved onto the
 * tracer's, messages, CUPTI's dropped count, and batches that break the
 * format (skipped and counted, never read past); CUDA graph nodes tied to
 * the traced call that made them, clones to their original, and GRAPHNODE
 * items that break the format or the bounds.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cudatracer/plugin.h>
#include "decode/gpu.h"
#include "decode/graphs.h"
#include "symbols/demangle.h"
#include "exponential_name.h"

#define WALL 1700000000000000000ll
#define PID 4242

/* What the sink got: events copied, strings too (they live as long as the process's state). */
struct got {
	struct ct_gpu_event ev[16];
	char name[16][512], api[16][64], capture_api[16][64], capture_site[16][128];
	int n;
	char msg[256];
	uint32_t msg_pid;
	enum ct_wire_level msg_level;
};

static struct got got;

static void on_event(void *ctx, const struct ct_gpu_event *g)
{
	int i = got.n++;

	assert_true(i < 16);
	got.ev[i] = *g;
	snprintf(got.name[i], sizeof(got.name[i]), "%s", g->name ? g->name : "(null)");
	snprintf(got.api[i], sizeof(got.api[i]), "%s", g->launch_api ? g->launch_api : "(null)");
	snprintf(got.capture_api[i], sizeof(got.capture_api[i]), "%s", g->capture_api ? g->capture_api : "(null)");
	snprintf(got.capture_site[i], sizeof(got.capture_site[i]), "%s", g->capture_site ? g->capture_site : "(null)");
}

static void on_message(void *ctx, uint32_t pid, enum ct_wire_level level, const char *text)
{
	got.msg_pid = pid;
	got.msg_level = level;
	snprintf(got.msg, sizeof(got.msg), "%s", text);
}

static struct ct_gpu_sink sink_new(void)
{
	memset(&got, 0, sizeof(got));
	return (struct ct_gpu_sink){ .event = on_event, .message = on_message, .wall_offset_ns = WALL };
}

/* A batch being built, as the injection library builds one. */
struct batch {
	_Alignas(8) uint8_t b[CT_GPU_BATCH_MAX];
	size_t len;
};

static void put(struct batch *b, uint16_t type, uint32_t aux, void *item, size_t len)
{
	struct ct_w_head *h = item;
	size_t n = CT_W_ALIGN(len);

	h->type = type;
	h->len = (uint16_t)n;
	h->aux = aux;
	memset(b->b + b->len, 0, n);
	memcpy(b->b + b->len, item, len);
	b->len += n;
}

static void put_name(struct batch *b, uint32_t id, const char *name)
{
	struct {
		struct ct_w_head h;
		char t[256];
	} it;

	strcpy(it.t, name);
	put(b, CT_W_NAME, id, &it, sizeof(it.h) + strlen(name) + 1);
}

static void put_hello(struct batch *b, uint32_t flags, int64_t offset)
{
	struct ct_w_hello h = { .cupti_version = 130001, .header_version = 130001, .ns_pid = PID,
				.flags = flags, .clock_offset = offset };

	put(b, CT_W_HELLO, CT_GPU_WIRE_VERSION, &h, sizeof(h));
}

static void put_api(struct batch *b, uint32_t corr, uint32_t tid, uint64_t start, uint32_t name_id)
{
	struct ct_w_api a = { .start = start, .end = start + 500, .correlation = corr, .tid = tid,
			      .cbid = 1, .name_id = name_id };

	put(b, CT_W_API, CT_W_RUNTIME, &a, sizeof(a));
}

static void put_kernel(struct batch *b, uint32_t corr, uint64_t start, uint32_t name_id)
{
	struct ct_w_kernel k = { .start = start, .end = start + 3000, .correlation = corr, .device = 1,
				 .context = 2, .stream = 7, .name_id = name_id, .grid = { 4, 2, 1 },
				 .block = { 256, 1, 1 }, .shared_bytes = 1536 };

	put(b, CT_W_KERNEL, 0, &k, sizeof(k));
}

static void test_kernel_joined(void **state)
{
	struct ct_gpu_sink s = sink_new();
	struct batch b = { .len = 0 };

	put_hello(&b, CT_W_CLOCK_MONOTONIC, 0);
	put_name(&b, 1, "_Z6vecAddPfPKfi");
	put_name(&b, 2, "cudaLaunchKernel_v7000");
	put_api(&b, 7, 42, 1000, 2);
	put_kernel(&b, 7, 5000, 1);
	ct_gpu_decode(&s, PID, 43, b.b, b.len);
	assert_int_equal(got.n, 1);
	assert_int_equal(got.ev[0].kind, CT_GPU_KERNEL);
	assert_int_equal(got.ev[0].pid, PID);
	assert_int_equal(got.ev[0].mono_ns, 5000);
	assert_int_equal(got.ev[0].dur_ns, 3000);
	assert_int_equal(got.ev[0].ts_ns, WALL + 5000);
	assert_int_equal(got.ev[0].device, 1);
	assert_int_equal(got.ev[0].context, 2);
	assert_int_equal(got.ev[0].stream, 7);
	assert_int_equal(got.ev[0].grid[0], 4);
	assert_int_equal(got.ev[0].block[0], 256);
	assert_int_equal(got.ev[0].shared_bytes, 1536);
	assert_string_equal(got.name[0], "vecAdd(float*, float const*, int)");
	assert_true(got.ev[0].has_launch);
	assert_int_equal(got.ev[0].correlation, 7);
	assert_int_equal(got.ev[0].launch_tid, 42);
	assert_string_equal(got.api[0], "cudaLaunchKernel_v7000");
	assert_int_equal(got.ev[0].launch_mono_ns, 1000);
	assert_int_equal(got.ev[0].launch_ts_ns, WALL + 1000);
	assert_int_equal(s.stats.processes, 1);
	assert_int_equal(s.stats.kernels, 1);
	assert_int_equal(s.stats.unnamed, 0);
	ct_gpu_finish(&s);
}

/* CUPTI completes buffers in any order: a kernel may come before its call. */
static void test_record_before_its_call(void **state)
{
	struct ct_gpu_sink s = sink_new();
	struct batch a = { .len = 0 }, b = { .len = 0 }, empty = { .len = 0 };

	put_hello(&a, CT_W_CLOCK_MONOTONIC, 0);
	put_kernel(&a, 11, 9000, 0);   /* unnamed, its call not yet known */
	put_kernel(&a, 12, 9500, 0);   /* its call never comes */
	ct_gpu_decode(&s, PID, 1, a.b, a.len);
	assert_int_equal(got.n, 0);
	put_name(&b, 3, "cuLaunchKernel");
	put_api(&b, 11, 77, 2000, 3);
	ct_gpu_decode(&s, PID, 1, b.b, b.len);
	assert_int_equal(got.n, 1);
	assert_int_equal(got.ev[0].correlation, 11);
	assert_true(got.ev[0].has_launch);
	assert_int_equal(got.ev[0].launch_tid, 77);
	assert_string_equal(got.api[0], "cuLaunchKernel");
	assert_string_equal(got.name[0], "(null)");
	/* The other waits CT_GPU_PENDING_CHUNKS batches of its process, then goes alone. */
	for (int i = 0; i < CT_GPU_PENDING_CHUNKS - 2; i++)
		ct_gpu_decode(&s, PID, 1, empty.b, 0);
	assert_int_equal(got.n, 1);
	ct_gpu_decode(&s, PID, 1, empty.b, 0);
	assert_int_equal(got.n, 2);
	assert_int_equal(got.ev[1].correlation, 12);
	assert_false(got.ev[1].has_launch);
	assert_int_equal(s.stats.unnamed, 2);
	assert_int_equal(s.stats.uncorrelated, 1);
	ct_gpu_finish(&s);
}

/* At the process's exit what still waits goes out, without its call. */
static void test_forget_flushes(void **state)
{
	struct ct_gpu_sink s = sink_new();
	struct batch a = { .len = 0 };

	put_kernel(&a, 20, 100, 0);
	ct_gpu_decode(&s, PID, 1, a.b, a.len);
	assert_int_equal(got.n, 0);
	ct_gpu_forget(&s, PID);
	assert_int_equal(got.n, 1);
	assert_false(got.ev[0].has_launch);
	/* and a new process of the same pid starts clean */
	ct_gpu_decode(&s, PID, 1, a.b, a.len);
	ct_gpu_finish(&s);
	assert_int_equal(got.n, 2);
}

/* A copy's runtime call is preferred to its driver call; sets name their value. */
static void test_copy_and_set(void **state)
{
	struct ct_gpu_sink s = sink_new();
	struct batch b = { .len = 0 };
	struct ct_w_memcpy m = { .start = 100, .end = 600, .bytes = 1 << 20, .correlation = 8,
				 .rt_correlation = 9, .device = 0, .context = 1, .stream = 3, .copy_kind = 1,
				 .src_kind = 1, .dst_kind = 3 };
	struct ct_w_memset z = { .start = 700, .end = 900, .bytes = 4096, .correlation = 0, .device = 0,
				 .context = 1, .stream = 3, .value = 0xab };

	put_name(&b, 5, "cudaMemcpyAsync");
	put_name(&b, 6, "cuMemcpyHtoDAsync_v2");
	put_api(&b, 9, 50, 10, 5);
	put_api(&b, 8, 50, 20, 6);
	put(&b, CT_W_MEMCPY, 0, &m, sizeof(m));
	put(&b, CT_W_MEMSET, 0, &z, sizeof(z));
	ct_gpu_decode(&s, PID, 1, b.b, b.len);
	assert_int_equal(got.n, 2);
	assert_int_equal(got.ev[0].kind, CT_GPU_MEMCPY);
	assert_int_equal(got.ev[0].bytes, 1 << 20);
	assert_string_equal(got.ev[0].copy_kind, "HtoD");
	assert_string_equal(got.ev[0].src_kind, "pageable");
	assert_string_equal(got.ev[0].dst_kind, "device");
	assert_int_equal(got.ev[0].correlation, 9);
	assert_string_equal(got.api[0], "cudaMemcpyAsync");
	assert_int_equal(got.ev[1].kind, CT_GPU_MEMSET);
	assert_int_equal(got.ev[1].set_value, 0xab);
	assert_false(got.ev[1].has_launch); /* no correlation id: not waited for */
	assert_int_equal(s.stats.copies, 1);
	assert_int_equal(s.stats.sets, 1);
	assert_string_equal(ct_gpu_copy_kind(200), "unknown");
	assert_string_equal(ct_gpu_memory_kind(200), "unknown");
	ct_gpu_finish(&s);
}

/* Without the timestamp callback CUPTI's clock is CLOCK_REALTIME: the offset moves it. */
static void test_clock_offset(void **state)
{
	struct ct_gpu_sink s = sink_new();
	struct batch b = { .len = 0 };

	put_hello(&b, 0, -1000);
	put_api(&b, 7, 1, 5000, 0);
	put_kernel(&b, 7, 8000, 0);
	ct_gpu_decode(&s, PID, 1, b.b, b.len);
	assert_int_equal(got.n, 1);
	assert_int_equal(got.ev[0].mono_ns, 7000);
	assert_int_equal(got.ev[0].launch_mono_ns, 4000);
	assert_int_equal(got.ev[0].dur_ns, 3000);
	ct_gpu_finish(&s);
}

static void test_messages_and_drops(void **state)
{
	struct ct_gpu_sink s = sink_new();
	struct batch b = { .len = 0 };
	struct {
		struct ct_w_head h;
		char t[64];
	} msg;
	struct ct_w_dropped d = { .cupti = 5, .names_cut = 2 };

	strcpy(msg.t, "CUPTI is already in use");
	put(&b, CT_W_MSG, CT_W_ERROR, &msg, sizeof(msg.h) + strlen(msg.t) + 1);
	put(&b, CT_W_DROPPED, 0, &d, sizeof(d));
	ct_gpu_decode(&s, PID, 1, b.b, b.len);
	assert_string_equal(got.msg, "CUPTI is already in use");
	assert_int_equal(got.msg_pid, PID);
	assert_int_equal(got.msg_level, CT_W_ERROR);
	assert_int_equal(s.stats.cupti_dropped, 5);
	assert_int_equal(s.stats.names_cut, 2);
	assert_int_equal(s.stats.processes, 0); /* no hello: it never turned GPU activity on */
	ct_gpu_finish(&s);
}

/* Hostile batches: nothing read past an item or the batch, each break counted. */
/* A kernel's name that demangles to megabytes comes out as it was sent (docs/reliability.md). */
static void test_exponential_name_kept_mangled(void **state)
{
	struct ct_gpu_sink s = sink_new();
	struct batch b = { .len = 0 };
	char name[256];

	exponential_name(name, sizeof(name), 17); /* 3.3 MB demangled */
	put_hello(&b, CT_W_CLOCK_MONOTONIC, 0);
	put_name(&b, 1, name);
	put_kernel(&b, 7, 5000, 1);
	ct_gpu_decode(&s, PID, 43, b.b, b.len);
	ct_gpu_finish(&s);
	assert_int_equal(got.n, 1);
	assert_int_equal(strlen(got.name[0]), strlen(name));
	assert_string_equal(got.name[0], name);
}

/* A process keeps CT_NAMES_PER_PROC names; a new id past them is dropped and counted, a known id renamed. */
static void test_names_per_process_bounded(void **state)
{
	struct ct_gpu_sink s = sink_new();
	static struct batch b;
	char name[32];

	put_hello(&b, CT_W_CLOCK_MONOTONIC, 0);
	for (uint32_t id = 1; id <= CT_NAMES_PER_PROC + 1; id++) {
		if (b.len > sizeof(b.b) - 64) {
			ct_gpu_decode(&s, PID, 43, b.b, b.len);
			b.len = 0;
		}
		snprintf(name, sizeof(name), "k%u", id);
		put_name(&b, id, name);
	}
	put_name(&b, 1, "renamed");
	put_kernel(&b, 7, 5000, 1);
	put_kernel(&b, 8, 6000, CT_NAMES_PER_PROC);
	put_kernel(&b, 9, 7000, CT_NAMES_PER_PROC + 1);
	ct_gpu_decode(&s, PID, 43, b.b, b.len);
	ct_gpu_finish(&s);
	assert_int_equal(s.stats.names_dropped, 1);
	assert_int_equal(got.n, 3);
	assert_string_equal(got.name[0], "renamed");
	snprintf(name, sizeof(name), "k%u", CT_NAMES_PER_PROC);
	assert_string_equal(got.name[1], name);
	assert_string_equal(got.name[2], "(null)");
}

static void test_malformed(void **state)
{
	struct ct_gpu_sink s = sink_new();
	struct batch b = { .len = 0 };
	struct ct_w_head h = { .type = 99, .len = 16 };
	struct {
		struct ct_w_head h;
		char t[8];
	} no_nul;
	struct ct_w_kernel short_kernel;

	/* an unknown type: skipped, the next item read */
	memcpy(b.b, &h, sizeof(h));
	b.len = 16;
	put_kernel(&b, 0, 100, 0);
	/* a kernel item too short for a kernel */
	memset(&short_kernel, 0, sizeof(short_kernel));
	put(&b, CT_W_KERNEL, 0, &short_kernel, 16);
	/* a name with no NUL in its item: not kept */
	memset(no_nul.t, 'x', sizeof(no_nul.t));
	put(&b, CT_W_NAME, 9, &no_nul, sizeof(no_nul));
	put(&b, CT_W_MSG, 0, &no_nul, sizeof(no_nul));
	ct_gpu_decode(&s, PID, 1, b.b, b.len);
	assert_int_equal(got.n, 1);
	assert_int_equal(s.stats.malformed, 3);
	assert_string_equal(got.msg, "");

	/* a length past the batch, a length that is not a multiple of 8, zero: the rest unframed */
	static const uint16_t bad_len[] = { 4096, 12, 0 };
	for (size_t i = 0; i < sizeof(bad_len) / sizeof(bad_len[0]); i++) {
		b.len = 0;
		h = (struct ct_w_head){ .type = CT_W_KERNEL, .len = bad_len[i] };
		memcpy(b.b, &h, sizeof(h));
		put_kernel(&b, 0, 100, 0); /* never reached */
		ct_gpu_decode(&s, PID, 1, b.b, 64);
	}
	assert_int_equal(got.n, 1);
	assert_int_equal(s.stats.malformed, 6);
	/* a batch cut inside a head: nothing */
	ct_gpu_decode(&s, PID, 1, b.b, 5);
	assert_int_equal(got.n, 1);
	ct_gpu_finish(&s);
}

static void put_graphnode(struct batch *b, uint64_t node, uint64_t original, uint32_t graph, uint32_t tid,
			  uint64_t ts)
{
	struct ct_w_graphnode w = { .node = node, .original = original, .ts = ts, .graph_id = graph, .tid = tid };

	put(b, CT_W_GRAPHNODE, 0, &w, sizeof(w));
}

static void put_graph_kernel(struct batch *b, uint32_t corr, uint64_t start, uint32_t graph, uint64_t node)
{
	struct ct_w_kernel k = { .start = start, .end = start + 1000, .correlation = corr, .device = 1,
				 .graph_id = graph, .graph_node = node };

	put(b, CT_W_KERNEL, 0, &k, sizeof(k));
}

static const struct ct_api api_rt = { .symbol = "cudaLaunchKernel" }, api_drv = { .symbol = "cuLaunchKernel" },
			    api_other = { .symbol = "cudaGraphInstantiate" };

/* A traced call as the session hands it over once it ended. */
static void call(struct ct_gpu_sink *s, const struct ct_api *api, uint32_t tid, uint64_t mono, uint64_t dur,
		 uint32_t depth, const struct ct_py_frames *py)
{
	struct ct_event ev = { .api = api, .pid = PID, .tid = tid, .mono_ns = mono, .ts_ns = WALL + mono,
			       .dur_ns = dur, .depth = depth, .py_stack = py };

	ct_gpu_note_call(s, &ev);
}

/*
 * Nodes made inside calls (the outermost call that holds the moment wins
 * over a driver call inside it), one made outside any traced call (the next
 * call of its thread that begins after it ends the wait), clones mapped to
 * their original, a clone of a node never heard of, a node never heard of.
 */
static void test_graph_nodes_tied(void **state)
{
	struct ct_gpu_sink s = sink_new();
	struct batch b = { .len = 0 };
	struct ct_py_frames *py = calloc(1, sizeof(*py) + sizeof(py->f[0]));

	py->n = 1;
	py->f[0] = (struct ct_py_frame_info){ .function = "forward", .file = "/app/model.py", .line = 10 };
	put_hello(&b, CT_W_CLOCK_MONOTONIC, 0);
	put_graphnode(&b, 11, 0, 5, 42, 2000);
	ct_gpu_decode(&s, PID, 42, b.b, b.len);
	call(&s, &api_drv, 42, 1900, 200, 1, NULL);     /* the driver call inside: taken, then replaced */
	call(&s, &api_rt, 43, 1800, 500, 0, NULL);      /* another thread's */
	call(&s, &api_rt, 42, 1800, 500, 0, py);        /* the program's call */
	b.len = 0;
	put_graphnode(&b, 12, 0, 5, 42, 3000);          /* made in no traced call */
	ct_gpu_decode(&s, PID, 42, b.b, b.len);
	call(&s, &api_rt, 42, 2900, 50, 0, py);         /* ended before it */
	call(&s, &api_other, 42, 3100, 50, 0, py);      /* began after it: the wait ends */
	call(&s, &api_rt, 42, 2990, 5000, 0, py);       /* holds it, but the wait had ended: not taken */
	b.len = 0;
	put_graphnode(&b, 101, 11, 6, 42, 4000);
	put_graphnode(&b, 102, 12, 6, 42, 4001);
	put_graphnode(&b, 103, 999, 6, 42, 4002);
	put_graphnode(&b, 201, 101, 7, 42, 4003);       /* a clone of a clone */
	put_graph_kernel(&b, 0, 10000, 6, 101);
	put_graph_kernel(&b, 0, 11000, 6, 102);
	put_graph_kernel(&b, 0, 12000, 6, 103);
	put_graph_kernel(&b, 0, 13000, 6, 555);
	put_graph_kernel(&b, 0, 14000, 7, 201);
	put_kernel(&b, 0, 15000, 0);
	ct_gpu_decode(&s, PID, 42, b.b, b.len);
	assert_int_equal(got.n, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(got.ev[i].graph_id, i == 5 ? 0 : i == 4 ? 7 : 6);
	assert_true(got.ev[0].has_capture);
	assert_int_equal(got.ev[0].graph_node, 101);
	assert_int_equal(got.ev[0].capture_node, 11);
	assert_int_equal(got.ev[0].capture_tid, 42);
	assert_int_equal(got.ev[0].capture_mono_ns, 1800);
	assert_int_equal(got.ev[0].capture_ts_ns, WALL + 1800);
	assert_string_equal(got.capture_api[0], "cudaLaunchKernel");
	assert_string_equal(got.capture_site[0], "forward (/app/model.py:10)");
	assert_false(got.ev[1].has_capture);
	assert_int_equal(got.ev[1].capture_node, 12);
	assert_false(got.ev[2].has_capture);
	assert_int_equal(got.ev[2].capture_node, 999);
	assert_false(got.ev[3].has_capture);
	assert_int_equal(got.ev[3].capture_node, 0);
	assert_true(got.ev[4].has_capture);
	assert_int_equal(got.ev[4].capture_node, 11);
	assert_string_equal(got.capture_site[4], "forward (/app/model.py:10)");
	assert_int_equal(got.ev[5].graph_node, 0);
	assert_false(got.ev[5].has_capture);
	assert_int_equal(s.stats.graph_nodes, 6);
	assert_int_equal(s.stats.graph_records, 5);
	assert_int_equal(s.stats.graph_uncaptured, 3);
	ct_gpu_finish(&s);
	free(py);
}

/* GRAPHNODE items that break the format, a library of another wire version, and the bound on nodes kept. */
static void test_graph_malformed(void **state)
{
	struct ct_gpu_sink s = sink_new();
	struct batch b = { .len = 0 };
	struct ct_w_graphnode w = { .node = 5, .tid = 1, .ts = 1 };
	struct ct_w_hello old = { .ns_pid = PID, .flags = CT_W_CLOCK_MONOTONIC };

	put_hello(&b, CT_W_CLOCK_MONOTONIC, 0);
	put(&b, CT_W_GRAPHNODE, 0, &w, 32);             /* too short for one */
	put_graphnode(&b, 0, 0, 1, 1, 1);               /* no node */
	put_graphnode(&b, 7, 7, 1, 1, 1);               /* its own original */
	ct_gpu_decode(&s, PID, 1, b.b, b.len);
	assert_int_equal(s.stats.malformed, 3);
	assert_int_equal(s.stats.graph_nodes, 0);

	/* Past CT_GRAPH_NODES_MAX nodes (clones: none waits for a call): counted, not kept. */
	for (uint64_t n = 1; n <= CT_GRAPH_NODES_MAX + 3;) {
		b.len = 0;
		while (b.len + sizeof(w) <= sizeof(b.b) && n <= CT_GRAPH_NODES_MAX + 3)
			put_graphnode(&b, 1000000 + n++, 1, 1, 1, 1);
		ct_gpu_decode(&s, PID, 1, b.b, b.len);
	}
	assert_int_equal(s.stats.graph_nodes, CT_GRAPH_NODES_MAX);
	assert_int_equal(s.stats.graph_nodes_dropped, 3);

	/* Another wire version: said, and its items skipped. */
	b.len = 0;
	put(&b, CT_W_HELLO, 1, &old, sizeof(old));
	put_graph_kernel(&b, 0, 100, 1, 1000001);
	ct_gpu_decode(&s, PID + 1, 1, b.b, b.len);
	assert_int_equal(got.n, 0);
	assert_int_equal(got.msg_level, CT_W_ERROR);
	assert_string_equal(got.msg, "the injection library speaks wire version 1, this tracer 2: its records are "
				     "skipped (install both from one build)");
	assert_int_equal(s.stats.malformed, 4);
	ct_gpu_finish(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_joined),
		cmocka_unit_test(test_exponential_name_kept_mangled),
		cmocka_unit_test(test_names_per_process_bounded),
		cmocka_unit_test(test_record_before_its_call),
		cmocka_unit_test(test_forget_flushes),
		cmocka_unit_test(test_copy_and_set),
		cmocka_unit_test(test_clock_offset),
		cmocka_unit_test(test_messages_and_drops),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_graph_nodes_tied),
		cmocka_unit_test(test_graph_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
