/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A batch of GPU activity (inject/wire.h) as bpf/gpu.bpf.c puts it in the
 * session's ring, beside the capture engine's call records: its `call`
 * sits where a record's does and holds CT_CALL_GPU, which no plugin's
 * call id can be, so the reader tells the two apart by that word.
 */
#ifndef CT_GPU_CHUNK_H
#define CT_GPU_CHUNK_H

#include "record.h"

#define CT_CALL_GPU 0xffffffffu

struct ct_gpu_chunk {
	ct_u64 ts_ns;  /* when the batch was handed over, CLOCK_MONOTONIC */
	ct_u64 len;    /* bytes of data that hold the batch */
	ct_u32 pid, tid;
	ct_u32 call;   /* CT_CALL_GPU */
	ct_u32 flags;
	char data[];
};

/* Counters in gpu.bpf.c's `gpu_stats`. */
enum ct_gpu_stat {
	CT_GPU_STAT_LOST,     /* batches the ring had no room for */
	CT_GPU_STAT_UNREAD,   /* batches whose memory could not be read */
	CT_GPU_STAT_TOO_LONG, /* batches longer than a chunk holds */
	CT_GPU_STAT_MAX,
};

#define CT_GPU_CHUNK_HEAD 32
_Static_assert(__builtin_offsetof(struct ct_gpu_chunk, call) == __builtin_offsetof(struct ct_record, call),
	       "a chunk's call word is where a record's is");
_Static_assert(__builtin_offsetof(struct ct_gpu_chunk, data) == CT_GPU_CHUNK_HEAD, "chunk head");

#endif
