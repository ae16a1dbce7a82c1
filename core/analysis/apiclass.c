// SPDX-License-Identifier: MIT
#include <string.h>
#include "analysis/apiclass.h"

static const struct {
	const char *api;
	enum ct_api_class cls;
} rows[] = {
	/* Host waits. */
	{ "cudaDeviceSynchronize", CT_CLASS_SYNC },
	{ "cudaStreamSynchronize", CT_CLASS_SYNC },
	{ "cudaEventSynchronize", CT_CLASS_SYNC },
	{ "cudaThreadSynchronize", CT_CLASS_SYNC },
	{ "cuCtxSynchronize", CT_CLASS_SYNC },
	{ "cuStreamSynchronize", CT_CLASS_SYNC },
	{ "cuEventSynchronize", CT_CLASS_SYNC },
	{ "hipDeviceSynchronize", CT_CLASS_SYNC },
	{ "hipStreamSynchronize", CT_CLASS_SYNC },
	{ "hipEventSynchronize", CT_CLASS_SYNC },
	{ "clFinish", CT_CLASS_SYNC },
	{ "clWaitForEvents", CT_CLASS_SYNC },
	/* Synchronous copies (a .cpu(), a .item() end in one). */
	{ "cudaMemcpy", CT_CLASS_SYNC_COPY },
	{ "cudaMemcpy2D", CT_CLASS_SYNC_COPY },
	{ "cudaMemcpy3D", CT_CLASS_SYNC_COPY },
	{ "cudaMemcpyFromSymbol", CT_CLASS_SYNC_COPY },
	{ "cudaMemcpyToSymbol", CT_CLASS_SYNC_COPY },
	{ "cudaMemcpyPeer", CT_CLASS_SYNC_COPY },
	{ "cuMemcpy", CT_CLASS_SYNC_COPY },
	{ "cuMemcpyDtoH", CT_CLASS_SYNC_COPY },
	{ "cuMemcpyHtoD", CT_CLASS_SYNC_COPY },
	{ "cuMemcpyDtoD", CT_CLASS_SYNC_COPY },
	{ "hipMemcpy", CT_CLASS_SYNC_COPY },
	/* Work queued. */
	{ "cudaLaunchKernel", CT_CLASS_LAUNCH },
	{ "cudaLaunchKernelExC", CT_CLASS_LAUNCH },
	{ "cudaLaunchCooperativeKernel", CT_CLASS_LAUNCH },
	{ "cudaGraphLaunch", CT_CLASS_LAUNCH },
	{ "cuLaunchKernel", CT_CLASS_LAUNCH },
	{ "cuLaunchKernelEx", CT_CLASS_LAUNCH },
	{ "cuLaunchCooperativeKernel", CT_CLASS_LAUNCH },
	{ "cuGraphLaunch", CT_CLASS_LAUNCH },
	{ "hipLaunchKernel", CT_CLASS_LAUNCH },
	{ "hipModuleLaunchKernel", CT_CLASS_LAUNCH },
	{ "hipGraphLaunch", CT_CLASS_LAUNCH },
	{ "clEnqueueNDRangeKernel", CT_CLASS_LAUNCH },
	{ "cudaMemcpyAsync", CT_CLASS_ASYNC_COPY },
	{ "cudaMemcpy2DAsync", CT_CLASS_ASYNC_COPY },
	{ "cudaMemsetAsync", CT_CLASS_ASYNC_COPY },
	{ "cudaMemset", CT_CLASS_ASYNC_COPY },
	{ "cuMemcpyAsync", CT_CLASS_ASYNC_COPY },
	{ "cuMemcpyHtoDAsync", CT_CLASS_ASYNC_COPY },
	{ "cuMemcpyDtoHAsync", CT_CLASS_ASYNC_COPY },
	{ "cuMemcpyDtoDAsync", CT_CLASS_ASYNC_COPY },
	{ "cuMemsetD8Async", CT_CLASS_ASYNC_COPY },
	{ "cuMemsetD32Async", CT_CLASS_ASYNC_COPY },
	{ "hipMemcpyAsync", CT_CLASS_ASYNC_COPY },
	{ "hipMemsetAsync", CT_CLASS_ASYNC_COPY },
	{ "clEnqueueReadBuffer", CT_CLASS_ASYNC_COPY },
	{ "clEnqueueWriteBuffer", CT_CLASS_ASYNC_COPY },
	/* Collectives and point-to-point. */
	{ "ncclAllReduce", CT_CLASS_COLLECTIVE },
	{ "ncclAllGather", CT_CLASS_COLLECTIVE },
	{ "ncclReduceScatter", CT_CLASS_COLLECTIVE },
	{ "ncclReduce", CT_CLASS_COLLECTIVE },
	{ "ncclBroadcast", CT_CLASS_COLLECTIVE },
	{ "ncclBcast", CT_CLASS_COLLECTIVE },
	{ "ncclAlltoAll", CT_CLASS_COLLECTIVE },
	{ "ncclSend", CT_CLASS_COLLECTIVE },
	{ "ncclRecv", CT_CLASS_COLLECTIVE },
	{ "ncclGroupEnd", CT_CLASS_COLLECTIVE },
};

/* Variants the plugins' loader makes of one API (docs/plugins.md). */
static const char *const suffixes[] = { "_ptsz", "_ptds", "_v2", "_v3" };

enum ct_api_class ct_api_class_of(const char *api, size_t len)
{
	for (size_t s = 0; s < sizeof(suffixes) / sizeof(suffixes[0]); s++) {
		size_t sl = strlen(suffixes[s]);

		if (len > sl && !memcmp(api + len - sl, suffixes[s], sl))
			len -= sl;
	}
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (strlen(rows[i].api) == len && !memcmp(rows[i].api, api, len))
			return rows[i].cls;
	return CT_CLASS_OTHER;
}
