// SPDX-License-Identifier: MIT
/*
 * Kernels launched through the driver API by handle, the way cuBLAS and
 * Triton launch theirs: a module loaded from a PTX file (cuModuleLoad,
 * cuModuleGetFunction) and the same PTX loaded as a library
 * (cuLibraryLoadData, cuLibraryGetKernel, cuKernelGetFunction), then
 * cuLaunchKernel / cuLaunchKernelEx on each handle. The tracer names each
 * launch from the handle's creation.
 *
 *   driver_module PTX_FILE
 *
 * Every call is made even when an earlier one failed, so the sequence of
 * calls is the same with the toolkit's stub libcuda (every call returns
 * CUDA_ERROR_STUB_LIBRARY) and with a real driver. Exit status: 0 when
 * every call succeeded, 3 when every call returned CUDA_ERROR_STUB_LIBRARY,
 * 1 otherwise.
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

static int calls, ok, stub;

static void check(const char *what, CUresult r)
{
	calls++;
	if (r == CUDA_SUCCESS)
		ok++;
	else if (r == CUDA_ERROR_STUB_LIBRARY)
		stub++;
	else
		fprintf(stderr, "driver_module: %s: error %d\n", what, (int)r);
}

#define CALL(expr) check(#expr, expr)

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = calloc(1, (size_t)n + 1); /* PTX is text: NUL-terminated */
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	CUdevice dev = 0;
	CUcontext ctx = NULL;
	CUmodule mod = NULL;
	CUlibrary lib = NULL;
	CUfunction scale = NULL, fill = NULL;
	CUkernel fill_k = NULL;
	CUdeviceptr buf = 0;
	int n = 1024;
	float k = 2.0f, v = 1.5f;
	void *args_scale[] = { &buf, &n, &k };
	void *args_fill[] = { &buf, &n, &v };
	CUlaunchConfig cfg = { .gridDimX = 8, .gridDimY = 1, .gridDimZ = 1,
			       .blockDimX = 128, .blockDimY = 1, .blockDimZ = 1 };
	char *ptx;

	if (argc != 2) {
		fprintf(stderr, "usage: driver_module PTX_FILE\n");
		return 2;
	}
	ptx = read_file(argv[1]);
	if (!ptx) {
		perror(argv[1]);
		return 2;
	}
	CALL(cuInit(0));
	CALL(cuDeviceGet(&dev, 0));
	CALL(cuDevicePrimaryCtxRetain(&ctx, dev));
	CALL(cuCtxSetCurrent(ctx));
	CALL(cuMemAlloc(&buf, n * sizeof(float)));

	CALL(cuModuleLoad(&mod, argv[1]));
	CALL(cuModuleGetFunction(&scale, mod, "_Z9drv_scalePfif"));
	CALL(cuLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0));
	CALL(cuLibraryGetKernel(&fill_k, lib, "drv_fill"));
	CALL(cuKernelGetFunction(&fill, fill_k));

	CALL(cuLaunchKernel(fill, 4, 1, 1, 256, 1, 1, 0, NULL, args_fill, NULL));
	CALL(cuLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, NULL, args_scale, NULL));
	/* A CUkernel can be launched as it is, cast to a CUfunction. */
	CALL(cuLaunchKernel((CUfunction)fill_k, 2, 1, 1, 512, 1, 1, 0, NULL, args_fill, NULL));
	CALL(cuLaunchKernelEx(&cfg, scale, args_scale, NULL));
	CALL(cuCtxSynchronize());

	CALL(cuLibraryUnload(lib));
	CALL(cuModuleUnload(mod));
	CALL(cuMemFree(buf));
	CALL(cuDevicePrimaryCtxRelease(dev));
	free(ptx);
	printf("driver_module: %d calls, %d succeeded, %d returned CUDA_ERROR_STUB_LIBRARY\n",
	       calls, ok, stub);
	if (ok == calls)
		return 0;
	return stub == calls ? 3 : 1;
}
