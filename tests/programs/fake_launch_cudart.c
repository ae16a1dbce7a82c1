// SPDX-License-Identifier: MIT
/*
 * A stand-in libcudart whose cudaLaunchKernel launches through the driver,
 * as the real one does: cuLaunchKernel (of the libcuda.so.1 loaded before
 * it, tests/programs/fake_gpu_cuda.c) with a handle it made for the stub
 * on the stub's first launch, the way the real runtime makes its handles
 * once, so that a tracer attached later never sees the handle made. Built
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
