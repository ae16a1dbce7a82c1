/* SPDX-License-Identifier: MIT */
/*
 * A traced process's place in a distributed job, read once from
 * /proc/PID/environ: rank, local rank, world size and job id, as launchers
 * set them (torchrun, Slurm, Open MPI); and how many devices its
 * CUDA_VISIBLE_DEVICES names. The environment the process was started
 * with: what it sets itself later (os.environ) is not in the file. Not thread-safe: the poll loop is
 * the only user.
 */
#ifndef CT_PROCENV_H
#define CT_PROCENV_H

#include <stddef.h>
#include <cudatracer/event.h>

/* The most of /proc/PID/environ that is read (the kernel caps argv+envp near this). */
#define CT_ENVIRON_MAX (1u << 20)

/*
 * What the NUL-separated KEY=VALUE list `env` (n bytes) says; false when it
 * sets none of the variables. Each field takes the first variable of its row
 * that is set to a valid value (docs/events.md lists them).
 */
bool ct_procenv_parse(const char *env, size_t n, struct ct_proc_env *out);

/*
 * The process's, read at the first call for its pid (and again after
 * ct_procenv_forget): NULL when it has none of the variables or its environ
 * could not be read (it had exited; not tried again). Valid until the pid
 * is forgotten.
 */
const struct ct_proc_env *ct_procenv_get(uint32_t pid);

/*
 * How many devices CUDA_VISIBLE_DEVICES's value (n bytes) names as the CUDA
 * runtime reads it: indices, GPU-<uuid> or MIG-<uuid> entries separated by
 * commas, up to the first entry that is none of these (the runtime ignores
 * it and those after it).
 */
int ct_visible_devices_count(const char *v, size_t n);
/* The process's count (read with its job environment); -1: the variable is unset. */
int ct_procenv_visible_devices(uint32_t pid);

/* Forget a pid (it exec'd a new environment, or exited). */
void ct_procenv_forget(uint32_t pid);
void ct_procenv_reset(void);

#endif
