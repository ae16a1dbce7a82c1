/* SPDX-License-Identifier: MIT */
/*
 * A small JSON reader for recorded traces (`cudatracer report` and
 * `merge`): enough to walk one jsonl line (an object of strings, numbers,
 * booleans, null and nested objects or arrays), checking that it is whole.
 * No allocation; values are copied into the caller's buffers or skipped.
 */
#ifndef CT_REPORT_JSON_H
#define CT_REPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_jp {
	const char *p, *end;
};

/* Called for each key of an object, with the reader at its value: the
 * callback reads the value (ct_jp_*) or returns 1 to have it skipped.
 * Returns <0 to stop with that error. */
typedef int (*ct_jp_key_fn)(void *ctx, const char *key, struct ct_jp *j);

/* Walk the object at the reader; 0, or -EINVAL when it is not one whole. */
int ct_jp_object(struct ct_jp *j, ct_jp_key_fn fn, void *ctx);
/* Skip any one value, checking it (nesting up to 32 deep). */
int ct_jp_skip(struct ct_jp *j);
/*
 * A string into out (cut to cap-1 bytes, NUL-ended). \u0000 to \u00ff give
 * that byte back: the jsonl sink writes a byte that is not UTF-8 that way
 * (docs/events.md); escapes beyond become '?' (the sink writes none).
 * *len, if given, is the length it had whole.
 */
int ct_jp_string(struct ct_jp *j, char *out, size_t cap);
int ct_jp_string_len(struct ct_jp *j, char *out, size_t cap, size_t *len);
/* The next value is null (consumed if so). */
bool ct_jp_null(struct ct_jp *j);
/* The next value's first character, after white space (0 at the end). */
char ct_jp_peek(struct ct_jp *j);
/* Walk the array at the reader: fn(ctx, index, j) reads each element
 * (or returns 1 to skip it). */
typedef int (*ct_jp_elem_fn)(void *ctx, size_t i, struct ct_jp *j);
int ct_jp_array(struct ct_jp *j, ct_jp_elem_fn fn, void *ctx);
/* A number as a double (any JSON number). */
int ct_jp_double(struct ct_jp *j, double *v);
/* An integer (a number without fraction or exponent), signed or unsigned. */
int ct_jp_i64(struct ct_jp *j, int64_t *v);
int ct_jp_u64(struct ct_jp *j, uint64_t *v);
/* The same cut to 32 bits (pids, tids, ranks). */
int ct_jp_i32(struct ct_jp *j, int32_t *v);
int ct_jp_u32(struct ct_jp *j, uint32_t *v);
int ct_jp_bool(struct ct_jp *j, bool *v);
/* Only whitespace is left. */
bool ct_jp_at_end(struct ct_jp *j);

#endif
