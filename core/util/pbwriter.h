/* SPDX-License-Identifier: MIT */
/*
 * A protocol buffers writer, from the wire format as documented
 * (protobuf.dev/programming-guides/encoding): varints, 64-bit fixed,
 * length-delimited fields and nested messages. Enough to encode Prometheus
 * remote-write and OTLP requests without generated code. A nested message
 * is opened with its tag and closed once written: its length is put in
 * front then, so nothing is encoded twice.
 */
#ifndef CT_PBWRITER_H
#define CT_PBWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/strbuf.h"

enum { CT_PB_VARINT = 0, CT_PB_I64 = 1, CT_PB_LEN = 2, CT_PB_I32 = 5 };

#define CT_PB_DEPTH 16

struct ct_pb {
	struct ct_sb b;
	size_t open[CT_PB_DEPTH]; /* where each open message's body begins */
	int depth;
	bool oom;                 /* a write failed: the buffer is not a message */
};

void ct_pb_varint(struct ct_pb *w, uint64_t v);
void ct_pb_tag(struct ct_pb *w, unsigned field, unsigned wire);
void ct_pb_u64(struct ct_pb *w, unsigned field, uint64_t v);       /* uint64, int64, bool, enum */
void ct_pb_fixed64(struct ct_pb *w, unsigned field, uint64_t v);   /* fixed64, sfixed64 */
void ct_pb_double(struct ct_pb *w, unsigned field, double v);
void ct_pb_bytes(struct ct_pb *w, unsigned field, const void *p, size_t n);
void ct_pb_str(struct ct_pb *w, unsigned field, const char *s);
/* The raw little-endian words of a packed repeated fixed64/double field's body. */
void ct_pb_raw64(struct ct_pb *w, uint64_t v);
/* A nested message (or a packed field) of `field`: begin, write its fields, end. */
void ct_pb_begin(struct ct_pb *w, unsigned field);
void ct_pb_end(struct ct_pb *w);
void ct_pb_free(struct ct_pb *w);

#endif
