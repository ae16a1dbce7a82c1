/* SPDX-License-Identifier: MIT */
/*
 * The in-process engine's contract between the tracer and the preload
 * library (--engine inproc): one memfd the tracer creates, sizes, seals
 * against shrinking and growing, and leaves open across the command's
 * exec. Its first page is the header; then the spec table (one row per
 * traced symbol: its name, call id and the struct ct_spec that the eBPF
 * engine would get for it, so that both engines copy the same things);
 * then the ring of records, a power of two mapped twice in a row so that a
 * record that wraps reads as one piece.
 *
 * The ring has many producers (every thread of every process of the
 * command) and one reader. A producer reserves with a compare-and-swap on
 * prod_pos, only if the reader's cons_pos leaves room (else it counts a
 * lost record and the call goes on), writes the record, and commits by
 * storing its 8-byte header with release order. The header names the
 * position it was written for, so a stale one from the ring's last lap is
 * never taken for a new one, and the reader clears nothing. A record is
 * packed: only the words the decoder reads are sent, and the tracer
 * unpacks it into the struct ct_record the eBPF engine sends. Engine-
 * internal, fixed-size types only.
 */
#ifndef CT_INPROC_SHM_H
#define CT_INPROC_SHM_H

#include <stdint.h>
#include "record.h"

#define CT_SHM_MAGIC 0x434f5250534e4943ull /* "CINSPROC" */
#define CT_SHM_VERSION 3 /* 3: records packed (CT_SHM_FIXED) */
#define CT_SHM_HEAD_SIZE 4096
#define CT_SHM_NAME 64 /* bytes of a symbol name, NUL included */

/* The environment the tracer gives the command. */
#define CT_SHM_ENV_FD "CUDATRACER_INPROC_FD"        /* the memfd's number */
#define CT_SHM_ENV_TRACER "CUDATRACER_INPROC_TRACER" /* the tracer's pid: /proc/PID/fd/N if the fd was closed */
#define CT_SHM_MEMFD_NAME "cudatracer-inproc"
/* In the header page: LD_PRELOAD's value for the command, NUL-ended. */
#define CT_SHM_PRELOAD_OFF 2048
#define CT_SHM_PRELOAD_MAX 2048

/*
 * The record a process sends when it has mapped the ring (its exec is
 * done, its libraries are loaded): the tracer reads its maps and
 * environment then, as the eBPF engine's watcher does at exec, so that
 * names are known for records decoded after a short process has exited.
 * The process waits (a second at most, not at all once the tracer is
 * gone) until the tracer has read past it. No plugin's call id is this.
 */
#define CT_SHM_CALL_START 0xfffffffeu
#define CT_SHM_START_WAIT_NS 1000000000ull

/*
 * The clock of the records' times, fixed by the tracer before the command
 * starts: the TSC where it is invariant and the kernel's clocksource (one
 * rdtsc, where clock_gettime costs about twice that), else CLOCK_MONOTONIC.
 * The tracer turns cycles into CLOCK_MONOTONIC ns as it reads each record.
 */
enum ct_shm_clock {
	CT_SHM_CLOCK_MONO = 0, /* CLOCK_MONOTONIC ns (clock_gettime) */
	CT_SHM_CLOCK_TSC = 1,  /* TSC cycles (rdtsc) */
};

/* Counters in the header, summed over every process of the command. */
enum ct_shm_stat {
	CT_SHM_LOST,       /* records that did not fit in the ring */
	CT_SHM_DEEP,       /* calls past the nesting limit, not recorded */
	CT_SHM_PROCS,      /* processes that mapped the ring */
	CT_SHM_BOUND,      /* traced symbols given a trampoline (exports and entry points) */
	CT_SHM_UNRESOLVED, /* calls of an interposed symbol no loaded library defines */
	CT_SHM_POOL_FULL,  /* entry points returned untraced: no free trampoline */
	CT_SHM_STAT_MAX = 8,
};

struct ct_shm_head {
	uint64_t magic;
	uint32_t version;
	uint32_t head_size;      /* CT_SHM_HEAD_SIZE */
	uint64_t total_size;     /* of the memfd */
	uint64_t specs_off;      /* struct ct_shm_spec[n_specs] */
	uint32_t n_specs;
	uint32_t track_parents;  /* several plugins: records name the call they were made in */
	uint64_t data_off;       /* page-aligned */
	uint64_t data_size;      /* power of two */
	uint32_t on;             /* 0: the tracer is done, or paused; calls go on untraced */
	uint32_t clock;          /* enum ct_shm_clock: what records' ts_ns and dur_ns count */
	/* CT_SHM_CLOCK_TSC: cycles to CLOCK_MONOTONIC ns as the tracer last
	 * measured them, as perf's mmap page gives them:
	 * ns = time_zero + ((int64)(tsc - time_cycles) * time_mult >> time_shift),
	 * read while time_seq is even and unchanged. For any reader of the
	 * ring: the tracer converts with its own copy. */
	uint32_t time_seq;
	uint32_t time_shift;
	uint64_t time_mult;
	uint64_t time_cycles;
	uint64_t time_zero;
	/* 1 while the tracer has paused recording (on is 0 then): it is still
	 * there, reading, and a process that starts waits for it as usual. */
	uint32_t paused;
	uint64_t prod_pos __attribute__((aligned(64)));
	uint64_t cons_pos __attribute__((aligned(64)));
	uint64_t stat[CT_SHM_STAT_MAX] __attribute__((aligned(64)));
};

struct ct_shm_spec {
	char name[CT_SHM_NAME];
	uint32_t call;
	uint32_t arg_words; /* argument slots its records send (the decoder's), at most CT_REC_ARGS */
	struct ct_spec spec;
};

/* A record's header in the ring: its length (without the header), the
 * argument and memory words it carries, and the position it was written
 * at, in 8-byte units, as a commit mark. BUSY: the producer has reserved it
 * and is writing (a producer killed there leaves BUSY, which the reader
 * skips after a while). A length is never 0: a header of zeroes is a
 * position reserved and not yet written, even where its stamp is 0 too
 * (the ring's first). */
#define CT_SHM_BUSY (1u << 31)
#define CT_SHM_LEN_MASK 0xffffu
#define CT_SHM_ARGS_SHIFT 16 /* 4 bits: argument words (0..CT_REC_ARGS) */
#define CT_SHM_MEM_SHIFT 20  /* 4 bits: memory words (0..CT_REC_MEM) */
#define CT_SHM_REC_HDR 8
#define CT_SHM_HDR(pos, len) (((uint64_t)(uint32_t)((pos) >> 3) << 32) | (uint32_t)(len))
#define CT_SHM_ALIGN(n) (((n) + 7) & ~(uint64_t)7)

/*
 * The record after its header, packed: the CT_SHM_FIXED words below (the
 * struct ct_record header's fields that are ever set, in pairs where they
 * are 32 bits), then the argument words, then the memory words, then the
 * string with its NUL (CT_REC_HAS_STR), to the header's length. What a
 * struct ct_record has beyond these (the unused argument slots before the
 * memory words, cgroup and stack ids: 96 bytes of cudaGetDevice's 184) is
 * not sent; the tracer writes zeroes there.
 */
enum ct_shm_word {
	CT_SHM_W_TS,    /* ts_ns */
	CT_SHM_W_DUR,   /* dur_ns */
	CT_SHM_W_WHO,   /* pid | tid << 32 */
	CT_SHM_W_CALL,  /* call | flags << 32 */
	CT_SHM_W_DEPTH, /* depth | parent << 32 */
	CT_SHM_W_RET,   /* ret */
	CT_SHM_W_COMM,  /* comm, CT_COMM_LEN bytes */
	CT_SHM_FIXED = CT_SHM_W_COMM + CT_COMM_LEN / 8,
};

#endif
