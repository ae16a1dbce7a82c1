/* SPDX-License-Identifier: MIT */
/*
 * An append-only byte buffer with the few formatters the hot path needs
 * (decimal, hex, JSON and escaped text strings), without printf or stdio
 * locking per piece.
 * Callers reserve room once per event (ct_sb_room) and then append freely
 * up to that much.
 *
 * Each formatter comes twice: on a bare cursor (ct_w_*: writes at w and
 * returns the new end) and on a struct ct_sb (ct_sb_*). The hot paths keep
 * the cursor in a register: through a struct, any byte stored may alias its
 * len (a char store aliases anything), so the compiler reloads and stores
 * len around each one.
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

static inline char *ct_w_put(char *w, const char *s, size_t n)
{
	memcpy(w, s, n);
	return w + n;
}

#define ct_w_lit(w, s) ct_w_put(w, s, sizeof(s) - 1)

/* Decimal. Inline: pids, sizes and durations are most of a line's numbers. */
extern const uint64_t ct_pow10[20];

/* Digits of v from its bit length: log10(2) ~ 1233/4096, then one compare. */
static inline int ct_ndigits(uint64_t v)
{
	int n = (64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return n + ((v | 1) >= ct_pow10[n]);
}

/*
 * The 8 digits of v < 10^8, zero-padded, first digit in the low byte (as
 * they lie in memory), from a few multiplies on all digits at once
 * (Khuong's method) rather than four rounds of divide and table look-up.
 */
static inline uint64_t ct_digits8(uint32_t v)
{
	/* Lanes of 32 bits (4 digits), then 16 (2), then 8 (1): x / 100 and
	 * x / 10 as multiply and shift, exact for the lanes' ranges. */
	uint64_t x = (v / 10000) | (uint64_t)(v % 10000) << 32;
	uint64_t hi = (x * 10486) >> 20 & 0x0000007f0000007full;

	x = (x - 100 * hi) << 16 | hi;
	hi = (x * 103) >> 10 & 0x000f000f000f000full;
	x = (x - 10 * hi) << 8 | hi;
	return x | 0x3030303030303030ull;
}

/* The n <= 8 digits of v < 10^n, stored as 8 bytes: the bytes after the
 * last digit are left over. */
static inline void ct_put_digits8(char *w, uint32_t v, int n)
{
	uint64_t d = ct_digits8(v) >> 8 * (8 - n);

	memcpy(w, &d, 8);
}

/* Up to 8 digits at a time, leading ones first (each store may run past
 * its digits, the next one covers that): writes up to 20 bytes (reserve
 * them), counts the digits. */
static inline char *ct_w_u64(char *w, uint64_t v)
{
	int n;

	if (v < 10) { /* the many zeros, ones and counts */
		*w = (char)('0' + v);
		return w + 1;
	}
	n = ct_ndigits(v);
	if (n <= 8) {
		ct_put_digits8(w, (uint32_t)v, n);
	} else if (n <= 16) {
		ct_put_digits8(w, (uint32_t)(v / 100000000u), n - 8);
		ct_put_digits8(w + n - 8, (uint32_t)(v % 100000000u), 8);
	} else {
		uint64_t hi = v / 100000000u;

		ct_put_digits8(w, (uint32_t)(hi / 100000000u), n - 16);
		ct_put_digits8(w + n - 16, (uint32_t)(hi % 100000000u), 8);
		ct_put_digits8(w + n - 8, (uint32_t)(v % 100000000u), 8);
	}
	return w + n;
}

static inline char *ct_w_i64(char *w, int64_t v)
{
	if (v >= 0)
		return ct_w_u64(w, (uint64_t)v);
	*w++ = '-';
	return ct_w_u64(w, (uint64_t)0 - (uint64_t)v);
}

/* The 8 hex digits of v, first digit in the low byte: each nibble spread to
 * a byte, then made a character, all at once. */
static inline uint64_t ct_hex8(uint32_t v)
{
	uint64_t x = v;

	x = (x | x << 16) & 0x0000ffff0000ffffull;
	x = (x | x << 8) & 0x00ff00ff00ff00ffull;
	x = (x | x << 4) & 0x0f0f0f0f0f0f0f0full;
	x = __builtin_bswap64(x);
	/* A nibble of 10 or more carries into bit 4 when 6 is added. */
	return x + 0x3030303030303030ull +
	       ((x + 0x0606060606060606ull) >> 4 & 0x0101010101010101ull) * ('a' - '0' - 10);
}

/* 0x and the hex digits: writes up to 18 bytes (reserve them), counts the
 * digits. Digits go 8 at a time, shifted so that the first that counts
 * comes first; the bytes after the last are left over. */
static inline char *ct_w_hex(char *w, uint64_t v)
{
	int n = v ? (67 - __builtin_clzll(v)) / 4 : 1;
	uint64_t d;

	memcpy(w, "0x", 2);
	w += 2;
	if (n > 8) {
		d = ct_hex8((uint32_t)(v >> 32)) >> 8 * (16 - n);
		memcpy(w, &d, 8);
		d = ct_hex8((uint32_t)v);
		memcpy(w + n - 8, &d, 8);
	} else {
		d = ct_hex8((uint32_t)v) >> 8 * (8 - n);
		memcpy(w, &d, 8);
	}
	return w + n;
}

/* Timestamps in ns: consecutive events share their seconds, whose digits are
 * kept; only the nanoseconds are formatted for each one. Writes up to 33
 * bytes (the cached digits are copied whole) and counts only the digits. */
struct ct_sb_ts_cache {
	uint64_t sec;
	char digits[24];
	uint8_t len;
};
char *ct_w_ts(char *w, uint64_t ns, struct ct_sb_ts_cache *c);
/*
 * Strings a traced program chose (its comm, a kernel's symbol name, a string
 * argument) may hold any bytes; none reaches a terminal raw.
 *
 * ct_utf8_seq: the length (2 to 4) of the valid UTF-8 sequence that begins
 * at p, for p[0] >= 0x80; 0 when the bytes there are not one (a stray
 * continuation byte, an overlong form, a surrogate, past U+10FFFF, or cut
 * short: the string's NUL is never a continuation byte, so no read passes it).
 */
int ct_utf8_seq(const unsigned char *p);

/* True for a 2-byte sequence of a C1 control (U+0080 to U+009F): terminals
 * act on those as on ESC [. */
static inline bool ct_utf8_is_c1(const unsigned char *p)
{
	return p[0] == 0xc2 && p[1] < 0xa0;
}

/* How many bytes at p text output keeps as they are: 1 for printable ASCII,
 * the sequence's length for valid UTF-8 other than C1; 0 for a byte to
 * escape (C0 controls, DEL, C1 controls, bytes that are not UTF-8). */
static inline int ct_text_keep(const unsigned char *p)
{
	int n;

	if (*p >= 0x20 && *p < 0x7f)
		return 1;
	if (*p < 0x80)
		return 0;
	n = ct_utf8_seq(p);
	return n && !ct_utf8_is_c1(p) ? n : 0;
}

/* A JSON string with quotes. Valid UTF-8 is kept as it is; C0 controls and
 * DEL are escaped (\n, \u001b, ...); C1 controls as \u0080 to \u009f; a byte
 * that is not UTF-8 as \u00XX of its value (0xff -> \u00ff: it reads back as
 * the Latin-1 character). At most 6 * strlen(s) + 2 bytes: reserve that
 * (strings in records are bounded). */
char *ct_w_json_str(char *w, const char *s);

/* s for a terminal or a text file: what ct_text_keep() keeps, and every other
 * byte as \xHH (ESC -> \x1b). At most 4 * strlen(s) bytes, no NUL. */
char *ct_w_text_str(char *w, const char *s);
/* One byte as \xHH. */
char *ct_w_xhh(char *w, unsigned char c);
/* The same into buf with snprintf's contract: returns the length of the
 * whole escaped text, writes at most n - 1 bytes of it (never part of an
 * escape) and a NUL when n > 0. */
size_t ct_text_esc(char *buf, size_t n, const char *s);

/* The same on a struct ct_sb. */
#define CT_SB_APPLY(b, call) ((b)->len = (size_t)((call) - (b)->p))
static inline void ct_sb_put(struct ct_sb *b, const char *s, size_t n)
{
	CT_SB_APPLY(b, ct_w_put(b->p + b->len, s, n));
}
#define ct_sb_lit(b, s) ct_sb_put(b, s, sizeof(s) - 1)
static inline void ct_sb_ch(struct ct_sb *b, char c)
{
	b->p[b->len++] = c;
}
static inline void ct_sb_u64(struct ct_sb *b, uint64_t v)
{
	CT_SB_APPLY(b, ct_w_u64(b->p + b->len, v));
}
static inline void ct_sb_i64(struct ct_sb *b, int64_t v)
{
	CT_SB_APPLY(b, ct_w_i64(b->p + b->len, v));
}
static inline void ct_sb_hex(struct ct_sb *b, uint64_t v)
{
	CT_SB_APPLY(b, ct_w_hex(b->p + b->len, v));
}
static inline void ct_sb_json_str(struct ct_sb *b, const char *s)
{
	CT_SB_APPLY(b, ct_w_json_str(b->p + b->len, s));
}
static inline void ct_sb_text_str(struct ct_sb *b, const char *s)
{
	CT_SB_APPLY(b, ct_w_text_str(b->p + b->len, s));
}

#endif
