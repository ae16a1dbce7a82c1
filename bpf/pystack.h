/* SPDX-License-Identifier: MIT */
/*
 * Python frames (docs/stacks-python.md): the engine's contract with the
 * core for walking a CPython interpreter's frames at a traced call. The
 * core tells the engine, per process, where the interpreter's runtime
 * state is and the layout of the structures of that interpreter's version
 * (struct ct_py_proc, map `py_procs`); the engine sends each distinct
 * stack once (map `py_stacks`, keyed by its id: a record's `pystack` is
 * the id + 1) and copies each code object's names once (map `py_codes`).
 * Shared by BPF and user space: fixed-size types only.
 */
#ifndef CT_PYSTACK_H
#define CT_PYSTACK_H

#include "record.h"

typedef unsigned short ct_u16;

#define CT_PY_MAX_FRAMES 64  /* innermost first; deeper ones are cut (CT_PYS_TRUNCATED) */
#define CT_PY_MAX_THREADS 128 /* threads of the interpreter looked through for the caller */
#define CT_PY_NAME 64        /* bytes of co_name kept, NUL included */
#define CT_PY_FILE 192       /* bytes of co_filename kept */
#define CT_PY_LINES 1024     /* bytes of a code object's line table copied (a longer one: its prefix) */
#define CT_PY_CHUNK 128      /* bytes of a frame, and of a code object, read at once: every offset
			      * the engine reads one at must lie below CT_PY_CHUNK - 8 */
#define CT_PY_NONE 0xffff    /* an offset the version does not have */

/* How a version keeps its frames: the engine's three walks. */
enum ct_py_model {
	CT_PY_FRAMEOBJ = 1, /* 3.10: tstate->frame, a PyFrameObject chain (f_back, f_code, f_lasti) */
	CT_PY_CFRAME = 2,   /* 3.11, 3.12: tstate->cframe->current_frame, _PyInterpreterFrame chain */
	CT_PY_IFRAME = 3,   /* 3.13: tstate->current_frame */
};

/* How the caller's thread state is told from the others. */
enum ct_py_thread_match {
	CT_PY_NATIVE_TID = 1, /* tstate->native_thread_id == the thread's id in its pid namespace */
	CT_PY_PTHREAD = 2,    /* tstate->thread_id == pthread_self(): the thread's fsbase (x86-64) */
};

/*
 * One version's layout: offsets in bytes, CT_PY_NONE where it has no such
 * field. Generated from each version's own headers (tools/gen_pyoffsets.c)
 * or read from the interpreter's _Py_DebugOffsets (3.13+): core/symbols/pyoffsets.c.
 */
struct ct_py_layout {
	ct_u16 rt_interp_main;  /* _PyRuntimeState.interpreters.main */
	ct_u16 is_threads_head; /* PyInterpreterState.threads.head (3.10: tstate_head) */
	ct_u16 is_runtime;      /* PyInterpreterState.runtime (checked in user space) */
	ct_u16 ts_next;         /* PyThreadState.next */
	ct_u16 ts_interp;       /* PyThreadState.interp */
	ct_u16 ts_thread;       /* native_thread_id (CT_PY_NATIVE_TID) or thread_id (CT_PY_PTHREAD) */
	ct_u16 ts_frame;        /* frame (3.10), cframe (3.11, 3.12), current_frame (3.13) */
	ct_u16 cf_current;      /* _PyCFrame.current_frame */
	ct_u16 fr_previous;     /* f_back / previous */
	ct_u16 fr_code;         /* f_code / f_executable */
	ct_u16 fr_instr;        /* f_lasti (int, code units: 3.10), prev_instr (3.11, 3.12), instr_ptr (3.13) */
	ct_u16 fr_owner;        /* owner (char); CT_PY_NONE in 3.10 */
	ct_u16 co_filename;
	ct_u16 co_name;
	ct_u16 co_firstlineno;  /* int */
	ct_u16 co_linetable;    /* a bytes object */
	ct_u16 co_code;         /* co_code_adaptive (3.11+): where instructions start */
	ct_u16 str_state;       /* PyASCIIObject.state: kind, compact, ascii bits */
	ct_u16 str_ascii_data;  /* sizeof(PyASCIIObject): a compact ASCII string's bytes */
	ct_u16 str_utf8;        /* PyCompactUnicodeObject.utf8: another string's UTF-8, when made */
	ct_u16 bytes_size;      /* PyVarObject.ob_size of a bytes object */
	ct_u16 bytes_data;      /* PyBytesObject.ob_sval */
	ct_u8 model;            /* enum ct_py_model */
	ct_u8 thread_match;     /* enum ct_py_thread_match */
	ct_u8 owner_cstack;     /* the owner of the C stack's shim frames, skipped; 0xff none (3.10, 3.11) */
	ct_u8 str_ascii_bit;    /* bit of `state` that says ASCII (compact is the bit below it) */
};

/* What the engine is told of a Python process (map py_procs, key: tgid). */
struct ct_py_proc {
	ct_u64 runtime;   /* &_PyRuntime in the process */
	ct_u64 code_type; /* &PyCode_Type: a frame's code object must be one */
	struct ct_py_layout l;
};

/* One frame: the code object and where in it (bytes from the first instruction; -1: not started). */
struct ct_py_frame {
	ct_u64 code;
	ct_u32 lasti;   /* signed */
	ct_u32 pad;
};

/* py_stacks' values */
#define CT_PYS_TRUNCATED (1u << 0) /* deeper than CT_PY_MAX_FRAMES: the outermost are cut */
#define CT_PYS_NO_THREAD (1u << 1) /* (not sent) the calling thread has no thread state */
struct ct_py_stack {
	ct_u32 tgid;
	ct_u16 n;
	ct_u16 flags;
	struct ct_py_frame f[CT_PY_MAX_FRAMES];
};

/* py_codes: a code object's names, as they were when the engine first met it. */
struct ct_py_code_key {
	ct_u32 tgid;
	ct_u32 pad;
	ct_u64 code;
};

struct ct_py_code {
	ct_u64 name_ptr, file_ptr, lines_ptr; /* what the code object pointed to: a reused address points elsewhere */
	ct_u32 firstlineno;
	ct_u32 lines_len;  /* the line table's length (bytes copied: at most CT_PY_LINES) */
	char name[CT_PY_NAME];
	char file[CT_PY_FILE];
	unsigned char lines[CT_PY_LINES]; /* the line table (co_linetable), copied: the process may be gone
					   * by the time the core decodes the record */
};

/* Counters in the engine's per-CPU `py_stats` array. */
enum ct_py_stat {
	CT_PY_STAT_NO_TSTATE, /* calls of a Python process from a thread with no thread state */
	CT_PY_STAT_FULL,      /* stacks not kept: py_stacks full, or an id taken by another stack */
	CT_PY_STAT_MAX,
};

#define CT_PY_STACKS_MAX 16384 /* distinct stacks kept */
#define CT_PY_CODES_MAX 16384  /* code objects named */
#define CT_PY_PROCS_MAX 4096   /* Python processes at once */

#endif
