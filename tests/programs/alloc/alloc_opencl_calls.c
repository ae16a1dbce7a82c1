// SPDX-License-Identifier: MIT
/*
 * OpenCL's buffers and SVM on the stand-in of this folder, with reference
 * counts: a buffer retained once is freed by its second release; one
 * retained and released once is still held at the end (3400 bytes leaked).
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

int main(void)
{
	cl_context ctx = (cl_context)0x5353;
	cl_int err;
	cl_mem b;
	void *s;

	b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 3100, NULL, &err);
	clRetainMemObject(b);
	clReleaseMemObject(b); /* still held */
	clReleaseMemObject(b); /* freed */
	b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 3200, NULL, NULL);
	clReleaseMemObject(b);
	s = clSVMAlloc(ctx, CL_MEM_READ_WRITE, 3300, 0);
	clSVMFree(ctx, s);
	b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 3400, NULL, &err);
	clRetainMemObject(b);
	clReleaseMemObject(b); /* leaked: one hold left */
	return 0;
}
