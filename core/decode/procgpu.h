/* SPDX-License-Identifier: MIT */
/*
 * The device of a call when its thread's calls did not say (device.c), from
 * what can be known of its process, never a guess: the NVIDIA GPUs it holds
 * open (/proc/PID/fd links to /dev/nvidiaN; nvidiactl, nvidia-uvm and
 * nvidia-modeset are not GPUs). Exactly one open: all its work is on that
 * GPU (named by nvgpus.c); with CUDA_VISIBLE_DEVICES naming exactly one
 * device as well, the runtime's index of it is 0. Two or more, or none: no
 * GPU. Looked at again at most once a second per process, less often
 * (up to every 32 s) while what it holds stays the same, and anew after an
 * exec; never per call. Not thread-safe: the poll loop is the only user.
 */
#ifndef CT_DECODE_PROCGPU_H
#define CT_DECODE_PROCGPU_H

#include <stdint.h>
#include <cudatracer/event.h>

/* How often a process's open files are looked at again (at first, and at
 * most), and the most of its descriptors read each time (past them it has
 * no GPU known). */
#define CT_PROCGPU_RECHECK_NS 1000000000ull
#define CT_PROCGPU_RECHECK_MAX_NS 32000000000ull
#define CT_PROCGPU_MAX_FDS 4096
/* The most processes known at once (live ones, and ended ones that held a GPU). */
#define CT_PROCGPU_MAX_PROCS 65536

/*
 * The GPU minor number /proc/PID/fd/N's link text names ("/dev/nvidia3"),
 * or -1 (another file, nvidiactl, "(deleted)").
 */
int32_t ct_procgpu_minor_of_link(const char *link, size_t n);

/* What the process says of its device: *device is the calls' (-1: they
 * did not say), set where the process says more; *from and *gpu set. */
void ct_procgpu_say(uint32_t pid, int32_t *device, enum ct_device_from *from, const struct ct_gpu_info **gpu);
/* Set ev->gpu and ev->device_from, and ev->device where the calls left it -1. */
void ct_procgpu_note(struct ct_event *ev);
/* The one GPU the process holds open, named; NULL: none known. */
const struct ct_gpu_info *ct_procgpu_of(uint32_t pid);
/* The process exited, its totals still to be read (aggregate mode): a GPU
 * it held stays its own, never looked at again; else it is forgotten. */
void ct_procgpu_exited(uint32_t pid);
/* Forget a pid (it exec'd or exited). */
void ct_procgpu_forget(uint32_t pid);
void ct_procgpu_reset(void);

#endif
