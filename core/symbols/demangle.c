// SPDX-License-Identifier: MIT
/*
 * The one demangler: libiberty's callback form, which allocates nothing and
 * hands its output over in pieces, so that a name past CT_NAME_MAX stops it
 * (longjmp out of the callback) instead of being built in full.
 */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "symbols/demangle.h"

/* Past this a mangled name is not demangled: libiberty's parser keeps
 * about 64 bytes of stack per byte of it, and the name is cut anyway. */
#define MANGLED_MAX CT_NAME_MAX

struct out {
	char buf[CT_NAME_MAX + 1];
	size_t len;
	jmp_buf full;
};

static void out_put(const char *s, size_t n, void *opaque)
{
	struct out *o = opaque;

	if (n > CT_NAME_MAX - o->len)
		longjmp(o->full, 1);
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

char *ct_demangle(const char *name)
{
	/* volatile: read after longjmp; on the heap: 4 KiB off the caller's stack */
	struct out *volatile o = NULL;
	char *res = NULL;

	if (!name || strncmp(name, "_Z", 2) || strnlen(name, MANGLED_MAX + 1) > MANGLED_MAX)
		return NULL;
	o = malloc(sizeof(*o));
	if (!o)
		return NULL;
	o->len = 0;
	/* The options __cxa_demangle uses, so that names read as they always did. */
	if (!setjmp(o->full) && cplus_demangle_v3_callback(name, DMGL_PARAMS | DMGL_TYPES, out_put, o)) {
		o->buf[o->len] = '\0';
		res = strdup(o->buf);
	}
	free(o);
	return res;
}

char *ct_name_keep(const char *name, size_t len)
{
	size_t n = strnlen(name, len), cut;
	char *out, *raw;

	if (n <= CT_NAME_MAX) {
		raw = strndup(name, n);
		if (!raw)
			return NULL;
		out = ct_demangle(raw);
		if (!out)
			return raw;
		free(raw);
		return out;
	}
	cut = CT_NAME_MAX - strlen(CT_NAME_CUT);
	/* not inside a UTF-8 sequence: back to the byte that starts one */
	while (cut && ((unsigned char)name[cut] & 0xc0) == 0x80)
		cut--;
	out = malloc(cut + sizeof(CT_NAME_CUT));
	if (!out)
		return NULL;
	memcpy(out, name, cut);
	memcpy(out + cut, CT_NAME_CUT, sizeof(CT_NAME_CUT));
	return out;
}
