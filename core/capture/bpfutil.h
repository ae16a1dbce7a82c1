/* SPDX-License-Identifier: MIT */
#ifndef CT_BPFUTIL_H
#define CT_BPFUTIL_H

#include <stddef.h>
#include <stdint.h>

struct bpf_object;

/* A `const volatile` global of an opened, not yet loaded object, by name and
 * size: where its initial value is; NULL if it has none such. */
void *ct_bpf_const(struct bpf_object *obj, const char *name, size_t sz);
/* Set one. */
int ct_bpf_set_const(struct bpf_object *obj, const char *name, const void *val, size_t sz);
/* Slots 0 .. n-1 of a per-CPU array of u64 counters (map fd), each summed over CPUs. */
int ct_bpf_percpu_sum(int fd, unsigned n, uint64_t *out);

#endif
