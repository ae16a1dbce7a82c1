/* SPDX-License-Identifier: MIT */
/*
 * CPython's layouts, by version (docs/stacks-python.md): a table for the
 * versions before 3.13 (pyoffsets.c: generated from each version's own
 * headers by tools/pyoffsets/), and 3.13's from the _Py_DebugOffsets the
 * interpreter keeps at the start of its _PyRuntime.
 */
#ifndef CT_PYOFFSETS_H
#define CT_PYOFFSETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pystack.h"

/* The table's layout of major.minor, or NULL: a version it has none for. */
const struct ct_py_layout *ct_py_layout_of(int major, int minor);

/* Whether the engine can read this layout: the fields it reads from a frame
 * or a code object at once lie in its CT_PY_CHUNK bytes. */
bool ct_py_layout_fits(const struct ct_py_layout *l);

/* The size of _Py_DebugOffsets that ct_py_layout_debug() reads. */
#define CT_PY_DEBUG_SIZE 640

/*
 * 3.13: the layout from the interpreter's _Py_DebugOffsets (`buf`, the first
 * n bytes of its _PyRuntime). *hexversion gets its PY_VERSION_HEX.
 * Returns 0, -ENOENT (no "xdebugpy" cookie: before 3.13), -ENOTSUP (a
 * version whose _Py_DebugOffsets this reader does not know: 3.14+), or
 * -EINVAL (an offset out of what the engine reads).
 */
int ct_py_layout_debug(const void *buf, size_t n, struct ct_py_layout *out, uint32_t *hexversion);

#endif
