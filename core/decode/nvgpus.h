/* SPDX-License-Identifier: MIT */
/*
 * The node's NVIDIA GPUs as the driver lists them: one folder a GPU under
 * /proc/driver/nvidia/gpus, whose `information` file says its minor number
 * (/dev/nvidiaN), UUID and PCI bus. Read when first needed and again when a
 * minor is asked for that the table lacks (at most once a second). Not
 * thread-safe: the poll loop is the only user.
 */
#ifndef CT_DECODE_NVGPUS_H
#define CT_DECODE_NVGPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <cudatracer/event.h>

/* The folder read; a mount namespace or a container that names another
 * shows the tracer what it mounts there. */
#define CT_NVGPUS_DIR "/proc/driver/nvidia/gpus"
/* The most GPUs kept, and of one information file read (the driver's are ~500 bytes). */
#define CT_NVGPUS_MAX 64
#define CT_NVGPU_INFO_MAX 4096

/* One information file's text: 0, or -EINVAL when it lacks a valid
 * "Device Minor:" or "GPU UUID:" ("Bus Location:" is optional). */
int ct_nvgpu_parse(const char *text, size_t n, struct ct_gpu_info *out);
/* A UUID of nvidia-smi's shape ("GPU-" and 8-4-4-4-12 hex digits); a PCI
 * bus ("0000:3b:00.0": hex digits, ':' and '.') shorter than cap. */
bool ct_nvgpu_uuid_valid(const char *v, size_t n);
bool ct_nvgpu_bus_valid(const char *v, size_t n, size_t cap);

/* The GPU of /dev/nvidiaN; NULL when the driver does not list it. Valid until reset. */
const struct ct_gpu_info *ct_nvgpus_by_minor(int32_t minor);
/* The node's GPU when the driver lists exactly one (one folder, its file
 * believed); NULL: none, several, or one not believed. */
const struct ct_gpu_info *ct_nvgpus_only(void);
void ct_nvgpus_reset(void);

#endif
