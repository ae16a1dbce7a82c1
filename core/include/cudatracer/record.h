/* SPDX-License-Identifier: MIT */
/*
 * The record the BPF capture engine writes to the ring buffer, one per call,
 * and the per-API spec that user space hands the engine. Shared by BPF and
 * user space, so it uses fixed-size types only.
 */
#ifndef CUDATRACER_RECORD_H
#define CUDATRACER_RECORD_H

#ifdef __bpf__
typedef __u64 ct_u64;
typedef __u32 ct_u32;
typedef __u8 ct_u8;
#else
#include <stdint.h>
typedef uint64_t ct_u64;
typedef uint32_t ct_u32;
typedef uint8_t ct_u8;
#endif

#define CT_REC_ARGS 12   /* 6 argument registers + 6 stack words */
#define CT_REC_MEM 8     /* words copied from user memory */
#define CT_REC_STR 256   /* bytes of one C string (mangled CUTLASS names run past 128) */
#define CT_COMM_LEN 16
#define CT_STACK_WORDS 6

/* rec->flags */
#define CT_REC_ENTRY_ONLY (1u << 0) /* emitted at entry: no ret, no duration */
#define CT_REC_HAS_STR    (1u << 1)
#define CT_REC_READ_FAIL  (1u << 2) /* a memory read the spec asked for failed */

struct ct_record {
	ct_u64 ts_ns;  /* entry time, CLOCK_MONOTONIC */
	ct_u64 dur_ns;
	ct_u32 pid;
	ct_u32 tid;
	ct_u32 api;    /* index in the plugin's API table (the attach cookie) */
	ct_u32 flags;
	ct_u32 depth;  /* nesting depth of traced calls on this thread (0 = outermost) */
	ct_u32 parent; /* with several plugins: the traced call of another plugin this call
	                * was made in, as (plugin id << 24 | API index); 0 if none */
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

/* What the engine must do for one API; user space fills the map from ct_api. */
#define CT_SPEC_READS 4
struct ct_spec_read {
	ct_u8 slot;
	ct_u8 phase; /* 1 entry, 2 exit, 0 unused */
	ct_u8 words;
	ct_u8 dst;
};

/* ct_spec.flags */
#define CT_SPEC_ENTRY_ONLY 1u   /* = CT_API_ENTRY_ONLY: emit at entry */
#define CT_SPEC_RET_IS_ERROR 2u /* the low 32 bits of the return value are an error code */
#define CT_SPEC_READS_ENTRY 4u  /* the API copies user memory at entry */
#define CT_SPEC_READS_EXIT 8u   /* ... at exit */

struct ct_spec {
	ct_u32 flags;       /* CT_SPEC_* */
	ct_u8 stack_words;  /* stack argument words to copy at entry (at most CT_STACK_WORDS) */
	ct_u8 str_slot;     /* 0xff: none */
	ct_u8 enabled;
	ct_u8 bytes_slot;   /* aggregate mode: argument slot with a byte count, 0xff none */
	ct_u8 height_slot;  /* ... times this slot's value (2D copies), 0xff none */
	ct_u8 rec_words;    /* 8-byte words of the record to send (header included) */
	ct_u8 pad[2];
	struct ct_spec_read reads[CT_SPEC_READS];
};

/*
 * Aggregate mode: per-API totals kept in a per-CPU map, no ring buffer
 * traffic at all. Durations go into log2 buckets: bucket b holds calls
 * of [2^(b-1), 2^b) ns (bucket 0: 0 ns).
 */
#define CT_AGG_BUCKETS 40
struct ct_agg {
	ct_u64 calls;
	ct_u64 errors;
	ct_u64 total_ns;
	ct_u64 max_ns;
	ct_u64 bytes;
	ct_u64 hist[CT_AGG_BUCKETS];
};

/* With several plugins: the calls in flight on a thread, of every plugin, so
 * that a driver call made inside a runtime call can say which one. */
#define CT_CALLSTACK 8
struct ct_callstack {
	ct_u32 depth;
	ct_u32 id[CT_CALLSTACK]; /* plugin id << 24 | API index */
};

/* Counters in the engine's per-CPU `stats` array. Slots 0 and 4 are not
 * counted (the reader counts the records it reads, and nothing counted
 * filtered calls): kept so that the others keep their places. */
enum ct_stat {
	CT_STAT_UNUSED0 = 0,
	CT_STAT_LOST,        /* records that could not be reserved */
	CT_STAT_UNPAIRED,    /* exits with no matching entry (e.g. began before attach) */
	CT_STAT_DEEP,        /* entries past the nesting limit */
	CT_STAT_UNUSED4,
	CT_STAT_MAX,
};

#endif
