/* SPDX-License-Identifier: MIT */
#ifndef CT_BPFUTIL_H
#define CT_BPFUTIL_H

#include <stddef.h>

struct bpf_object;

/* Set a `const volatile` global of an opened, not yet loaded object by name. */
int ct_bpf_set_const(struct bpf_object *obj, const char *name, const void *val, size_t sz);

#endif
