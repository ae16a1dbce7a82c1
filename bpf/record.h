/* SPDX-License-Identifier: MIT */
/*
 * The capture engine's contract with the core: the record it writes to the
 * ring, one per call; the per-API spec the core fills in before load; the
 * counters; aggregate mode's per-process totals. Engine-internal: no
 * plugin builds against it (a plugin's hook sees <cudatracer/hook.bpf.h>),
 * and it is not installed. Shared by BPF and user space, so fixed-size
 * types only.
 */
#ifndef CT_RECORD_H
#define CT_RECORD_H

#ifdef __bpf__
typedef __u64 ct_u64;
typedef __u32 ct_u32;
typedef __u16 ct_u16;
typedef __u8 ct_u8;
#else
#include <stdint.h>
typedef uint64_t ct_u64;
typedef uint32_t ct_u32;
typedef uint16_t ct_u16;
typedef uint8_t ct_u8;
#endif

#define CT_REC_ARGS 12   /* 6 argument registers + 6 stack words */
#define CT_REC_REGS 6    /* of which registers (x86-64 SysV, arm64: the first 6 of 8) */
#define CT_REC_MEM 8     /* words copied from user memory */
#define CT_REC_STR 256   /* bytes of one C string (mangled CUTLASS names run past 128) */
#define CT_COMM_LEN 16
#define CT_STACK_WORDS (CT_REC_ARGS - CT_REC_REGS)
#define CT_NO_SLOT 0xff  /* a spec's slot field: none */

/*
 * A call id names one API of one plugin of the session: the attach cookie,
 * the record's `call`, the index in the engine's spec array. The plugin's
 * number is its place in the session's list (0-based).
 */
#define CT_CALL_API_BITS 10
#define CT_MAX_PLUGINS 8
#define CT_MAX_PLUGIN_APIS (1u << CT_CALL_API_BITS)
#define CT_MAX_CALLS (CT_MAX_PLUGINS * CT_MAX_PLUGIN_APIS)
#define CT_CALL_ID(plugin, api) ((ct_u32)(plugin) << CT_CALL_API_BITS | (ct_u32)(api))
#define CT_CALL_PLUGIN(id) ((ct_u32)(id) >> CT_CALL_API_BITS)
#define CT_CALL_API(id) ((ct_u32)(id) & (CT_MAX_PLUGIN_APIS - 1))

/* Nested traced calls kept per thread, of every plugin. */
#define CT_MAX_DEPTH 8

/* rec->flags */
#define CT_REC_ENTRY_ONLY (1u << 0) /* emitted at entry: no ret, no duration */
#define CT_REC_HAS_STR    (1u << 1)
#define CT_REC_READ_FAIL  (1u << 2) /* a memory read the spec asked for failed */
#define CT_REC_HAS_PARENT (1u << 3) /* `parent` names a call of another plugin */
#define CT_REC_BEGIN      (1u << 4) /* a call that can hang, sent at its entry too (CT_SPEC_HANG):
                                     * in flight until its own record comes */
/* mem words the plugin's hook wrote (hook.bpf.h's CT_HOOK_WROTE), one bit each */
#define CT_REC_HOOK_MEM_SHIFT 8
#define CT_REC_HOOK_MEM_MASK ((1u << CT_REC_MEM) - 1)
#define CT_REC_HOOK_MEM(word) (1u << (CT_REC_HOOK_MEM_SHIFT + (word)))

struct ct_record {
	ct_u64 ts_ns;  /* entry time, CLOCK_MONOTONIC */
	ct_u64 dur_ns;
	ct_u32 pid;
	ct_u32 tid;
	ct_u32 call;   /* call id (the attach cookie) */
	ct_u32 flags;  /* CT_REC_* */
	ct_u32 depth;  /* nesting depth of traced calls on this thread, any plugin's (0 = outermost) */
	ct_u32 parent; /* CT_REC_HAS_PARENT: call id of the nearest call of another plugin
	                * this call was made in (a driver call inside a runtime call) */
	ct_u64 cgroup; /* cgroup v2 id of the calling task (0: not taken) */
	ct_u32 ustack; /* native call stack id + 1 (0: none; CT_SPEC_STACK) */
	ct_u32 pystack; /* Python call stack id + 1 (0: none; CT_SPEC_STACK) */
	char comm[CT_COMM_LEN];
	ct_u64 ret;
	ct_u64 args[CT_REC_ARGS];
	ct_u64 mem[CT_REC_MEM];
	char str[CT_REC_STR];
};

/*
 * Records are variable-length: the engine sends the header and only the
 * words the API's spec asks for (rec_words), or through the string's NUL
 * when it has one. Readers treat what was not sent as zero.
 */
#define CT_REC_HEAD_SIZE __builtin_offsetof(struct ct_record, args)

/*
 * --stacks (docs/stacks.md). A record's `ustack` names a stack of its
 * process. Method fp: the id of a stack the engine sent once, as a
 * struct ct_ustack_frames, before the first record that names it (again
 * when its slot in the engine's table of sent stacks was taken by another);
 * method dwarf: CT_USTACK_SLICE, the struct ct_ustack_slice sent just
 * before the record by the same thread. Both have their `call` where a
 * record's is, holding a call id no plugin's can be (as bpf/gpu_chunk.h's
 * CT_CALL_GPU).
 */
#define CT_USTACK_OFF 0   /* ct_stack_method: no stacks */
#define CT_USTACK_FP 1    /* the kernel walks frame pointers */
#define CT_USTACK_DWARF 2 /* a slice of the stack, unwound in user space */
#define CT_USTACK_DEPTH_MAX 126 /* one under the kernel's perf_event_max_stack (127): see ustack.bpf.h */
#define CT_CALL_USTACK_FRAMES 0xfffffffdu
#define CT_CALL_USTACK_SLICE 0xfffffffeu
#define CT_USTACK_SLICE 0xffffffffu
#define CT_USTACK_REGS 17      /* x86-64 in DWARF's order: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */
#define CT_USTACK_SLICE_MAX (64u << 10)
#define CT_USTACK_AT_ENTRY (1u << 0)  /* slice: taken at the function's first instruction */
#define CT_USTACK_TRUNCATED (1u << 1) /* frames: the stack was deeper than these */

struct ct_ustack_frames {
	ct_u64 hash;   /* of the process and frames: the same stack, the same hash */
	ct_u64 n;      /* frames in pcs */
	ct_u32 pid, tid;
	ct_u32 call;   /* CT_CALL_USTACK_FRAMES */
	ct_u32 flags;  /* CT_USTACK_TRUNCATED */
	ct_u32 id;     /* what records of this stack carry in `ustack` */
	ct_u32 pad;
	/* then n return addresses, innermost first */
};

struct ct_ustack_slice {
	ct_u64 sp;     /* the user stack pointer data[0] was copied from */
	ct_u64 len;    /* bytes of data */
	ct_u32 pid, tid;
	ct_u32 call;   /* CT_CALL_USTACK_SLICE */
	ct_u32 flags;  /* CT_USTACK_AT_ENTRY */
	ct_u64 regs[CT_USTACK_REGS];
	char data[];
};

#define CT_USTACK_FRAMES_HEAD sizeof(struct ct_ustack_frames)
#define CT_USTACK_SLICE_HEAD __builtin_offsetof(struct ct_ustack_slice, data)
_Static_assert(__builtin_offsetof(struct ct_ustack_slice, call) == __builtin_offsetof(struct ct_record, call),
	       "a slice's call word is where a record's is");
_Static_assert(__builtin_offsetof(struct ct_ustack_frames, call) == __builtin_offsetof(struct ct_record, call),
	       "a stack's call word is where a record's is");

/* When a read copies user memory. */
enum ct_read_phase { CT_READ_UNUSED = 0, CT_READ_ENTRY = 1, CT_READ_EXIT = 2 };

#define CT_SPEC_READS 4
struct ct_spec_read {
	ct_u8 slot;
	ct_u8 phase; /* enum ct_read_phase */
	ct_u8 words;
	ct_u8 dst;
};

/* ct_spec.flags */
#define CT_SPEC_ENTRY_ONLY   (1u << 0) /* one record at entry, no exit probe */
#define CT_SPEC_RET_IS_ERROR (1u << 1) /* the low 32 bits of the return value are an error code */
#define CT_SPEC_READS_ENTRY  (1u << 2) /* the API copies user memory at entry */
#define CT_SPEC_READS_EXIT   (1u << 3) /* ... at exit */
#define CT_SPEC_HOOK         (1u << 4) /* its plugin's BPF hook runs for it (hook.bpf.h) */
#define CT_SPEC_STACK        (1u << 5) /* its records carry call stacks (--stacks) */
#define CT_SPEC_LAUNCH       (1u << 6) /* a launch (CT_API_LAUNCH), timed: a launch of another
                                        * plugin made inside it may take its return */
#define CT_SPEC_INNER_LAUNCH (1u << 7) /* a launch that, made directly inside a CT_SPEC_LAUNCH call
                                        * of another plugin, skips its own return probe (session
                                        * programs only) and takes duration and result from that
                                        * call's return: a runtime launch and the driver launch it
                                        * makes cost one return trap, not two */
#define CT_SPEC_HANG         (1u << 8) /* tracer.hang_timeout: a collective or a synchronization,
                                        * sent at entry too (CT_REC_BEGIN), its stack taken then */

/* What the engine does for one call id; the core fills the array from the plugin's table. */
struct ct_spec {
	ct_u32 flags;       /* CT_SPEC_* */
	ct_u8 stack_words;  /* stack argument words to copy at entry (at most CT_STACK_WORDS) */
	ct_u8 str_slot;     /* CT_NO_SLOT: none */
	ct_u8 bytes_slot;   /* aggregate mode: argument slot with the bytes moved, CT_NO_SLOT none */
	ct_u8 height_slot;  /* ... times this slot's value (2D copies), CT_NO_SLOT none */
	ct_u8 rec_words;    /* 8-byte words of the record to send (header included) */
	ct_u8 pad;
	ct_u16 agg_call;    /* aggregate mode: the call's place among the session's calls (0..n-1) */
	struct ct_spec_read reads[CT_SPEC_READS];
};

/* Counters in the engine's per-CPU `stats` array. */
enum ct_stat {
	CT_STAT_LOST,        /* records that could not be reserved (or a thread's storage) */
	CT_STAT_UNPAIRED,    /* exits with no matching entry (e.g. began before attach) */
	CT_STAT_DEEP,        /* entries past the nesting limit */
	CT_STAT_AGG_FULL,    /* aggregate mode: calls of a (process, API) the table had no room for */
	CT_STAT_NOSTACK,     /* --stacks: calls whose stack could not be taken or sent (ring full) */
	CT_STAT_MAX,
};

/*
 * Aggregate mode: totals per process and call id (no ring traffic), in one
 * preallocated pool: nothing is allocated on a call's path, so that a
 * burst of first calls (a process starting up) never finds an allocator's
 * cache empty. A process gets a slot at its first traced call (CT_AGG_SLOTS
 * at most), and each (slot, call) at its first call an entry of the pool
 * (agg_index says which); the pairs of processes past the slots find their
 * entry in a preallocated hash keyed by struct ct_agg_key. An entry is a
 * struct ct_agg_cpu per CPU (plain adds) and one struct ct_agg_hist shared
 * by the CPUs (atomic adds): the histogram is most of a pair's bytes, and
 * a copy of it on each of 128 CPUs would be 600 KB a pair. Durations go
 * into the summary's log-linear buckets (core/sinks/hist.h: each power of
 * two split in 2^CT_AGG_SUB_BITS), up to 2^CT_AGG_TOP_BIT ns (18 minutes);
 * longer calls go to the last bucket. struct ct_agg is a pair's totals as
 * the reader sums them.
 */
#define CT_AGG_SUB_BITS 4
#define CT_AGG_SUB (1u << CT_AGG_SUB_BITS)
#define CT_AGG_TOP_BIT 40
#define CT_AGG_BUCKETS ((CT_AGG_TOP_BIT - CT_AGG_SUB_BITS + 1) * CT_AGG_SUB)
#define CT_AGG_MAX_ENTRIES 4096 /* (process, API) pairs at most; fewer on hosts of many CPUs (engine.c) */
#define CT_AGG_SLOTS 128        /* processes with a slot: their calls find their entries by index */
#define CT_AGG_NO_ROOM 0xffffffffu /* an agg_index entry: the pool was full at this pair's first call */

struct ct_agg_key {
	ct_u32 tgid;
	ct_u32 call;
};

struct ct_agg_cpu {
	ct_u64 calls;
	ct_u64 errors;
	ct_u64 total_ns;
	ct_u64 min_ns;
	ct_u64 max_ns;
	ct_u64 bytes;  /* of calls that did not fail */
};

struct ct_agg_hist {
	char comm[CT_COMM_LEN]; /* of the thread that made the pair's first call */
	ct_u64 hist[CT_AGG_BUCKETS];
};

struct ct_agg {
	struct ct_agg_cpu t;
	struct ct_agg_hist h;
};

/* Index of the highest set bit (v != 0), without a loop. */
static inline ct_u32 ct_top_bit(ct_u64 v)
{
	ct_u32 b = 0;

	if (v >> 32) { v >>= 32; b += 32; }
	if (v >> 16) { v >>= 16; b += 16; }
	if (v >> 8) { v >>= 8; b += 8; }
	if (v >> 4) { v >>= 4; b += 4; }
	if (v >> 2) { v >>= 2; b += 2; }
	if (v >> 1) b += 1;
	return b;
}

/* ct_hist_bucket() (core/sinks/hist.c) as the engine computes it, capped. */
static inline ct_u32 ct_agg_bucket(ct_u64 v)
{
	ct_u32 shift, b;

	if (v < CT_AGG_SUB)
		return (ct_u32)v;
	shift = ct_top_bit(v) - CT_AGG_SUB_BITS;
	b = (shift + 1) * CT_AGG_SUB + (ct_u32)((v >> shift) - CT_AGG_SUB);
	return b < CT_AGG_BUCKETS ? b : CT_AGG_BUCKETS - 1;
}

#endif
