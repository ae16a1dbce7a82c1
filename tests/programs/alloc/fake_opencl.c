// SPDX-License-Identifier: MIT
/*
 * A stand-in libOpenCL.so.1 whose buffer and SVM calls succeed, with the
 * reference counts a real one keeps (see fake_cudart.c).
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include "bump.h"

#define NEW(type) ((type)bump(0x7d0000000000))

cl_mem clCreateBuffer(cl_context c, cl_mem_flags f, size_t n, void *host, cl_int *err)
{
	if (err)
		*err = CL_SUCCESS;
	return NEW(cl_mem);
}

cl_int clRetainMemObject(cl_mem m) { return CL_SUCCESS; }
cl_int clReleaseMemObject(cl_mem m) { return CL_SUCCESS; }
void *clSVMAlloc(cl_context c, cl_svm_mem_flags f, size_t n, cl_uint align) { return NEW(void *); }
void clSVMFree(cl_context c, void *p) {}
