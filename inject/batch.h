/* SPDX-License-Identifier: MIT */
/*
 * The injection library's sending half: items (wire.h) gathered into a
 * batch, handed to ct_gpu_batch() when it is full or flushed. Names are
 * interned by address: each crosses once per process. Thread-safe: CUPTI
 * completes buffers on its own thread and on the thread that flushes.
 */
#ifndef CT_INJECT_BATCH_H
#define CT_INJECT_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include "wire.h"

/* The function the tracer probes: it does nothing; the probe copies the batch. */
void ct_gpu_batch(const void *buf, size_t len);

/* Append one item (its head filled here from type, aux and len); false if it cannot fit any batch. */
int ct_batch_put(uint16_t type, uint32_t aux, void *item, size_t len);
/* Append one item and send the batch now, before the caller returns. */
int ct_batch_send(uint16_t type, uint32_t aux, void *item, size_t len);
/* The id of a name (sending it first if new); 0 for NULL. */
uint32_t ct_batch_name(const char *name);
/* A message for the user, sent at once. */
void ct_batch_msg(enum ct_wire_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Send what is gathered. */
void ct_batch_flush(void);
/* Names cut to CT_GPU_NAME_MAX so far. */
uint64_t ct_batch_names_cut(void);

#endif
