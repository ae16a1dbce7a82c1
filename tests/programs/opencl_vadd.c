// SPDX-License-Identifier: MIT
/*
 * Runs two OpenCL kernels for real (on PoCL's CPU device in the tests) and
 * calls each API that the opencl plugin traces, in a fixed order and with
 * values the integration test looks for. It checks the kernels' results and
 * exits 1 if they are wrong, so a passing test also means the program really
 * ran on the device. Two calls fail on purpose: clCreateKernel of a name
 * that is not in the program (errcode_ret CL_INVALID_KERNEL_NAME) and
 * clReleaseMemObject of NULL (CL_INVALID_MEM_OBJECT).
 */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <stdio.h>
#include <stdlib.h>
#include <CL/cl.h>

#define N 256

static const char *source =
	"__kernel void vadd(__global const float *a, __global const float *b,\n"
	"                   __global float *c)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	c[i] = a[i] + SCALE * b[i];\n"
	"}\n"
	"__kernel void scale2d(__global float *c)\n"
	"{\n"
	"	size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
	"	c[i] = 2.0f * c[i];\n"
	"}\n";

static void check(cl_int err, const char *what)
{
	if (err != CL_SUCCESS) {
		fprintf(stderr, "opencl_vadd: %s failed: %d\n", what, err);
		exit(2);
	}
}

int main(void)
{
	cl_platform_id platform;
	cl_device_id device;
	cl_uint n_platforms = 0, n_devices = 0;
	cl_int err, bad = 0;
	float a[N], b[N], c[N], d[N];
	float zero = 0.0f;
	size_t global[1] = { N }, local[1] = { 64 }, global2[2] = { 16, 16 };
	cl_event fill_done;

	for (int i = 0; i < N; i++) {
		a[i] = (float)i;
		b[i] = (float)(N - i);
	}
	check(clGetPlatformIDs(1, &platform, &n_platforms), "clGetPlatformIDs");
	check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &n_devices), "clGetDeviceIDs");
	cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
	check(err, "clCreateContext");
	cl_command_queue q1 = clCreateCommandQueue(ctx, device, 0, &err);
	check(err, "clCreateCommandQueue");
	cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
	check(err, "clCreateCommandQueueWithProperties");
	cl_mem ba = clCreateBuffer(ctx, CL_MEM_READ_ONLY, sizeof(a), NULL, &err);
	check(err, "clCreateBuffer a");
	cl_mem bb = clCreateBuffer(ctx, CL_MEM_READ_ONLY, sizeof(b), NULL, &err);
	check(err, "clCreateBuffer b");
	cl_mem bc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(c), NULL, &err);
	check(err, "clCreateBuffer c");
	/* No errcode_ret: the handle alone says it worked. */
	cl_mem bd = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(d), NULL, NULL);
	if (!bd)
		check(CL_OUT_OF_RESOURCES, "clCreateBuffer d");

	cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
	check(err, "clCreateProgramWithSource");
	check(clBuildProgram(prog, 1, &device, "-DSCALE=3", NULL, NULL), "clBuildProgram");
	cl_kernel vadd = clCreateKernel(prog, "vadd", &err);
	check(err, "clCreateKernel vadd");
	cl_kernel scale2d = clCreateKernel(prog, "scale2d", &err);
	check(err, "clCreateKernel scale2d");
	cl_kernel none = clCreateKernel(prog, "no_such_kernel", &err);
	if (none || err != CL_INVALID_KERNEL_NAME) {
		fprintf(stderr, "opencl_vadd: clCreateKernel no_such_kernel gave %p, %d\n",
			(void *)none, err);
		return 2;
	}

	check(clEnqueueWriteBuffer(q, ba, CL_TRUE, 0, sizeof(a), a, 0, NULL, NULL), "write a");
	check(clEnqueueWriteBuffer(q, bb, CL_TRUE, 0, sizeof(b), b, 0, NULL, NULL), "write b");
	check(clSetKernelArg(vadd, 0, sizeof(cl_mem), &ba), "arg 0");
	check(clSetKernelArg(vadd, 1, sizeof(cl_mem), &bb), "arg 1");
	check(clSetKernelArg(vadd, 2, sizeof(cl_mem), &bc), "arg 2");
	check(clEnqueueNDRangeKernel(q, vadd, 1, NULL, global, local, 0, NULL, NULL), "vadd");
	check(clSetKernelArg(scale2d, 0, sizeof(cl_mem), &bc), "scale2d arg 0");
	check(clEnqueueNDRangeKernel(q, scale2d, 2, NULL, global2, NULL, 0, NULL, NULL), "scale2d");
	check(clEnqueueCopyBuffer(q, bc, bd, 0, 0, sizeof(c), 0, NULL, NULL), "copy c to d");
	check(clEnqueueFillBuffer(q, bc, &zero, sizeof(zero), 0, sizeof(c), 0, NULL, &fill_done),
	      "fill c");
	check(clFlush(q), "clFlush");
	check(clWaitForEvents(1, &fill_done), "clWaitForEvents");
	check(clEnqueueReadBuffer(q, bd, CL_TRUE, 0, sizeof(d), d, 0, NULL, NULL), "read d");
	check(clEnqueueReadBuffer(q, bc, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL), "read c");
	check(clFinish(q), "clFinish");

	for (int i = 0; i < N; i++) {
		if (d[i] != 2.0f * (a[i] + 3.0f * b[i]) || c[i] != 0.0f)
			bad++;
	}
	printf("opencl_vadd: %u platform(s), %u device(s), %d wrong\n", n_platforms, n_devices, bad);

	/* Releasing nothing is an error the trace must name. */
	if (clReleaseMemObject(NULL) != CL_INVALID_MEM_OBJECT)
		bad++;
	clReleaseMemObject(bd);
	clReleaseMemObject(bc);
	clReleaseMemObject(bb);
	clReleaseMemObject(ba);
	clReleaseKernel(scale2d);
	clReleaseKernel(vadd);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	clReleaseCommandQueue(q1);
	clReleaseContext(ctx);
	return bad ? 1 : 0;
}
