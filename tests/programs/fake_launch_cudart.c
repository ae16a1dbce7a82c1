// SPDX-License-Identifier: MIT
/*
 * A stand-in libcudart whose cudaLaunchKernel launches through the driver,
 * as the real one does: cuLaunchKernel (of the libcuda.so.1 loaded before
 * it, tests/programs/fake_gpu_cuda.c) with a handle it made for the stub
 * on the stub's first launch, the way the real runtime makes its handles
 * once, so that a tracer attached later never sees the handle made. Its
 * cudaLaunchKernelExC launches the same way and then makes the context
 * current (a driver call after the launch, inside the runtime's). Built
 * as libcudart.so.97 in a folder of its own.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

typedef int (*launch_fn)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
			 unsigned shared, void *stream, void **params, void **extra);

int cudaLaunchKernel(const void *func, unsigned long grid_xy, unsigned grid_z, unsigned long block_xy,
		     unsigned block_z, void **args, size_t shared, void *stream)
{
	static launch_fn launch;

	if (!launch)
		launch = (launch_fn)dlsym(RTLD_DEFAULT, "cuLaunchKernel");
	if (!launch)
		return 35; /* cudaErrorInsufficientDriver */
	/* The handle: not the stub's address, so only its parent can name it. */
	return launch((void *)(0xf0000000000ul ^ (uintptr_t)func), (unsigned)grid_xy, (unsigned)(grid_xy >> 32),
		      grid_z, (unsigned)block_xy, (unsigned)(block_xy >> 32), block_z, (unsigned)shared, stream, args,
		      NULL);
}

/* cudaLaunchConfig_t's first fields: dim3 gridDim, dim3 blockDim, dynamicSmemBytes, stream. */
struct launch_config {
	unsigned grid[3], block[3];
	size_t shared;
	void *stream;
};

int cudaLaunchKernelExC(const struct launch_config *c, const void *func, void **args)
{
	int (*set_current)(void *ctx) = (int (*)(void *))dlsym(RTLD_DEFAULT, "cuCtxSetCurrent");
	launch_fn launch = (launch_fn)dlsym(RTLD_DEFAULT, "cuLaunchKernel");
	int err;

	if (!launch || !set_current)
		return 35;
	err = launch((void *)(0xf0000000000ul ^ (uintptr_t)func), c->grid[0], c->grid[1], c->grid[2], c->block[0],
		     c->block[1], c->block[2], (unsigned)c->shared, c->stream, args, NULL);
	return err ? err : set_current(NULL);
}
