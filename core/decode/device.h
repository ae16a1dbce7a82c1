/* SPDX-License-Identifier: MIT */
/*
 * The device of every call: per thread, the device and the driver's
 * context stack as the thread's own calls set them (API flags
 * CT_API_SET_DEVICE, SET_CONTEXT, PUSH_CONTEXT, POP_CONTEXT), and per
 * process which device each context is on (a CONTEXT_NEW argument with a
 * DEVICE one: cuCtxCreate, cuDevicePrimaryCtxRetain). A thread none of
 * whose calls said, or whose current context was made before the tracer
 * saw it, has device -1: unknown, never a guess; then what its process
 * says (procgpu.h) may name the GPU, or index 0 of a single visible one.
 *
 * Not thread-safe: the poll loop is the only user.
 */
#ifndef CT_DECODE_DEVICE_H
#define CT_DECODE_DEVICE_H

#include <stdint.h>
#include <cudatracer/event.h>

/* Note what the call says about devices, then set ev->device (the thread's
 * current one), ev->device_from and ev->gpu. */
void ct_device_note(struct ct_event *ev);
/* Drop a process's threads and contexts (it exited). */
void ct_device_forget(uint32_t pid);
void ct_device_reset(void);

#endif
