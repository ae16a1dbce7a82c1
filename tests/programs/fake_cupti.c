// SPDX-License-Identifier: MIT
/*
 * A stand-in libcupti for the injection library's tests (no GPU here): the
 * CUPTI calls inject/inject.c makes, answering as the real one would, and
 * fake_cupti_emit(), with which a test program hands over activity records
 * it built from cupti_activity.h's own structs: they go through the
 * injection library's buffer callbacks exactly as CUPTI's would.
 *
 * FAKE_CUPTI_VERSION: what cuptiGetVersion says (default: the header's).
 * FAKE_CUPTI_CLAIMED=1: cuptiSubscribe answers that another subscriber has CUPTI.
 * FAKE_CUPTI_DROPPED=N: the first completed buffer reports N dropped records.
 * FAKE_CUPTI_NO_GRAPHS=1: cuptiEnableCallback fails (no graph node callbacks).
 *
 * fake_cupti_graph_node() calls the subscriber's resource callback for a
 * graph node made or cloned, as CUPTI does inside the CUDA call that makes
 * it; a node's, a graph's handle is its id (cuptiGetGraphNodeId, cuptiGetGraphId).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cupti.h>

#define EXPORT __attribute__((visibility("default")))

static CUpti_BuffersCallbackRequestFunc requested;
static CUpti_BuffersCallbackCompleteFunc completed;
static CUpti_TimestampCallbackFunc timestamp;
static unsigned enabled_kinds, enabled_api[2];
static size_t dropped_once;
static CUpti_CallbackFunc subscriber;
static void *subscriber_data;
static unsigned resource_enabled; /* bit per CUPTI_CB_DOMAIN_RESOURCE cbid */

EXPORT CUptiResult cuptiGetVersion(uint32_t *v)
{
	const char *e = getenv("FAKE_CUPTI_VERSION");

	*v = e ? (uint32_t)strtoul(e, NULL, 10) : CUPTI_API_VERSION;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
	/* A libcupti in the process says what it likes: control bytes, a line break, a forged line. */
	if (getenv("FAKE_CUPTI_RESULT_STRING")) {
		*s = getenv("FAKE_CUPTI_RESULT_STRING");
		return CUPTI_SUCCESS;
	}
	*s = r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED" :
	     r == CUPTI_ERROR_INVALID_DEVICE ? "CUPTI_ERROR_INVALID_DEVICE" : "CUPTI_ERROR_UNKNOWN";
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc cb, void *ud)
{
	if (getenv("FAKE_CUPTI_CLAIMED"))
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	if (subscriber) /* CUPTI takes one subscriber at a time */
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	subscriber = cb;
	subscriber_data = ud;
	*sub = (CUpti_SubscriberHandle)1;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle sub)
{
	subscriber = NULL;
	resource_enabled = 0;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle sub, CUpti_CallbackDomain d,
				       CUpti_CallbackId cbid)
{
	if (getenv("FAKE_CUPTI_NO_GRAPHS"))
		return CUPTI_ERROR_NOT_SUPPORTED;
	if (!subscriber || d != CUPTI_CB_DOMAIN_RESOURCE || cbid >= 32)
		return CUPTI_ERROR_INVALID_PARAMETER;
	resource_enabled = enable ? resource_enabled | 1u << cbid : resource_enabled & ~(1u << cbid);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetGraphNodeId(CUgraphNode node, uint64_t *id)
{
	*id = (uint64_t)(uintptr_t)node;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetGraphId(CUgraph graph, uint32_t *id)
{
	*id = (uint32_t)(uintptr_t)graph;
	return CUPTI_SUCCESS;
}

/* A graph node made (original 0) or cloned from original, in graph `graph`: the callback, if enabled. */
EXPORT void fake_cupti_graph_node(uint64_t node, uint64_t original, uint32_t graph)
{
	CUpti_GraphData g = { .graph = (CUgraph)(uintptr_t)graph, .node = (CUgraphNode)(uintptr_t)node,
			      .originalNode = (CUgraphNode)(uintptr_t)original };
	CUpti_ResourceData rd = { .resourceDescriptor = &g };
	CUpti_CallbackId cbid = original ? CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED : CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED;

	if (subscriber && (resource_enabled & 1u << cbid))
		subscriber(subscriber_data, CUPTI_CB_DOMAIN_RESOURCE, cbid, &rd);
}

EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
						  CUpti_BuffersCallbackCompleteFunc done)
{
	requested = req;
	completed = done;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
	if (getenv("FAKE_CUPTI_NO_DEVICE"))
		return CUPTI_ERROR_INVALID_DEVICE;
	enabled_kinds |= 1u << kind;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind)
{
	enabled_kinds &= ~(1u << kind);
	return CUPTI_SUCCESS;
}

static size_t record_size(const CUpti_Activity *r)
{
	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof(CUpti_ActivityAPI);
	default: return 0;
	}
}

EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
	uint8_t *next = *rec ? (uint8_t *)*rec + record_size(*rec) : buf;

	if (next + sizeof(CUpti_Activity) > buf + valid || !record_size((CUpti_Activity *)next) ||
	    next + record_size((CUpti_Activity *)next) > buf + valid)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*rec = (CUpti_Activity *)next;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext ctx, uint32_t stream, size_t *n)
{
	*n = dropped_once;
	dropped_once = 0;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetTimestamp(uint64_t *t)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	*t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return CUPTI_SUCCESS;
}

/* A few calls of each domain, launch calls among them, as CUPTI names them. */
EXPORT CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain d, uint32_t cbid, const char **name)
{
	static const char *const runtime[] = { NULL, "cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync",
					       "cudaGetDevice", "cudaStreamSynchronize", "cudaGraphLaunch" };
	static const char *const driver[] = { NULL, "cuLaunchKernel", "cuCtxGetCurrent", "cuMemcpyHtoDAsync_v2" };
	const char *const *t = d == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime : driver;
	size_t n = d == CUPTI_CB_DOMAIN_RUNTIME_API ? 7 : 4;

	if (cbid >= n || !t[cbid])
		return CUPTI_ERROR_INVALID_PARAMETER;
	*name = t[cbid];
	/* A libcupti in the process names the launch call as it likes. */
	if (d == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == 1 && getenv("FAKE_CUPTI_LAUNCH_NAME"))
		*name = getenv("FAKE_CUPTI_LAUNCH_NAME");
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t en)
{
	enabled_api[0] += en;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t en)
{
	enabled_api[1] += en;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc f)
{
	timestamp = f;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityFlushPeriod(uint32_t ms)
{
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType t)
{
	return CUPTI_SUCCESS;
}

/* The test's side: what was enabled (kinds as a bit mask, launch calls per domain). */
EXPORT void fake_cupti_enabled(unsigned *kinds, unsigned *runtime, unsigned *driver)
{
	*kinds = enabled_kinds;
	*runtime = enabled_api[0];
	*driver = enabled_api[1];
}

/* The records as one completed buffer; 0, or -1 when nobody registered. */
EXPORT int fake_cupti_emit(const void *recs, size_t len)
{
	uint8_t *buf;
	size_t size, max;
	const char *d = getenv("FAKE_CUPTI_DROPPED");

	if (!requested || !completed)
		return -1;
	requested(&buf, &size, &max);
	if (!buf || size < len)
		return -1;
	memcpy(buf, recs, len);
	if (d) {
		dropped_once = strtoul(d, NULL, 10);
		unsetenv("FAKE_CUPTI_DROPPED");
	}
	completed(NULL, 0, buf, size, len);
	return 0;
}

/* The clock the injection library gave CUPTI (NULL: none). */
EXPORT uint64_t fake_cupti_now(void)
{
	return timestamp ? timestamp() : 0;
}
