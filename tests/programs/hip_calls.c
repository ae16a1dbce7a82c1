// SPDX-License-Identifier: MIT
/*
 * Calls each HIP runtime API that the hip plugin traces, once, in a fixed
 * order and with values the integration test looks for. On a machine with
 * no AMD GPU every call fails (hipErrorNoDevice, hipErrorInvalidDevice ...),
 * which is what the test expects: the tracer must show each call all the same.
 * Handles are made-up, distinctive values: the runtime checks the device
 * before it looks at them.
 */
#include <stdio.h>
#include <hip/hip_runtime_api.h>

/* hip_ext.h declares this for C++ only. */
hipError_t hipExtLaunchKernel(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
			      void **args, size_t sharedMemBytes, hipStream_t stream,
			      hipEvent_t startEvent, hipEvent_t stopEvent, int flags);

static void kernel_stub(void)
{
}

#define CALL(x) printf("%-24s %d\n", #x, (int)(x))

int main(void)
{
	int count = -1, dev = -7;
	void *d = NULL, *h = NULL, *m = NULL, *a = NULL;
	void *dptr = (void *)0x7100000, *dptr2 = (void *)0x7200000;
	hipStream_t s = NULL, stream = (hipStream_t)0x5100;
	hipEvent_t e = NULL, ev0 = (hipEvent_t)0x6100, ev1 = (hipEvent_t)0x6200;
	hipFunction_t f = NULL;
	hipModule_t mod = (hipModule_t)0x6300;
	hipGraphExec_t graph = (hipGraphExec_t)0x6400;
	void *kargs[1] = { &dev };
	float ms = 1.5f;
	static char host[4096];

	CALL(hipGetDeviceCount(&count));
	CALL(hipSetDevice(3));
	CALL(hipGetDevice(&dev));
	CALL(hipMalloc(&d, 4096));
	CALL(hipHostMalloc(&h, 8192, 0));
	CALL(hipMallocManaged(&m, 12288, hipMemAttachGlobal));
	CALL(hipMallocAsync(&a, 16384, stream));
	CALL(hipStreamCreate(&s));
	CALL(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
	CALL(hipMemcpy(dptr, host, 256, hipMemcpyHostToDevice));
	CALL(hipMemcpyAsync(host, dptr, 128, hipMemcpyDeviceToHost, stream));
	CALL(hipMemcpyHtoD((hipDeviceptr_t)dptr, host, 64));
	CALL(hipMemcpyDtoH(host, (hipDeviceptr_t)dptr, 32));
	CALL(hipMemcpyDtoD((hipDeviceptr_t)dptr2, (hipDeviceptr_t)dptr, 16));
	CALL(hipMemset(dptr, 0x5a, 1024));
	CALL(hipMemsetAsync(dptr, 7, 512, stream));
	CALL(hipLaunchKernel((const void *)kernel_stub, (dim3){ 4, 3, 2 }, (dim3){ 64, 2, 1 },
			     kargs, 96, stream));
	CALL(hipExtLaunchKernel((const void *)kernel_stub, (dim3){ 8, 1, 1 }, (dim3){ 128, 1, 1 },
				kargs, 48, stream, ev0, ev1, 5));
	CALL(hipModuleGetFunction(&f, mod, "vadd"));
	CALL(hipModuleLaunchKernel((hipFunction_t)0x6500, 5, 6, 7, 32, 4, 2, 256, stream, kargs,
				   NULL));
	CALL(hipEventCreate(&e));
	CALL(hipEventRecord(ev0, stream));
	CALL(hipStreamWaitEvent(stream, ev0, 0));
	CALL(hipEventSynchronize(ev1));
	CALL(hipEventElapsedTime(&ms, ev0, ev1));
	CALL(hipEventDestroy(ev0));
	CALL(hipGraphLaunch(graph, stream));
	CALL(hipStreamSynchronize(stream));
	CALL(hipDeviceSynchronize());
	CALL(hipFreeAsync(dptr, stream));
	CALL(hipFree(dptr));
	CALL(hipHostFree(dptr2));
	CALL(hipStreamDestroy(stream));
	printf("count=%d dev=%d d=%p h=%p m=%p a=%p s=%p e=%p f=%p ms=%g\n", count, dev, d, h, m, a,
	       (void *)s, (void *)e, (void *)f, ms);
	/* What only the running program knows, for the test to compare with. */
	printf("kernel_stub=%p kargs=%p host=%p\n", (void *)kernel_stub, (void *)kargs, (void *)host);
	return 0;
}
