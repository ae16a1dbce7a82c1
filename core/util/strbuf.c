// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include "util/strbuf.h"

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

const uint64_t ct_pow10[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

char *ct_w_ts(char *w, uint64_t ns, struct ct_sb_ts_cache *c)
{
	uint64_t sec = ns / 1000000000u, frac;

	if (!sec)
		return ct_w_u64(w, ns);
	if (sec != c->sec || !c->len) {
		c->len = (uint8_t)(ct_w_u64(c->digits, sec) - c->digits);
		c->sec = sec;
	}
	/* The whole array, a constant size the compiler copies in a few moves;
	 * only c->len bytes of it count. */
	memcpy(w, c->digits, sizeof(c->digits));
	w += c->len;
	frac = (uint32_t)(ns % 1000000000u);
	*w = (char)('0' + frac / 100000000u);
	frac = ct_digits8(frac % 100000000u);
	memcpy(w + 1, &frac, 8);
	return w + 9;
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

char *ct_w_json_str(char *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	*w++ = '"';
	for (;;) {
		const unsigned char *run = p;

		while (*p && !esc[*p])
			p++;
		w = ct_w_put(w, (const char *)run, p - run);
		if (!*p)
			break;
		*w++ = '\\';
		if (esc[*p] == 'u') {
			w = ct_w_lit(w, "u00");
			*w++ = hex[*p >> 4];
			*w++ = hex[*p & 15];
		} else {
			*w++ = esc[*p];
		}
		p++;
	}
	*w++ = '"';
	return w;
}
