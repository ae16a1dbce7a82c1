// SPDX-License-Identifier: MIT
/* The JSON reader: recursive descent over one line, bounds-checked. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "report/json.h"

#define MAX_DEPTH 32

static void ws(struct ct_jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
		j->p++;
}

static bool eat(struct ct_jp *j, char c)
{
	ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The end of the bytes from p that need no look: not '"', '\\' or a
 * control character. 16 at a time where SSE2 is (every x86-64): strings are
 * most of a trace's bytes. */
static const char *plain_run(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);

	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		/* c <= 0x1f unsigned: min(c, 0x1f) == c. */
		__m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
					    _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
		int m = _mm_movemask_epi8(stop);

		if (m)
			return p + __builtin_ctz((unsigned)m);
		p += 16;
	}
#endif
	while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
		p++;
	return p;
}

int ct_jp_string_len(struct ct_jp *j, char *out, size_t cap, size_t *len)
{
	size_t n = 0, whole = 0;

	if (!eat(j, '"'))
		return -EINVAL;
	while (j->p < j->end && *j->p != '"') {
		/* A run of plain bytes at once: most strings have no escape. */
		const char *run = j->p;

		j->p = plain_run(j->p, j->end);
		if (j->p > run) {
			size_t k = (size_t)(j->p - run);

			if (out && n + 1 < cap) {
				size_t c = k < cap - 1 - n ? k : cap - 1 - n;

				memcpy(out + n, run, c);
				n += c;
			}
			whole += k;
			continue;
		}
		char c = *j->p++;

		if ((unsigned char)c < 0x20)
			return -EINVAL;
		if (c == '\\') {
			if (j->p >= j->end)
				return -EINVAL;
			c = *j->p++;
			switch (c) {
			case '"': case '\\': case '/': break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u': {
				int v = 0;

				if (j->end - j->p < 4)
					return -EINVAL;
				for (int i = 0; i < 4; i++) {
					int h = hexval(j->p[i]);

					if (h < 0)
						return -EINVAL;
					v = v * 16 + h;
				}
				j->p += 4;
				c = v < 0x100 ? (char)v : '?';
				break;
			}
			default:
				return -EINVAL;
			}
		}
		if (out && n + 1 < cap)
			out[n++] = c;
		whole++;
	}
	if (j->p >= j->end)
		return -EINVAL;
	j->p++;
	if (out && cap)
		out[n] = 0;
	if (len)
		*len = whole;
	return 0;
}

int ct_jp_string(struct ct_jp *j, char *out, size_t cap)
{
	return ct_jp_string_len(j, out, cap, NULL);
}

/* The span of a number token, checked against JSON's grammar loosely. */
static int number(struct ct_jp *j, const char **s, size_t *n, bool *integral)
{
	const char *b;

	ws(j);
	b = j->p;
	*integral = true;
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return -EINVAL;
	/* A character class, not strchr: numbers are most of a trace's tokens. */
	while (j->p < j->end && ((*j->p >= '0' && *j->p <= '9') || *j->p == '.' || *j->p == 'e' || *j->p == 'E' ||
				 *j->p == '+' || *j->p == '-')) {
		if (*j->p == '.' || *j->p == 'e' || *j->p == 'E')
			*integral = false;
		j->p++;
	}
	*s = b;
	*n = (size_t)(j->p - b);
	return *n < 32 ? 0 : -EINVAL;
}

int ct_jp_i64(struct ct_jp *j, int64_t *v)
{
	char buf[32], *e;
	const char *s;
	size_t n;
	bool integral;

	if (number(j, &s, &n, &integral) || !integral)
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	*v = strtoll(buf, &e, 10);
	return errno || *e ? -EINVAL : 0;
}

int ct_jp_u64(struct ct_jp *j, uint64_t *v)
{
	char buf[32], *e;
	const char *s;
	size_t n;
	bool integral;
	uint64_t fast = 0;
	const char *p;

	/* Most numbers are up to 19 plain digits, which cannot overflow: read
	 * in one pass; anything else (a sign, a fraction, more digits) goes the
	 * whole way below. */
	ws(j);
	for (p = j->p; p < j->end && p - j->p < 19 && *p >= '0' && *p <= '9'; p++)
		fast = fast * 10 + (uint64_t)(*p - '0');
	if (p > j->p && (p == j->end || !((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' ||
					  *p == '+' || *p == '-'))) {
		j->p = p;
		*v = fast;
		return 0;
	}
	if (number(j, &s, &n, &integral) || !integral || *s == '-')
		return -EINVAL;
	/* Up to 19 digits cannot overflow: read them here, strtoull only past. */
	if (n <= 19) {
		uint64_t x = 0;

		for (size_t i = 0; i < n; i++) {
			if (s[i] < '0' || s[i] > '9')
				return -EINVAL;
			x = x * 10 + (uint64_t)(s[i] - '0');
		}
		*v = x;
		return 0;
	}
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	*v = strtoull(buf, &e, 10);
	return errno || *e ? -EINVAL : 0;
}

int ct_jp_i32(struct ct_jp *j, int32_t *v)
{
	int64_t x;

	if (ct_jp_i64(j, &x))
		return -EINVAL;
	*v = (int32_t)x;
	return 0;
}

int ct_jp_u32(struct ct_jp *j, uint32_t *v)
{
	uint64_t x;

	if (ct_jp_u64(j, &x))
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

static bool word(struct ct_jp *j, const char *w)
{
	size_t n = strlen(w);

	ws(j);
	if ((size_t)(j->end - j->p) >= n && !memcmp(j->p, w, n)) {
		j->p += n;
		return true;
	}
	return false;
}

int ct_jp_double(struct ct_jp *j, double *v)
{
	char buf[32], *e;
	const char *s;
	size_t n;
	bool integral;

	if (number(j, &s, &n, &integral))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	*v = strtod(buf, &e);
	return *e ? -EINVAL : 0;
}

bool ct_jp_null(struct ct_jp *j)
{
	return word(j, "null");
}

char ct_jp_peek(struct ct_jp *j)
{
	ws(j);
	return j->p < j->end ? *j->p : 0;
}

int ct_jp_array(struct ct_jp *j, ct_jp_elem_fn fn, void *ctx)
{
	size_t i = 0;
	int r;

	if (!eat(j, '['))
		return -EINVAL;
	if (eat(j, ']'))
		return 0;
	do {
		ws(j);
		r = fn(ctx, i++, j);
		if (r < 0)
			return r;
		if (r > 0 && ct_jp_skip(j))
			return -EINVAL;
	} while (eat(j, ','));
	return eat(j, ']') ? 0 : -EINVAL;
}

int ct_jp_bool(struct ct_jp *j, bool *v)
{
	if (word(j, "true"))
		return *v = true, 0;
	if (word(j, "false"))
		return *v = false, 0;
	return -EINVAL;
}

static int skip(struct ct_jp *j, int depth)
{
	const char *s;
	size_t n;
	bool integral;

	if (depth > MAX_DEPTH)
		return -EINVAL;
	ws(j);
	if (j->p >= j->end)
		return -EINVAL;
	switch (*j->p) {
	case '"':
		return ct_jp_string(j, NULL, 0);
	case '{':
	case '[': {
		char close = *j->p == '{' ? '}' : ']';
		bool obj = close == '}';

		j->p++;
		if (eat(j, close))
			return 0;
		do {
			if (obj && (ct_jp_string(j, NULL, 0) || !eat(j, ':')))
				return -EINVAL;
			if (skip(j, depth + 1))
				return -EINVAL;
		} while (eat(j, ','));
		return eat(j, close) ? 0 : -EINVAL;
	}
	case 't': case 'f': case 'n':
		return word(j, "true") || word(j, "false") || word(j, "null") ? 0 : -EINVAL;
	default:
		return number(j, &s, &n, &integral);
	}
}

int ct_jp_skip(struct ct_jp *j)
{
	return skip(j, 0);
}

/* A key: most are short and plain, read in one pass; others as any string. */
static int key_string(struct ct_jp *j, char *key, size_t cap)
{
	const char *p, *q;

	ws(j);
	p = j->p;
	if (p < j->end && *p == '"') {
		q = plain_run(p + 1, j->end);
		if (q < j->end && *q == '"' && (size_t)(q - p - 1) < cap) {
			memcpy(key, p + 1, (size_t)(q - p - 1));
			key[q - p - 1] = '\0';
			j->p = q + 1;
			return 0;
		}
	}
	return ct_jp_string(j, key, cap);
}

int ct_jp_object(struct ct_jp *j, ct_jp_key_fn fn, void *ctx)
{
	char key[64];
	int r;

	if (!eat(j, '{'))
		return -EINVAL;
	if (eat(j, '}'))
		return 0;
	do {
		if (key_string(j, key, sizeof(key)) || !eat(j, ':'))
			return -EINVAL;
		ws(j);
		r = fn(ctx, key, j);
		if (r < 0)
			return r;
		if (r > 0 && ct_jp_skip(j))
			return -EINVAL;
	} while (eat(j, ','));
	return eat(j, '}') ? 0 : -EINVAL;
}

bool ct_jp_at_end(struct ct_jp *j)
{
	ws(j);
	return j->p == j->end;
}
