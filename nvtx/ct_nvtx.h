/* SPDX-License-Identifier: MIT */
/*
 * What libcudatracer-nvtx.so (the NVTX injection, loaded into a traced
 * command through NVTX_INJECTION64_PATH) tells the tracer: one call of one
 * of these exported, empty functions per NVTX event. The tracer probes them
 * as it probes any runtime's API (plugins/nvtx: their rows); the in-process
 * engine interposes them the same way. `name` is UTF-8, at most
 * CT_NVTX_NAME_MAX bytes with its NUL; CT_NVTX_CUT says it was longer.
 * A domain is its handle (0: NVTX's default domain), named once by
 * ct_nvtx_domain(); a start/end range is its id.
 */
#ifndef CT_NVTX_H
#define CT_NVTX_H

#include <stdint.h>

#define CT_NVTX_LIBRARY "libcudatracer-nvtx.so"
/* The string a call's record carries (CT_MAX_STR). */
#define CT_NVTX_NAME_MAX 256
/* flags: the name was cut to CT_NVTX_NAME_MAX - 1 bytes. */
#define CT_NVTX_CUT 1u

void ct_nvtx_domain(uint64_t domain, const char *name, uint32_t flags);
void ct_nvtx_push(uint64_t domain, const char *name, uint32_t flags);
void ct_nvtx_pop(uint64_t domain);
void ct_nvtx_start(uint64_t domain, const char *name, uint32_t flags, uint64_t id);
void ct_nvtx_end(uint64_t domain, uint64_t id);
void ct_nvtx_mark(uint64_t domain, const char *name, uint32_t flags);

#endif
