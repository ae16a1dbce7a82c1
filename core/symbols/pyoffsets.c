// SPDX-License-Identifier: MIT
/*
 * CPython's layouts by version. The rows are data, not code: the output of
 * tools/pyoffsets/gen_pyoffsets.c compiled against each version's own
 * internal headers (tools/pyoffsets/gen.sh > pyoffsets_gen.h), so every
 * offset is the compiler's offsetof() over the interpreter's definitions.
 * A patch release keeps its minor version's layout (CPython's ABI rule for
 * the structures of a running interpreter, which debuggers rely on too);
 * python.c checks the row against the running interpreter at attach.
 * 3.13 also publishes its layout (_Py_DebugOffsets): that wins, and the
 * row checks it.
 */
#include <errno.h>
#include <string.h>
#include "symbols/pyoffsets.h"

struct row {
	int major, minor;
	struct ct_py_layout l;
};

static const struct row rows[] = {
#include "symbols/pyoffsets_gen.h"
};

static const struct row *row_of(int major, int minor)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].major == major && rows[i].minor == minor)
			return &rows[i];
	return NULL;
}

const struct ct_py_layout *ct_py_layout_of(int major, int minor)
{
	const struct row *r = row_of(major, minor);

	return r ? &r->l : NULL;
}

/*
 * 3.13's _Py_DebugOffsets, as its Include/internal/pycore_runtime.h has it
 * (3.13.0 to 3.13.x): every field a uint64_t, in this order. 3.14 added
 * fields in the middle, so a version past 3.13 is not read with it.
 */
enum {
	D_COOKIE = 0, D_VERSION = 1, D_FREE_THREADED = 2,
	D_RT = 3,      /* size, finalizing, interpreters_head */
	D_IS = 6,      /* size, id, next, threads_head, gc, imports_modules, sysdict, builtins,
			* ceval_gil, gil_runtime_state, _enabled, _locked, _holder */
	D_TS = 19,     /* size, prev, next, interp, current_frame, thread_id, native_thread_id,
			* datastack_chunk, status */
	D_FR = 28,     /* size, previous, executable, instr_ptr, localsplus, owner */
	D_CO = 34,     /* size, filename, name, qualname, linetable, firstlineno, argcount,
			* localsplusnames, localspluskinds, co_code_adaptive */
	D_OB = 44,     /* size, ob_type */
	D_TY = 46,     /* size, tp_name, tp_repr, tp_flags */
	D_TU = 50, D_LI = 53, D_DI = 56, D_FL = 59, D_LO = 61,
	D_BY = 64,     /* size, ob_size, ob_sval */
	D_UN = 67,     /* size, state, length, asciiobject_size */
	D_WORDS = 71,
};

bool ct_py_layout_fits(const struct ct_py_layout *l)
{
	const unsigned last = CT_PY_CHUNK - 8; /* a word read from a chunk starts at most here */

	return l->fr_previous <= last && l->fr_code <= last && l->fr_instr <= last &&
	       (l->fr_owner == CT_PY_NONE || l->fr_owner < CT_PY_CHUNK) && l->co_filename <= last &&
	       l->co_name <= last && l->co_firstlineno <= last && l->str_ascii_bit >= 1 && l->str_ascii_bit < 32;
}

int ct_py_layout_debug(const void *buf, size_t n, struct ct_py_layout *out, uint32_t *hexversion)
{
	uint64_t w[D_WORDS];
	struct ct_py_layout l = { 0 };

	if (n < sizeof(w) || memcmp(buf, "xdebugpy", 8))
		return -ENOENT;
	memcpy(w, buf, sizeof(w));
	*hexversion = (uint32_t)w[D_VERSION];
	if ((w[D_VERSION] >> 16) != 0x030d)
		return -ENOTSUP;
	if (w[D_FREE_THREADED])
		return -ENOTSUP; /* the free-threaded build keeps its frames elsewhere */
	l.rt_interp_main = (uint16_t)w[D_RT + 2];
	l.is_threads_head = (uint16_t)w[D_IS + 3];
	l.is_runtime = CT_PY_NONE;
	l.ts_next = (uint16_t)w[D_TS + 2];
	l.ts_interp = (uint16_t)w[D_TS + 3];
	l.ts_frame = (uint16_t)w[D_TS + 4];
	l.ts_thread = (uint16_t)w[D_TS + 6];
	l.cf_current = CT_PY_NONE;
	l.fr_previous = (uint16_t)w[D_FR + 1];
	l.fr_code = (uint16_t)w[D_FR + 2];
	l.fr_instr = (uint16_t)w[D_FR + 3];
	l.fr_owner = (uint16_t)w[D_FR + 5];
	l.co_filename = (uint16_t)w[D_CO + 1];
	l.co_name = (uint16_t)w[D_CO + 2];
	l.co_linetable = (uint16_t)w[D_CO + 4];
	l.co_firstlineno = (uint16_t)w[D_CO + 5];
	l.co_code = (uint16_t)w[D_CO + 9];
	l.str_state = (uint16_t)w[D_UN + 1];
	l.str_ascii_data = (uint16_t)w[D_UN + 3];
	/* PyCompactUnicodeObject: the ASCII header, utf8_length, then utf8 */
	l.str_utf8 = (uint16_t)(w[D_UN + 3] + 8);
	l.bytes_size = (uint16_t)w[D_BY + 1];
	l.bytes_data = (uint16_t)w[D_BY + 2];
	l.model = CT_PY_IFRAME;
	l.thread_match = CT_PY_NATIVE_TID;
	l.owner_cstack = 3; /* FRAME_OWNED_BY_CSTACK */
	l.str_ascii_bit = 6;
	/* The sizes say the words were read where this layout puts them. */
	if (!ct_py_layout_fits(&l) || w[D_FR] < 72 || w[D_FR] > 256 || w[D_CO] < l.co_code || w[D_OB + 1] != 8)
		return -EINVAL;
	*out = l;
	return 0;
}
