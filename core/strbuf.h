/* SPDX-License-Identifier: MIT */
/*
 * An append-only byte buffer with the few formatters the hot path needs
 * (decimal, hex, JSON strings), without printf or stdio locking per piece.
 * Callers reserve room once per event (ct_sb_room) and then append freely
 * up to that much.
 */
#ifndef CT_STRBUF_H
#define CT_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct ct_sb {
	char *p;
	size_t len, cap;
};

/* Make room for n more bytes; false on allocation failure. */
bool ct_sb_room(struct ct_sb *b, size_t n);
void ct_sb_free(struct ct_sb *b);

static inline void ct_sb_put(struct ct_sb *b, const char *s, size_t n)
{
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

#define ct_sb_lit(b, s) ct_sb_put(b, s, sizeof(s) - 1)

static inline void ct_sb_ch(struct ct_sb *b, char c)
{
	b->p[b->len++] = c;
}

void ct_sb_u64(struct ct_sb *b, uint64_t v);
void ct_sb_i64(struct ct_sb *b, int64_t v);
void ct_sb_hex(struct ct_sb *b, uint64_t v); /* 0x... */

/* Timestamps in ns: consecutive events share their seconds, whose digits are
 * kept; only the nanoseconds are formatted for each one. */
struct ct_sb_ts_cache {
	uint64_t sec;
	char digits[24];
	uint8_t len;
};
void ct_sb_ts(struct ct_sb *b, uint64_t ns, struct ct_sb_ts_cache *c);
/* A JSON string with quotes; bytes outside printable ASCII as \u00XX. At most
 * 6 * strlen(s) + 2 bytes: reserve that (strings in records are bounded). */
void ct_sb_json_str(struct ct_sb *b, const char *s);

#endif
