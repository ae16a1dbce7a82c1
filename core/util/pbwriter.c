// SPDX-License-Identifier: MIT
/* The protocol buffers writer (pbwriter.h). */
#include <string.h>
#include "util/pbwriter.h"

static uint8_t *room(struct ct_pb *w, size_t n)
{
	if (w->oom || !ct_sb_room(&w->b, n)) {
		w->oom = true;
		return NULL;
	}
	return (uint8_t *)w->b.p + w->b.len;
}

static int varint_len(uint64_t v)
{
	int n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

void ct_pb_varint(struct ct_pb *w, uint64_t v)
{
	uint8_t *p = room(w, 10);

	if (p)
		w->b.len += put_varint(p, v) - p;
}

void ct_pb_tag(struct ct_pb *w, unsigned field, unsigned wire)
{
	ct_pb_varint(w, (uint64_t)field << 3 | wire);
}

void ct_pb_u64(struct ct_pb *w, unsigned field, uint64_t v)
{
	ct_pb_tag(w, field, CT_PB_VARINT);
	ct_pb_varint(w, v);
}

void ct_pb_raw64(struct ct_pb *w, uint64_t v)
{
	uint8_t *p = room(w, 8);

	if (!p)
		return;
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	w->b.len += 8;
}

void ct_pb_fixed64(struct ct_pb *w, unsigned field, uint64_t v)
{
	ct_pb_tag(w, field, CT_PB_I64);
	ct_pb_raw64(w, v);
}

void ct_pb_double(struct ct_pb *w, unsigned field, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	ct_pb_fixed64(w, field, u);
}

void ct_pb_bytes(struct ct_pb *w, unsigned field, const void *s, size_t n)
{
	uint8_t *p;

	ct_pb_tag(w, field, CT_PB_LEN);
	ct_pb_varint(w, n);
	p = room(w, n);
	if (p && n) {
		memcpy(p, s, n);
		w->b.len += n;
	}
}

void ct_pb_str(struct ct_pb *w, unsigned field, const char *s)
{
	ct_pb_bytes(w, field, s, strlen(s));
}

/* One byte is kept for the length; a longer length moves the body once. */
void ct_pb_begin(struct ct_pb *w, unsigned field)
{
	uint8_t *p;

	ct_pb_tag(w, field, CT_PB_LEN);
	p = room(w, 1);
	if (!p || w->depth == CT_PB_DEPTH) {
		w->oom = true;
		return;
	}
	w->b.len++;
	w->open[w->depth++] = w->b.len;
}

void ct_pb_end(struct ct_pb *w)
{
	size_t start, n;
	int extra;
	uint8_t *base;

	if (w->oom || !w->depth)
		return;
	start = w->open[--w->depth];
	n = w->b.len - start;
	extra = varint_len(n) - 1;
	if (extra && !room(w, extra))
		return;
	base = (uint8_t *)w->b.p;
	if (extra)
		memmove(base + start + extra, base + start, n);
	put_varint(base + start - 1, n);
	w->b.len += extra;
}

void ct_pb_free(struct ct_pb *w)
{
	ct_sb_free(&w->b);
	memset(w, 0, sizeof(*w));
}
