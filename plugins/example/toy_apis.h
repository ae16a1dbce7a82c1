/* SPDX-License-Identifier: MIT */
/* The rows of the example's API table, by name: the table (example.c) and
 * its BPF hook (hook.bpf.c) both need them. */
#ifndef TOY_APIS_H
#define TOY_APIS_H

enum toy_api { TOY_MALLOC, TOY_FREE, TOY_MEMCPY, TOY_LAUNCH, TOY_N_APIS };

/* Memory word where the hook puts toyLaunch's derived byte count. */
#define TOY_LAUNCH_BYTES_WORD 0

#endif
