/* SPDX-License-Identifier: MIT */
/*
 * toyrt: a tiny stand-in for a GPU runtime, so that the example plugin has a
 * real library to trace. "Device" memory is host memory; a "kernel" is a
 * function found by name.
 */
#ifndef TOYRT_H
#define TOYRT_H

#include <stddef.h>

typedef enum toyStatus {
	toySuccess = 0,
	toyErrorInvalidValue = 1,
	toyErrorOutOfMemory = 2,
	toyErrorKernelNotFound = 3,
} toyStatus;

/* Allocate `size` bytes (not 0) and store the address in *ptr. */
toyStatus toyMalloc(void **ptr, size_t size);
/* Free what toyMalloc returned; NULL is an invalid value. */
toyStatus toyFree(void *ptr);
/* Copy `size` bytes. */
toyStatus toyMemcpy(void *dst, const void *src, size_t size);
/* Run the kernel called `name` over n floats: "scale" doubles data[i]. */
toyStatus toyLaunch(const char *name, float *data, unsigned int n);

/* Not in the plugin's hand-written table: its row is generated from this
 * header (gen_apis.py, see the Makefile). */
typedef enum toyLimit {
	toyLimitStack = 1,
	toyLimitHeap = 2,
} toyLimit;
toyStatus toySetLimit(toyLimit limit, size_t value);

#endif
