// SPDX-License-Identifier: MIT
#include <string.h>
#include "analysis/apiclass.h"

static const struct {
	const char *api;
	enum ct_api_class cls;
} rows[] = {
	/* Host waits. */
	{ "cudaDeviceSynchronize", CT_API_SYNC },
	{ "cudaStreamSynchronize", CT_API_SYNC },
	{ "cudaEventSynchronize", CT_API_SYNC },
	{ "cudaThreadSynchronize", CT_API_SYNC },
	{ "cuCtxSynchronize", CT_API_SYNC },
	{ "cuStreamSynchronize", CT_API_SYNC },
	{ "cuEventSynchronize", CT_API_SYNC },
	{ "hipDeviceSynchronize", CT_API_SYNC },
	{ "hipStreamSynchronize", CT_API_SYNC },
	{ "hipEventSynchronize", CT_API_SYNC },
	{ "clFinish", CT_API_SYNC },
	{ "clWaitForEvents", CT_API_SYNC },
	/* Synchronous copies (a .cpu(), a .item() end in one). */
	{ "cudaMemcpy", CT_API_SYNC_COPY },
	{ "cudaMemcpy2D", CT_API_SYNC_COPY },
	{ "cudaMemcpy3D", CT_API_SYNC_COPY },
	{ "cudaMemcpyFromSymbol", CT_API_SYNC_COPY },
	{ "cudaMemcpyToSymbol", CT_API_SYNC_COPY },
	{ "cudaMemcpyPeer", CT_API_SYNC_COPY },
	{ "cuMemcpy", CT_API_SYNC_COPY },
	{ "cuMemcpyDtoH", CT_API_SYNC_COPY },
	{ "cuMemcpyHtoD", CT_API_SYNC_COPY },
	{ "cuMemcpyDtoD", CT_API_SYNC_COPY },
	{ "hipMemcpy", CT_API_SYNC_COPY },
	/* Work queued. */
	{ "cudaLaunchKernel", CT_API_LAUNCH },
	{ "cudaLaunchKernelExC", CT_API_LAUNCH },
	{ "cudaLaunchCooperativeKernel", CT_API_LAUNCH },
	{ "cudaGraphLaunch", CT_API_LAUNCH },
	{ "cuLaunchKernel", CT_API_LAUNCH },
	{ "cuLaunchKernelEx", CT_API_LAUNCH },
	{ "cuLaunchCooperativeKernel", CT_API_LAUNCH },
	{ "cuGraphLaunch", CT_API_LAUNCH },
	{ "hipLaunchKernel", CT_API_LAUNCH },
	{ "hipModuleLaunchKernel", CT_API_LAUNCH },
	{ "hipGraphLaunch", CT_API_LAUNCH },
	{ "clEnqueueNDRangeKernel", CT_API_LAUNCH },
	{ "cudaMemcpyAsync", CT_API_ASYNC_COPY },
	{ "cudaMemcpy2DAsync", CT_API_ASYNC_COPY },
	{ "cudaMemsetAsync", CT_API_ASYNC_COPY },
	{ "cudaMemset", CT_API_ASYNC_COPY },
	{ "cuMemcpyAsync", CT_API_ASYNC_COPY },
	{ "cuMemcpyHtoDAsync", CT_API_ASYNC_COPY },
	{ "cuMemcpyDtoHAsync", CT_API_ASYNC_COPY },
	{ "cuMemcpyDtoDAsync", CT_API_ASYNC_COPY },
	{ "cuMemsetD8Async", CT_API_ASYNC_COPY },
	{ "cuMemsetD32Async", CT_API_ASYNC_COPY },
	{ "hipMemcpyAsync", CT_API_ASYNC_COPY },
	{ "hipMemsetAsync", CT_API_ASYNC_COPY },
	{ "clEnqueueReadBuffer", CT_API_ASYNC_COPY },
	{ "clEnqueueWriteBuffer", CT_API_ASYNC_COPY },
	/* Collectives and point-to-point. */
	{ "ncclAllReduce", CT_API_COLLECTIVE },
	{ "ncclAllGather", CT_API_COLLECTIVE },
	{ "ncclReduceScatter", CT_API_COLLECTIVE },
	{ "ncclReduce", CT_API_COLLECTIVE },
	{ "ncclBroadcast", CT_API_COLLECTIVE },
	{ "ncclBcast", CT_API_COLLECTIVE },
	{ "ncclAlltoAll", CT_API_COLLECTIVE },
	{ "ncclSend", CT_API_COLLECTIVE },
	{ "ncclRecv", CT_API_COLLECTIVE },
	{ "ncclGroupEnd", CT_API_COLLECTIVE },
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
	return CT_API_OTHER;
}
