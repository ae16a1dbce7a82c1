// SPDX-License-Identifier: MIT
/*
 * The libraries the tracer puts into a traced command (libcudatracer-inject.so,
 * libcudatracer-inproc*.so): where they are looked for, in order. The build
 * tree keeps them beside the binary; an installed tree, moved or not, keeps
 * them in its libdir (CT_INJECT_RELDIR from bin/, lib/<multiarch>/cudatracer
 * on Debian); last, the folder the binary was built for (CT_INJECT_DIR).
 */
#ifndef CT_OWNLIB_H
#define CT_OWNLIB_H
#include <stddef.h>

/* `name` in the first folder that has it, resolved (realpath) into out
 * (PATH_MAX); -ENOENT where none has it. The caller checks its trust. */
int ct_ownlib_find(const char *name, char *out);
/* The folders looked in, "A, B or C", for a message that says where. */
void ct_ownlib_where(char *buf, size_t len);
#endif
