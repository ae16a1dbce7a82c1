// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include "strbuf.h"

bool ct_sb_room(struct ct_sb *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->cap - b->len >= n)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap - b->len < n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return false;
	b->p = p;
	b->cap = cap;
	return true;
}

void ct_sb_free(struct ct_sb *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

const char ct_digits2[200] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

const uint64_t ct_pow10[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

void ct_sb_ts(struct ct_sb *b, uint64_t ns, struct ct_sb_ts_cache *c)
{
	uint64_t sec = ns / 1000000000u;

	if (!sec) {
		ct_sb_u64(b, ns);
		return;
	}
	if (sec != c->sec || !c->len) {
		struct ct_sb t = { c->digits, 0, sizeof(c->digits) };

		ct_sb_u64(&t, sec);
		c->len = (uint8_t)t.len;
		c->sec = sec;
	}
	/* The whole array, a constant size the compiler copies in a few moves;
	 * only c->len bytes of it count. */
	memcpy(b->p + b->len, c->digits, sizeof(c->digits));
	b->len += c->len + 9;
	ct_put_digits32(b->p + b->len, (uint32_t)(ns % 1000000000u), 9);
}

void ct_sb_i64(struct ct_sb *b, int64_t v)
{
	if (v < 0) {
		ct_sb_ch(b, '-');
		ct_sb_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		ct_sb_u64(b, (uint64_t)v);
	}
}

void ct_sb_hex(struct ct_sb *b, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	int n = v ? (67 - __builtin_clzll(v)) / 4 : 1;
	char *end;

	ct_sb_lit(b, "0x");
	end = b->p + b->len + n;
	b->len += n;
	do {
		*--end = hex[v & 15];
		v >>= 4;
	} while (v);
}

/* 0: copy as is; 'u': \u00XX; other: \ followed by that letter. */
static const char esc[256] = {
	['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r', ['"'] = '"', ['\\'] = '\\',
	[0x01] = 'u', [0x02] = 'u', [0x03] = 'u', [0x04] = 'u', [0x05] = 'u', [0x06] = 'u', [0x07] = 'u',
	[0x0b] = 'u', [0x0e] = 'u', [0x0f] = 'u', [0x10] = 'u', [0x11] = 'u', [0x12] = 'u', [0x13] = 'u',
	[0x14] = 'u', [0x15] = 'u', [0x16] = 'u', [0x17] = 'u', [0x18] = 'u', [0x19] = 'u', [0x1a] = 'u',
	[0x1b] = 'u', [0x1c] = 'u', [0x1d] = 'u', [0x1e] = 'u', [0x1f] = 'u', [0x7f] = 'u',
	[0x80 ... 0xff] = 'u',
};

void ct_sb_json_str(struct ct_sb *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	ct_sb_ch(b, '"');
	for (;;) {
		const unsigned char *run = p;

		while (*p && !esc[*p])
			p++;
		ct_sb_put(b, (const char *)run, p - run);
		if (!*p)
			break;
		ct_sb_ch(b, '\\');
		if (esc[*p] == 'u') {
			ct_sb_lit(b, "u00");
			ct_sb_ch(b, hex[*p >> 4]);
			ct_sb_ch(b, hex[*p & 15]);
		} else {
			ct_sb_ch(b, esc[*p]);
		}
		p++;
	}
	ct_sb_ch(b, '"');
}
