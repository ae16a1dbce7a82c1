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

int ct_utf8_seq(const unsigned char *p)
{
	unsigned c = p[0], lo = 0x80, hi = 0xbf;

	if (c >= 0xc2 && c <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		/* E0 A0.. is the first that is not overlong; ED A0.. are surrogates */
		lo = c == 0xe0 ? 0xa0 : lo;
		hi = c == 0xed ? 0x9f : hi;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		/* F0 90.. is the first that is not overlong; F4 8F BF BF is U+10FFFF */
		lo = c == 0xf0 ? 0x90 : lo;
		hi = c == 0xf4 ? 0x8f : hi;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

static const char hex[] = "0123456789abcdef";

/* 0: copy as is; 'u': \u00XX; '8': UTF-8 or not (see ct_w_json_str); other:
 * \ followed by that letter. */
static const char esc[256] = {
	['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r', ['"'] = '"', ['\\'] = '\\',
	[0x01] = 'u', [0x02] = 'u', [0x03] = 'u', [0x04] = 'u', [0x05] = 'u', [0x06] = 'u', [0x07] = 'u',
	[0x0b] = 'u', [0x0e] = 'u', [0x0f] = 'u', [0x10] = 'u', [0x11] = 'u', [0x12] = 'u', [0x13] = 'u',
	[0x14] = 'u', [0x15] = 'u', [0x16] = 'u', [0x17] = 'u', [0x18] = 'u', [0x19] = 'u', [0x1a] = 'u',
	[0x1b] = 'u', [0x1c] = 'u', [0x1d] = 'u', [0x1e] = 'u', [0x1f] = 'u', [0x7f] = 'u',
	[0x80 ... 0xff] = '8',
};

char *ct_w_json_str(char *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	*w++ = '"';
	for (;;) {
		const unsigned char *run = p;

		/* The common case, ASCII with nothing to escape, stays one loop. */
		while (*p && !esc[*p])
			p++;
		w = ct_w_put(w, (const char *)run, p - run);
		if (!*p)
			break;
		if (esc[*p] == '8') {
			int n = ct_utf8_seq(p);

			if (n && !ct_utf8_is_c1(p)) {
				w = ct_w_put(w, (const char *)p, n);
				p += n;
				continue;
			}
			if (n) /* a C1 control: its code point is the second byte */
				p++;
		}
		*w++ = '\\';
		if (esc[*p] == 'u' || esc[*p] == '8') {
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

char *ct_w_xhh(char *w, unsigned char c)
{
	w = ct_w_lit(w, "\\x");
	*w++ = hex[c >> 4];
	*w++ = hex[c & 15];
	return w;
}

char *ct_w_text_str(char *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		int n = ct_text_keep(p);

		if (n) {
			w = ct_w_put(w, (const char *)p, n);
			p += n;
			continue;
		}
		w = ct_w_xhh(w, *p++);
	}
	return w;
}

size_t ct_text_esc(char *buf, size_t n, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = 0, put = 0;

	while (*p) {
		int k = ct_text_keep(p), m = k ? k : 4;

		/* Once a unit does not fit, none after it is written either. */
		if (put == len && len + m < n) {
			if (k)
				memcpy(buf + len, p, k);
			else
				ct_w_xhh(buf + len, *p);
			put += m;
		}
		len += m;
		p += k ? k : 1;
	}
	if (n)
		buf[put] = 0;
	return len;
}
