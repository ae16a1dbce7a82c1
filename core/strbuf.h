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

/* Decimal, written in place from the last digit back: no temporary to copy
 * from. Inline: pids, sizes and durations are most of a line's numbers. */
extern const char ct_digits2[200];
extern const uint64_t ct_pow10[20];

/* Digits of v from its bit length: log10(2) ~ 1233/4096, then one compare. */
static inline int ct_ndigits(uint64_t v)
{
	int n = (64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return n + ((v | 1) >= ct_pow10[n]);
}

/* n digits of v (32-bit arithmetic), zero-padded, ending at end. */
static inline void ct_put_digits32(char *end, uint32_t v, int n)
{
	for (; n >= 2; n -= 2) {
		unsigned d = (v % 100) * 2;

		v /= 100;
		*--end = ct_digits2[d + 1];
		*--end = ct_digits2[d];
	}
	if (n)
		*--end = (char)('0' + v % 10);
}

/* Eight digits at a time in 32-bit arithmetic: a 19-digit timestamp costs
 * two 64-bit divisions, not nine. */
static inline void ct_sb_u64(struct ct_sb *b, uint64_t v)
{
	int n = ct_ndigits(v);
	char *end = b->p + b->len + n;

	b->len += n;
	while (n > 8) {
		ct_put_digits32(end, (uint32_t)(v % 100000000u), 8);
		v /= 100000000u;
		end -= 8;
		n -= 8;
	}
	ct_put_digits32(end, (uint32_t)v, n);
}

void ct_sb_i64(struct ct_sb *b, int64_t v);
void ct_sb_hex(struct ct_sb *b, uint64_t v); /* 0x... */

/* Timestamps in ns: consecutive events share their seconds, whose digits are
 * kept; only the nanoseconds are formatted for each one. Writes up to 33
 * bytes (the cached digits are copied whole) and counts only the digits. */
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
