// SPDX-License-Identifier: MIT
/*
 * libcudatracer-inject.so: the CUDA driver loads it at cuInit when the
 * process's CUDA_INJECTION64_PATH names it (cudatracer --gpu-activity sets
 * that in the command's environment) and calls InitializeInjection(). It
 * finds a libcupti, checks its version, takes CUPTI's activity buffers for
 * kernels, copies, sets and the runtime and driver calls that launch them,
 * and sends each completed buffer to the tracer as compact items (wire.h,
 * batch.c).
 *
 * Never harm the target: libcupti is opened with dlopen (a missing one is a
 * message, not a failed cuInit), every CUPTI error turns GPU activity off
 * with a message that reaches the tracer through the same batches, and
 * InitializeInjection reports success whatever happened, so the driver goes
 * on and the API calls are traced as before.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cupti.h>
#include "batch.h"

#define BUFFER_SIZE (4u << 20)
#define FLUSH_PERIOD_MS 500 /* CUPTI's worker hands over buffers at least this often */

/* The CUPTI functions used, found with dlsym. */
#define CUPTI_FUNCS(X)                        \
	X(cuptiGetVersion, 1)                 \
	X(cuptiGetResultString, 1)            \
	X(cuptiSubscribe, 1)                  \
	X(cuptiUnsubscribe, 1)                \
	X(cuptiActivityRegisterCallbacks, 1)  \
	X(cuptiActivityEnable, 1)             \
	X(cuptiActivityDisable, 1)            \
	X(cuptiActivityGetNextRecord, 1)      \
	X(cuptiActivityGetNumDroppedRecords, 1) \
	X(cuptiActivityFlushAll, 1)           \
	X(cuptiGetTimestamp, 1)               \
	X(cuptiGetCallbackName, 0)            \
	X(cuptiActivityEnableRuntimeApi, 0)   \
	X(cuptiActivityEnableDriverApi, 0)    \
	X(cuptiActivityRegisterTimestampCallback, 0) \
	X(cuptiActivityFlushPeriod, 0)        \
	X(cuptiSetThreadIdType, 0)             \
	X(cuptiEnableCallback, 0)             \
	X(cuptiGetGraphNodeId, 0)             \
	X(cuptiGetGraphId, 0)

static struct {
#define X(name, required) __typeof__(&name) name;
	CUPTI_FUNCS(X)
#undef X
} cu;

static const CUpti_ActivityKind device_kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
};
static atomic_bool active;
static pid_t started_in; /* a forked child inherits the state, not a working CUPTI */
static uint64_t other_records;

static const char *result_text(CUptiResult r)
{
	const char *s = NULL;

	if (cu.cuptiGetResultString && cu.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s)
		return s;
	return "unknown CUPTI error";
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- finding libcupti ---- */

#define CUPTI_MAJOR (CUPTI_API_VERSION / 10000)

/* libcupti.so.13 for the CUDA 13 header: the major the records' layouts are of. */
static const char *cupti_soname(void)
{
	static char name[32];

	if (!name[0])
		snprintf(name, sizeof(name), "libcupti.so.%d", CUPTI_MAJOR);
	return name;
}

struct runtime_dir {
	char dir[4096];
};

/* The folder of the libcudart the process maps: pip's wheels keep libcupti beside it. */
static int find_cudart(struct dl_phdr_info *info, size_t size, void *data)
{
	struct runtime_dir *r = data;
	const char *name = info->dlpi_name, *slash;

	if (!name || !strstr(name, "/libcudart.so"))
		return 0;
	slash = strrchr(name, '/');
	snprintf(r->dir, sizeof(r->dir), "%.*s", (int)(slash - name), name);
	return 1;
}

static void *try_open(const char *path, char *found, size_t n)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (h)
		snprintf(found, n, "%s", path);
	return h;
}

/*
 * The copy the process already maps (a framework's own), CUDATRACER_CUPTI
 * (the tracer passes tracer.cupti_path on), pip's nvidia-cuda-cupti beside
 * a pip libcudart (nvidia/cuda_cupti/lib, or nvidia/cu13/lib for CUDA 13's
 * wheels), the toolkit, then the loader's own search.
 */
static void *open_cupti(char *found, size_t n)
{
	const char *env = getenv("CUDATRACER_CUPTI"), *so = cupti_soname();
	struct runtime_dir rt = { "" };
	char path[4200];
	void *h;

	if ((h = dlopen(so, RTLD_NOW | RTLD_NOLOAD))) {
		snprintf(found, n, "%s (already loaded)", so);
		return h;
	}
	if (env && *env)
		return try_open(env, found, n);
	dl_iterate_phdr(find_cudart, &rt);
	if (rt.dir[0]) {
		static const char *const beside[] = { "%s/%s", "%s/../../cuda_cupti/lib/%s" };

		for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
			snprintf(path, sizeof(path), beside[i], rt.dir, so);
			if ((h = try_open(path, found, n)))
				return h;
		}
	}
	static const char *const toolkit[] = { "/usr/local/cuda/extras/CUPTI/lib64", "/usr/local/cuda/lib64" };

	for (size_t i = 0; i < sizeof(toolkit) / sizeof(toolkit[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", toolkit[i], so);
		if ((h = try_open(path, found, n)))
			return h;
	}
	return try_open(so, found, n);
}

static int load_cupti(void)
{
	char found[4200] = "";
	void *h = open_cupti(found, sizeof(found));

	if (!h) {
		ct_batch_msg(CT_W_ERROR, "no %s found (in the process, CUDATRACER_CUPTI, beside libcudart "
			     "(pip's nvidia-cuda-cupti), /usr/local/cuda or the loader's path): %s; GPU activity off",
			     cupti_soname(), dlerror());
		return -1;
	}
#define X(name, required)                                                                    \
	cu.name = (__typeof__(cu.name))dlsym(h, #name);                                     \
	if (!cu.name && required) {                                                          \
		ct_batch_msg(CT_W_ERROR, "%s lacks %s: GPU activity off", found, #name);    \
		return -1;                                                                   \
	}
	CUPTI_FUNCS(X)
#undef X
	ct_batch_msg(CT_W_INFO, "CUPTI: %s", found);
	return 0;
}

/* ---- records ---- */

static void send_kernel(const CUpti_ActivityKernel10 *k)
{
	struct ct_w_kernel w = {
		.start = k->start, .end = k->end, .correlation = k->correlationId, .device = k->deviceId,
		.context = k->contextId, .stream = k->streamId, .name_id = ct_batch_name(k->name),
		.grid = { (uint32_t)k->gridX, (uint32_t)k->gridY, (uint32_t)k->gridZ },
		.block = { (uint32_t)k->blockX, (uint32_t)k->blockY, (uint32_t)k->blockZ },
		.shared_bytes = (uint32_t)(k->staticSharedMemory + k->dynamicSharedMemory),
		.graph_id = k->graphId, .graph_node = k->graphNodeId,
	};

	ct_batch_put(CT_W_KERNEL, 0, &w, sizeof(w));
}

static void send_memcpy(const CUpti_ActivityMemcpy6 *m)
{
	struct ct_w_memcpy w = {
		.start = m->start, .end = m->end, .bytes = m->bytes, .correlation = m->correlationId,
		.rt_correlation = m->runtimeCorrelationId, .device = m->deviceId, .context = m->contextId,
		.stream = m->streamId, .copy_kind = m->copyKind, .src_kind = m->srcKind, .dst_kind = m->dstKind,
		.graph_id = m->graphId, .graph_node = m->graphNodeId,
	};

	ct_batch_put(CT_W_MEMCPY, 0, &w, sizeof(w));
}

static void send_memset(const CUpti_ActivityMemset4 *m)
{
	struct ct_w_memset w = {
		.start = m->start, .end = m->end, .bytes = m->bytes, .correlation = m->correlationId,
		.device = m->deviceId, .context = m->contextId, .stream = m->streamId, .value = m->value,
		.graph_id = m->graphId, .graph_node = m->graphNodeId,
	};

	ct_batch_put(CT_W_MEMSET, 0, &w, sizeof(w));
}

static void send_api(const CUpti_ActivityAPI *a, enum ct_wire_domain d)
{
	const char *name = NULL;
	struct ct_w_api w = {
		.start = a->start, .end = a->end, .correlation = a->correlationId, .tid = a->threadId,
		.cbid = a->cbid,
	};

	if (cu.cuptiGetCallbackName)
		cu.cuptiGetCallbackName(d == CT_W_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
					a->cbid, &name);
	w.name_id = ct_batch_name(name);
	ct_batch_put(CT_W_API, d, &w, sizeof(w));
}

static void send_record(const CUpti_Activity *r)
{
	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		send_kernel((const CUpti_ActivityKernel10 *)r);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		send_memcpy((const CUpti_ActivityMemcpy6 *)r);
		break;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		send_memset((const CUpti_ActivityMemset4 *)r);
		break;
	case CUPTI_ACTIVITY_KIND_RUNTIME:
		send_api((const CUpti_ActivityAPI *)r, CT_W_RUNTIME);
		break;
	case CUPTI_ACTIVITY_KIND_DRIVER:
		send_api((const CUpti_ActivityAPI *)r, CT_W_DRIVER);
		break;
	default:
		other_records++;
		break;
	}
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	/* CUPTI wants 8-byte alignment; malloc gives 16. NULL: CUPTI drops and counts. */
	*buffer = malloc(BUFFER_SIZE);
	*size = *buffer ? BUFFER_SIZE : 0;
	*max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
				      size_t valid)
{
	CUpti_Activity *r = NULL;
	size_t dropped = 0;

	/* Turned off (a step of start() failed, or the process is exiting): nothing goes out. */
	if (!atomic_load(&active) || getpid() != started_in) {
		free(buffer);
		return;
	}
	while (valid && cu.cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS)
		send_record(r);
	free(buffer);
	if (cu.cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped) {
		struct ct_w_dropped d = { .cupti = dropped };

		ct_batch_put(CT_W_DROPPED, 0, &d, sizeof(d));
	}
	ct_batch_flush();
}

static uint64_t CUPTIAPI timestamp_mono(void)
{
	return mono_ns();
}

/*
 * The calls whose records correlate with device work: those CUPTI names
 * with Launch, Memcpy or Memset, in both domains. Picked by name from
 * CUPTI's own table, so a CUPTI with more calls than our header needs no
 * list kept by hand; without per-call control every call of the domain is
 * recorded (more overhead).
 */
static bool launches_work(const char *name)
{
	return name && (strstr(name, "Launch") || strstr(name, "Memcpy") || strstr(name, "Memset"));
}

static int enable_api_records(void)
{
	static const struct {
		CUpti_CallbackDomain domain;
		uint32_t n;
		CUpti_ActivityKind all;
	} domains[] = {
		{ CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, CUPTI_ACTIVITY_KIND_RUNTIME },
		{ CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, CUPTI_ACTIVITY_KIND_DRIVER },
	};
	unsigned picked = 0;

	for (size_t d = 0; d < sizeof(domains) / sizeof(domains[0]); d++) {
		__typeof__(cu.cuptiActivityEnableRuntimeApi) en =
			domains[d].domain == CUPTI_CB_DOMAIN_RUNTIME_API ? cu.cuptiActivityEnableRuntimeApi :
									    cu.cuptiActivityEnableDriverApi;
		CUptiResult r;

		if (!en || !cu.cuptiGetCallbackName) {
			r = cu.cuptiActivityEnable(domains[d].all);
			if (r != CUPTI_SUCCESS)
				return (int)r;
			continue;
		}
		for (uint32_t cbid = 1; cbid < domains[d].n; cbid++) {
			const char *name = NULL;

			if (cu.cuptiGetCallbackName(domains[d].domain, cbid, &name) != CUPTI_SUCCESS ||
			    !launches_work(name))
				continue;
			r = en(cbid, 1);
			if (r != CUPTI_SUCCESS)
				return (int)r;
			picked++;
		}
	}
	return picked ? 0 : (int)CUPTI_ERROR_NOT_SUPPORTED;
}

static void flush_at_exit(void)
{
	static atomic_bool flushed;

	/* A forked child's CUPTI is not its parent's: never flush it (it may hang). */
	if (!atomic_load(&active) || getpid() != started_in || atomic_exchange(&flushed, true))
		return;
	/* The last buffers, through buffer_completed, while still active. */
	cu.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	atomic_store(&active, false);
	if (ct_batch_names_cut() || other_records) {
		struct ct_w_dropped d = { .names_cut = ct_batch_names_cut(), .other = other_records };

		ct_batch_put(CT_W_DROPPED, 0, &d, sizeof(d));
	}
	ct_batch_flush();
}

/*
 * CUDA graphs: a node made or cloned, told to the tracer now, from inside
 * the call that made it (wire.h, GRAPHNODE), so that a kernel replayed
 * from the graph names the call that captured it. Only the two resource
 * callbacks are enabled; everything else CUPTI could call is ignored.
 */
static void CUPTIAPI graph_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				    const void *data)
{
	const CUpti_ResourceData *rd = data;
	const CUpti_GraphData *g = rd ? rd->resourceDescriptor : NULL;
	struct ct_w_graphnode w = { .ts = mono_ns(), .tid = (uint32_t)syscall(SYS_gettid) };

	if (domain != CUPTI_CB_DOMAIN_RESOURCE || !g || !atomic_load(&active) || getpid() != started_in ||
	    (cbid != CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED && cbid != CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED))
		return;
	if (cu.cuptiGetGraphNodeId(g->node, &w.node) != CUPTI_SUCCESS || !w.node)
		return;
	if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED &&
	    (!g->originalNode || cu.cuptiGetGraphNodeId(g->originalNode, &w.original) != CUPTI_SUCCESS))
		return;
	if (g->graph)
		cu.cuptiGetGraphId(g->graph, &w.graph_id);
	ct_batch_send(CT_W_GRAPHNODE, 0, &w, sizeof(w));
}

static CUpti_SubscriberHandle graph_sub;
static bool graph_subscribed;

/*
 * Keep a subscription for the graph callbacks. Optional: a CUPTI without
 * them, or one another tool subscribed to since, leaves kernels of graphs
 * tied to their graph launch only (said as a warning).
 */
static void enable_graph_nodes(void)
{
	static const CUpti_CallbackId cbids[] = { CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,
						  CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED };
	const char *step = "cuptiSubscribe";
	CUptiResult r;

	if (graph_subscribed)
		return;
	if (!cu.cuptiEnableCallback || !cu.cuptiGetGraphNodeId || !cu.cuptiGetGraphId) {
		ct_batch_msg(CT_W_WARN, "this libcupti lacks cuptiEnableCallback, cuptiGetGraphNodeId or cuptiGetGraphId: "
			     "kernels of CUDA graphs are tied to their graph launch only");
		return;
	}
	r = cu.cuptiSubscribe(&graph_sub, (CUpti_CallbackFunc)graph_callback, NULL);
	for (size_t i = 0; r == CUPTI_SUCCESS && i < sizeof(cbids) / sizeof(cbids[0]); i++) {
		step = "cuptiEnableCallback";
		r = cu.cuptiEnableCallback(1, graph_sub, CUPTI_CB_DOMAIN_RESOURCE, cbids[i]);
		if (r != CUPTI_SUCCESS)
			cu.cuptiUnsubscribe(graph_sub);
	}
	if (r != CUPTI_SUCCESS) {
		ct_batch_msg(CT_W_WARN, "%s for CUDA graph nodes failed: %s (%d); kernels of CUDA graphs are tied to "
			     "their graph launch only", step, result_text(r), (int)r);
		return;
	}
	graph_subscribed = true;
}

static void disable_graph_nodes(void)
{
	if (graph_subscribed)
		cu.cuptiUnsubscribe(graph_sub);
	graph_subscribed = false;
}

static void disable_all(void)
{
	for (size_t i = 0; i < sizeof(device_kinds) / sizeof(device_kinds[0]); i++)
		cu.cuptiActivityDisable(device_kinds[i]);
	cu.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
	cu.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
	disable_graph_nodes();
}

static int enable_records(void);
static struct ct_w_hello hello_sent;

/*
 * What ct_inject_attach() may leave out, for measuring what each kind of
 * record costs (bench/attach_windows.py's -gpu modes): the launch calls'
 * API records (then kernels come without their launching call), and the
 * copies and sets.
 */
#define CT_INJECT_NO_API (1u << 0)
#define CT_INJECT_KERNELS_ONLY (1u << 1)
static unsigned record_flags;

/* A step failed: nothing more is recorded or sent, and the tracer is told why. */
static int turn_off(const char *step, CUptiResult r)
{
	atomic_store(&active, false);
	disable_all();
	ct_batch_msg(CT_W_ERROR, "%s failed: %s (%d); GPU activity off, API calls traced as before", step,
		     result_text(r), (int)r);
	return -1;
}

static void noop_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
}

static int start(void)
{
	struct ct_w_hello hello = { .header_version = CUPTI_API_VERSION, .ns_pid = (uint32_t)getpid() };
	CUpti_SubscriberHandle sub;
	uint32_t version = 0;
	CUptiResult r;
	const char *step;

	if (load_cupti())
		return -1;
	r = cu.cuptiGetVersion(&version);
	if (r != CUPTI_SUCCESS || version / 10000 != CUPTI_MAJOR) {
		ct_batch_msg(CT_W_ERROR, "libcupti reports API version %u, this library was built for %u "
			     "(CUPTI %d.x): its activity records may not have the layout it reads; GPU activity off",
			     version, CUPTI_API_VERSION, CUPTI_MAJOR);
		return -1;
	}
	hello.cupti_version = version;
	/* Another tool that holds CUPTI (a profiler injected too, nsys, a
	 * framework's own) would have its records taken: leave it CUPTI. */
	step = "cuptiSubscribe";
	r = cu.cuptiSubscribe(&sub, (CUpti_CallbackFunc)noop_callback, NULL);
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
		ct_batch_msg(CT_W_ERROR, "CUPTI is already in use by another profiler in this process "
			     "(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): GPU activity off, API calls traced as before");
		return -1;
	}
	if (r != CUPTI_SUCCESS)
		goto fail;
	cu.cuptiUnsubscribe(sub);
	if (cu.cuptiSetThreadIdType)
		cu.cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	/* Timestamps on the tracer's clock (CUPTI's default on Linux is CLOCK_REALTIME). */
	if (cu.cuptiActivityRegisterTimestampCallback &&
	    cu.cuptiActivityRegisterTimestampCallback(timestamp_mono) == CUPTI_SUCCESS) {
		hello.flags |= CT_W_CLOCK_MONOTONIC;
	} else {
		uint64_t t = 0, m = mono_ns();

		cu.cuptiGetTimestamp(&t);
		hello.clock_offset = (int64_t)(m + (mono_ns() - m) / 2) - (int64_t)t;
	}
	step = "cuptiActivityRegisterCallbacks";
	started_in = getpid();
	r = cu.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (r != CUPTI_SUCCESS)
		goto fail;
	hello_sent = hello;
	atexit(flush_at_exit);
	return enable_records();
fail:
	return turn_off(step, r);
}

/* The records turned on (again, after ct_inject_detach), and the tracer told. */
static int enable_records(void)
{
	const char *step = "cuptiActivityEnable";
	CUptiResult r = CUPTI_SUCCESS;

	atomic_store(&active, true);
	for (size_t i = 0; i < sizeof(device_kinds) / sizeof(device_kinds[0]); i++) {
		if (i && (record_flags & CT_INJECT_KERNELS_ONLY))
			break;
		r = cu.cuptiActivityEnable(device_kinds[i]);
		if (r != CUPTI_SUCCESS)
			goto fail;
	}
	step = "enabling the launch calls' records";
	r = record_flags & CT_INJECT_NO_API ? CUPTI_SUCCESS : (CUptiResult)enable_api_records();
	if (r != CUPTI_SUCCESS)
		goto fail;
	if (cu.cuptiActivityFlushPeriod)
		cu.cuptiActivityFlushPeriod(FLUSH_PERIOD_MS);
	ct_batch_put(CT_W_HELLO, CT_GPU_WIRE_VERSION, &hello_sent, sizeof(hello_sent));
	ct_batch_flush();
	enable_graph_nodes();
	return 0;
fail:
	return turn_off(step, r);
}

static atomic_int started; /* 0: never; 1: started; -1: start failed */

/* The driver's injection entry point. 1: go on (always: see the top). */
__attribute__((visibility("default"))) int InitializeInjection(void)
{
	int never = 0;

	if (atomic_compare_exchange_strong(&started, &never, 1) && start())
		atomic_store(&started, -1);
	return 1;
}

/*
 * A running process (cudatracer --gpu-activity -p PID): the tracer has
 * loaded the library with dlopen and calls this from one of the process's
 * threads (core/capture/remote.c). CUPTI starts late, on the contexts that
 * exist; called again after ct_inject_detach, it turns the records on
 * again. flags: 0, or CT_INJECT_* to leave records out (benchmarks). 0, or
 * -1 (the reason went to the tracer as a message).
 */
__attribute__((visibility("default"))) int ct_inject_attach(unsigned flags)
{
	int was = 0;

	record_flags = flags;
	if (atomic_compare_exchange_strong(&started, &was, 1)) {
		if (start()) {
			atomic_store(&started, -1);
			return -1;
		}
		return 0;
	}
	/* Failed before, or a forked child of a started process (its CUPTI is not ours). */
	if (was != 1 || getpid() != started_in)
		return -1;
	return atomic_load(&active) ? 0 : enable_records();
}

/*
 * The tracer detaches: every record turned off, what CUPTI holds handed
 * over (while the tracer still reads), and nothing sent after. The library
 * stays loaded and idle: CUPTI keeps callbacks into it.
 */
__attribute__((visibility("default"))) int ct_inject_detach(void)
{
	if (atomic_load(&started) != 1 || !atomic_load(&active) || getpid() != started_in)
		return 0;
	disable_all();
	cu.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	atomic_store(&active, false);
	ct_batch_flush();
	return 0;
}
