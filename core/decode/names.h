/* SPDX-License-Identifier: MIT */
/*
 * Names remembered by handle, per process. A driver-API kernel is known by
 * an opaque handle (CUfunction, CUkernel, cl_kernel) whose name is seen only
 * once, when the handle is created (cuModuleGetFunction's `name`); launches
 * later carry just the handle. The decoder puts the name when a call that
 * creates a handle succeeds and gets it back for the calls that use it.
 *
 * Not thread-safe: the poll loop is the only user. Returned strings stay
 * valid until the handle is put again, ct_names_forget() or ct_names_reset().
 */
#ifndef CT_NAMES_H
#define CT_NAMES_H

#include <stdint.h>

/*
 * Remember `name` for (pid, handle), replacing an older name: handles are
 * reused after a module is unloaded. The name is kept as ct_name_keep()
 * makes it: demangled where it can be, at most CT_NAME_MAX bytes. A process
 * keeps at most CT_NAMES_PER_PROC names; past them a new handle's name is
 * dropped and counted. Returns 0, -EINVAL for a NULL or empty name,
 * -ENOSPC when dropped, or -ENOMEM.
 */
int ct_names_put(uint32_t pid, uint64_t handle, const char *name);

/* Names dropped because their process had CT_NAMES_PER_PROC already. */
uint64_t ct_names_dropped(void);

/* The name put for (pid, handle), or NULL if none was seen. */
const char *ct_names_get(uint32_t pid, uint64_t handle);

/*
 * Attached mid-run, a driver launch whose handle was made before attach is
 * unnamed; made inside a runtime launch (cudart's cudaLaunchKernel, named
 * from its host stub), it is named from that parent. Records come as calls
 * return, so the inner launch comes first: ct_names_from_parent() keeps a
 * thread's last unnamed launch that has a parent, and when a named launch
 * comes on that thread, the call it named as its parent, enclosing it in
 * time, it puts that name for the handle, so the handle's later launches
 * are named. The inner launch itself has been written unnamed by then.
 * Call it for every launch event (CT_API_LAUNCH), after its parent is set.
 */
struct ct_event;
void ct_names_from_parent(const struct ct_event *ev);

/* Drop a process's names (it exited; its pid may come back as another). */
void ct_names_forget(uint32_t pid);

/* Drop everything (at exit). */
void ct_names_reset(void);

#endif
