// SPDX-License-Identifier: MIT
/*
 * The one validator of plugin tables, used by the loader and by every test
 * that holds a table. A plugin is data written by someone else: each count
 * is bounded, each pointer probed (process_vm_readv on ourselves, which
 * fails with EFAULT where a read would crash) before it is followed, each
 * value held against what the engine and the decoder can do. The first
 * defect found is named: the plugin, the row (index and symbol), the field.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "plugin/validate.h"

#define CT_HOOK_MAX (64u << 20) /* bytes of a plugin's BPF hook object */
#define CT_SUFFIX_MAX 32        /* bytes of a variant's suffix */

struct check {
	const char *name; /* the plugin's, once it is known good; NULL before */
	char where[320];  /* "row 3 (cudaMalloc): arg 1 (size)", or empty */
	char *why;
	size_t why_len;
	bool hooked;      /* the plugin has a BPF hook, which may fill memory words */
	const char *rows; /* "row" or "generated row", for `where` */
	const struct ct_enum *seen[8]; /* enum tables already checked */
	int n_seen;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct check *c, int err, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!c->why_len)
		return err;
	if (!c->name)
		snprintf(c->why, c->why_len, "%s", msg);
	else
		snprintf(c->why, c->why_len, "plugin %s: %s%s%s", c->name, c->where,
			 c->where[0] ? ": " : "", msg);
	return err;
}

/* Copy n bytes of our own memory, or say that they cannot be read. */
static bool peek(void *dst, const void *src, size_t n)
{
	struct iovec l = { dst, n }, r = { (void *)src, n };
	ssize_t got = process_vm_readv(getpid(), &l, 1, &r, 1, 0);

	if (got == (ssize_t)n)
		return true;
	if (got < 0 && errno != EFAULT) {
		/* No way to probe (a seccomp filter, an old kernel): trust the pointer. */
		memcpy(dst, src, n);
		return true;
	}
	return false;
}

static size_t page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (size_t)ps : 4096;
}

/* Whether [ptr, ptr + n) can be read: one byte of each page it touches. */
static bool readable(const void *ptr, size_t n)
{
	uintptr_t a = (uintptr_t)ptr, end = a + n, ps = page_size();
	char b;

	if (!ptr || end < a)
		return false;
	do {
		if (!peek(&b, (const void *)a, 1))
			return false;
		a = (a | (ps - 1)) + 1;
	} while (a < end);
	return true;
}

/* Length of the C string at s; -1 if it cannot be read, -2 if it is longer than max. */
static long str_len(const char *s, size_t max)
{
	size_t done = 0, ps = page_size();
	char buf[64];

	if (!s)
		return -1;
	while (done <= max) {
		uintptr_t a = (uintptr_t)s + done;
		size_t k = ps - a % ps;
		const char *z;

		if (k > sizeof(buf))
			k = sizeof(buf);
		if (!peek(buf, (const void *)a, k))
			return -1;
		z = memchr(buf, 0, k);
		if (z)
			return done + (size_t)(z - buf) > max ? -2 : (long)(done + (size_t)(z - buf));
		done += k;
	}
	return -2;
}

static bool is_ident(const char *s)
{
	for (; *s; s++)
		if (!(*s == '_' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z')))
			return false;
	return true;
}

/* A string that must be there: not NULL, readable, not empty, at most max bytes. */
static int text(struct check *c, const char *field, const char *s, size_t max)
{
	long len = str_len(s, max);

	if (!s)
		return fail(c, -EINVAL, "%s is NULL", field);
	if (len == -1)
		return fail(c, -EINVAL, "%s points to unreadable memory", field);
	if (len == -2)
		return fail(c, -EINVAL, "%s is longer than %zu bytes", field, max);
	if (!len)
		return fail(c, -EINVAL, "%s is empty", field);
	return 0;
}

/* An optional string: NULL, or as text() wants it. */
static int opt_text(struct check *c, const char *field, const char *s, size_t max)
{
	return s ? text(c, field, s, max) : 0;
}

static int symbol_text(struct check *c, const char *field, const char *s, size_t max)
{
	int err = text(c, field, s, max);

	if (!err && !is_ident(s))
		err = fail(c, -EINVAL, "%s \"%s\" has a character other than A-Z, a-z, 0-9 and _",
			   field, s);
	return err;
}

/* A value -> name table: bounded, readable, named, sorted by value, no value twice. */
static int check_enum(struct check *c, const char *field, const struct ct_enum *e)
{
	char what[64];

	for (int i = 0; i < c->n_seen; i++)
		if (c->seen[i] == e)
			return 0;
	if (!readable(e, sizeof(*e)))
		return fail(c, -EINVAL, "%s points to unreadable memory", field);
	if (e->n > CT_ENUM_MAX)
		return fail(c, -EINVAL, "%s has %zu entries, more than %d", field, e->n, CT_ENUM_MAX);
	if (e->n && !readable(e->v, e->n * sizeof(e->v[0])))
		return fail(c, -EINVAL, "%s has %zu entries at unreadable memory", field, e->n);
	for (size_t i = 0; i < e->n; i++) {
		int err;

		snprintf(what, sizeof(what), "%s entry %zu (value %lld)", field, i, (long long)e->v[i].value);
		err = text(c, what, e->v[i].name, CT_TEXT_MAX);
		if (err)
			return err;
		if (i && e->v[i - 1].value >= e->v[i].value)
			return fail(c, -EINVAL, "%s is not sorted: entry %zu (%s = %lld) comes after %s = %lld",
				    field, i, e->v[i].name, (long long)e->v[i].value, e->v[i - 1].name,
				    (long long)e->v[i - 1].value);
	}
	if (c->n_seen < (int)(sizeof(c->seen) / sizeof(c->seen[0])))
		c->seen[c->n_seen++] = e;
	return 0;
}

/* A datatype's sizes: readable, sorted by value, no zero size; only on an ELEM_TYPE enum. */
static int check_elem_sizes(struct check *c, const struct ct_arg *g)
{
	const struct ct_elem_sizes *z = g->elem_sizes;

	if (!z && g->role != CT_ROLE_ELEM_TYPE)
		return 0;
	if (g->role != CT_ROLE_ELEM_TYPE || g->kind != CT_ARG_ENUM)
		return fail(c, -EINVAL, "elem_sizes belong to an enum argument of role CT_ROLE_ELEM_TYPE");
	if (!z)
		return fail(c, -EINVAL, "a CT_ROLE_ELEM_TYPE argument without elem_sizes");
	if (!readable(z, sizeof(*z)))
		return fail(c, -EINVAL, "elem_sizes points to unreadable memory");
	if (!z->n || z->n > CT_ENUM_MAX || !readable(z->v, z->n * sizeof(z->v[0])))
		return fail(c, -EINVAL, "elem_sizes has %zu entries (1 to %d, readable)", z->n, CT_ENUM_MAX);
	for (size_t i = 0; i < z->n; i++) {
		if (!z->v[i].bytes)
			return fail(c, -EINVAL, "elem_sizes entry %zu (value %lld) has no size", i,
				    (long long)z->v[i].value);
		if (i && z->v[i - 1].value >= z->v[i].value)
			return fail(c, -EINVAL, "elem_sizes is not sorted: entry %zu (value %lld) comes after %lld",
				    i, (long long)z->v[i].value, (long long)z->v[i - 1].value);
	}
	return 0;
}

/* The bytes a field of this kind must have; 0: any (a string's size is its buffer's). */
static const char *size_rule(const struct ct_arg *g)
{
	switch (g->kind) {
	case CT_ARG_STRING:
		return NULL;
	case CT_ARG_DIM3:
		return g->size == 12 ? NULL : "want 12 for a dim3";
	case CT_ARG_SIZES3:
		return g->size == 24 ? NULL : "want 24 for three sizes";
	case CT_ARG_FLOAT:
		return g->size == 4 ? NULL : "want 4 for a float";
	default:
		return g->size == 1 || g->size == 2 || g->size == 4 || g->size == 8 ? NULL :
			"want 1, 2, 4 or 8";
	}
}

/* Whether the reads of the row fill memory word w. */
static bool word_is_read(const struct ct_api *a, unsigned w)
{
	for (size_t r = 0; r < a->n_reads; r++)
		if (w >= a->reads[r].dst && w < (unsigned)a->reads[r].dst + a->reads[r].words)
			return true;
	return false;
}

static int check_arg(struct check *c, const struct ct_api *a, size_t k, size_t where_len)
{
	const struct ct_arg *g = &a->args[k];
	unsigned end = (unsigned)g->off + g->size;
	const char *rule;
	int err;

	snprintf(c->where + where_len, sizeof(c->where) - where_len, ": arg %zu", k);
	err = text(c, "name", g->name, CT_TEXT_MAX);
	if (err)
		return err;
	snprintf(c->where + where_len, sizeof(c->where) - where_len, ": arg %zu (%s)", k, g->name);
	for (size_t j = 0; j < k; j++)
		if (!strcmp(a->args[j].name, g->name))
			return fail(c, -EINVAL, "arg %zu has the same name", j);
	if (!g->kind || g->kind >= CT_ARG_KIND_MAX)
		return fail(c, -EINVAL, "kind %u is not a ct_arg_kind", g->kind);
	if (!g->area || g->area >= CT_AREA_MAX)
		return fail(c, -EINVAL, "area %u is not a ct_area", g->area);
	if (g->role >= CT_ROLE_MAX)
		return fail(c, -EINVAL, "role %u is not a ct_role", g->role);
	rule = size_rule(g);
	if (rule)
		return fail(c, -EINVAL, "size %u, %s", g->size, rule);
	if ((g->kind == CT_ARG_STRING) != (g->area == CT_AREA_STR))
		return fail(c, -EINVAL, "a string is in CT_AREA_STR, and nothing else is");
	switch (g->area) {
	case CT_AREA_ARGS:
		/* A slot, or a field of a small struct passed by value in one (a
		 * cudaMemLocation's id: bytes 4..7 of its register). */
		if (g->off % 8 && (g->size > 8 || g->off % g->size || g->off / 8 != (end - 1) / 8))
			return fail(c, -EINVAL, "offset %u is neither a slot's (a multiple of 8) "
				    "nor a field's within one slot", g->off);
		if (end > CT_MAX_SLOTS * 8)
			return fail(c, -EINVAL, "bytes %u..%u are past the %d argument slots", g->off,
				    end - 1, CT_MAX_SLOTS);
		break;
	case CT_AREA_MEM:
		if (end > CT_MAX_MEM_WORDS * 8)
			return fail(c, -EINVAL, "bytes %u..%u are past the %d memory words", g->off,
				    end - 1, CT_MAX_MEM_WORDS);
		for (unsigned w = g->off / 8; w <= (end - 1) / 8; w++)
			if (!word_is_read(a, w) && !c->hooked)
				return fail(c, -EINVAL, "memory word %u is filled by no read (and the plugin has no BPF hook to fill it)", w);
		break;
	case CT_AREA_STR:
		if (a->str_slot == CT_NO_STR)
			return fail(c, -EINVAL, "a string needs the row's str_slot");
		break;
	case CT_AREA_RET:
		if (end > 8)
			return fail(c, -EINVAL, "bytes %u..%u are past the 8-byte return value", g->off, end - 1);
		break;
	}
	if (g->kind == CT_ARG_ENUM) {
		if (!g->names)
			return fail(c, -EINVAL, "an enum without names");
		err = check_enum(c, "names", g->names);
		if (err)
			return err;
	}
	if (g->kind == CT_ARG_SIZES3 && (g->count_from < 0 || (size_t)g->count_from >= k))
		return fail(c, -EINVAL, "count_from %d does not name an earlier argument", g->count_from);
	return check_elem_sizes(c, g);
}

static int check_read(struct check *c, const struct ct_read *rd, size_t r, size_t where_len)
{
	snprintf(c->where + where_len, sizeof(c->where) - where_len, ": read %zu", r);
	if (rd->slot >= CT_MAX_SLOTS)
		return fail(c, -EINVAL, "slot %u is past the %d argument slots", rd->slot, CT_MAX_SLOTS);
	if (rd->phase != CT_AT_ENTRY && rd->phase != CT_AT_EXIT)
		return fail(c, -EINVAL, "phase %u is neither CT_AT_ENTRY nor CT_AT_EXIT", rd->phase);
	if (!rd->words)
		return fail(c, -EINVAL, "copies no words");
	if (rd->dst + rd->words > CT_MAX_MEM_WORDS)
		return fail(c, -EINVAL, "memory words %u..%u are past the %d there are", rd->dst,
			    rd->dst + rd->words - 1, CT_MAX_MEM_WORDS);
	return 0;
}

/* An array of n elements of `size` bytes that a row points to. */
static int check_array(struct check *c, const char *field, const char *count, const void *v,
		       size_t n, size_t max, size_t size)
{
	if (n > max)
		return fail(c, -EINVAL, "%s is %zu, more than %zu", count, n, max);
	if (n && !v)
		return fail(c, -EINVAL, "%s is %zu and %s is NULL", count, n, field);
	if (n && !readable(v, n * size))
		return fail(c, -EINVAL, "%s points to unreadable memory", field);
	return 0;
}

/* The roles a size is made of (ct_event_bytes()): numbers, one of each a row. */
static const struct {
	uint8_t role;
	const char *name;
} size_roles[] = {
	{ CT_ROLE_BYTES, "BYTES" }, { CT_ROLE_HEIGHT, "HEIGHT" }, { CT_ROLE_DEPTH, "DEPTH" },
	{ CT_ROLE_ELEMENTS, "ELEMENTS" }, { CT_ROLE_CHANNELS, "CHANNELS" }, { CT_ROLE_LEVELS, "LEVELS" },
	{ CT_ROLE_ELEM_BITS, "ELEM_BITS" },
};

static int count_role(const struct ct_api *a, uint8_t role, size_t *first)
{
	int n = 0;

	for (size_t k = 0; k < a->n_args; k++)
		if (a->args[k].role == role && !n++ && first)
			*first = k;
	return n;
}

/* What the sinks make of a row's roles and flags holds together. */
static int check_roles(struct check *c, const struct ct_api *a)
{
	bool typed = count_role(a, CT_ROLE_ELEM_TYPE, NULL), bits = count_role(a, CT_ROLE_ELEM_BITS, NULL);

	for (size_t i = 0; i < sizeof(size_roles) / sizeof(size_roles[0]); i++) {
		size_t k = 0;
		int n = count_role(a, size_roles[i].role, &k);
		const struct ct_arg *g;

		if (!n)
			continue;
		g = &a->args[k]; /* a row may have no arguments: args is NULL */
		/* ELEM_BITS add up: a channel format's x, y, z and w */
		if (n > 1 && size_roles[i].role != CT_ROLE_ELEM_BITS)
			return fail(c, -EINVAL, "%d arguments with the role %s: a size has one", n,
				    size_roles[i].name);
		if (g->kind != CT_ARG_INT && g->kind != CT_ARG_UINT && g->kind != CT_ARG_SIZE)
			return fail(c, -EINVAL, "%s has the role %s and is not a number (INT, UINT or SIZE)",
				    g->name, size_roles[i].name);
	}
	if (typed && bits)
		return fail(c, -EINVAL, "an element's size from both ELEM_TYPE and ELEM_BITS");
	if (count_role(a, CT_ROLE_CHANNELS, NULL) && !typed)
		return fail(c, -EINVAL, "CT_ROLE_CHANNELS multiplies an ELEM_TYPE's size: the row has none");
	/* A datatype alone is shown, not counted (ncclRedOpCreatePreMulSum's). */
	if (count_role(a, CT_ROLE_LEVELS, NULL) && !count_role(a, CT_ROLE_ELEMENTS, NULL))
		return fail(c, -EINVAL, "mipmap levels of no array: CT_ROLE_LEVELS without CT_ROLE_ELEMENTS");
	if (count_role(a, CT_ROLE_ELEMENTS, NULL) && !typed && !bits)
		return fail(c, -EINVAL, "CT_ROLE_ELEMENTS without an element's size (ELEM_TYPE or ELEM_BITS)");
	if ((a->flags & CT_API_RETAIN) && (a->flags & (CT_API_ALLOC | CT_API_FREE)))
		return fail(c, -EINVAL, "CT_API_RETAIN is neither an allocation nor a free");
	if ((a->flags & (CT_API_FREE | CT_API_RETAIN)) && !count_role(a, CT_ROLE_FREE_PTR, NULL))
		return fail(c, -EINVAL, "a free or retain without CT_ROLE_FREE_PTR");
	return 0;
}

static int check_row(struct check *c, const struct ct_api *a, size_t i)
{
	size_t len, sym_len;
	int err;

	len = (size_t)snprintf(c->where, sizeof(c->where), "%s %zu", c->rows, i);
	err = symbol_text(c, "symbol", a->symbol, CT_SYMBOL_MAX);
	if (err)
		return err;
	sym_len = strlen(a->symbol);
	len = (size_t)snprintf(c->where, sizeof(c->where), "%s %zu (%s)", c->rows, i, a->symbol);
	if (a->flags & ~CT_API_FLAGS_ALL)
		return fail(c, -EINVAL, "flags 0x%x have unknown bits 0x%x", a->flags,
			    a->flags & ~CT_API_FLAGS_ALL);
	if (a->result >= CT_RES_MAX)
		return fail(c, -EINVAL, "result %u is not a ct_result", a->result);
	if (a->str_slot != CT_NO_STR && a->str_slot >= CT_MAX_SLOTS)
		return fail(c, -EINVAL, "str_slot %u is past the %d argument slots", a->str_slot, CT_MAX_SLOTS);
	err = check_array(c, "args", "n_args", a->args, a->n_args, CT_MAX_ARGS, sizeof(a->args[0]));
	if (!err)
		err = check_array(c, "reads", "n_reads", a->reads, a->n_reads, CT_MAX_READS,
				  sizeof(a->reads[0]));
	if (!err)
		err = check_array(c, "variants", "n_variants", a->variants, a->n_variants,
				  CT_MAX_VARIANTS, sizeof(a->variants[0]));
	for (size_t v = 0; !err && v < a->n_variants; v++) {
		char field[32];

		snprintf(field, sizeof(field), "variant %zu", v);
		err = symbol_text(c, field, a->variants[v], CT_SUFFIX_MAX);
		if (!err && sym_len + strlen(a->variants[v]) > CT_SYMBOL_MAX)
			err = fail(c, -EINVAL, "%s makes a symbol longer than %d bytes", field, CT_SYMBOL_MAX);
	}
	for (size_t r = 0; !err && r < a->n_reads; r++)
		err = check_read(c, &a->reads[r], r, len);
	for (size_t k = 0; !err && k < a->n_args; k++)
		err = check_arg(c, a, k, len);
	if (err)
		return err;
	c->where[len] = 0;
	err = check_roles(c, a);
	if (err)
		return err;
	/* An entry-only call is sent before it writes anything: a row that reads
	 * at exit would show what it never read. Users may still choose such an
	 * API entry-only (tracer.entry_only): its out-parameters are unknown. */
	for (size_t r = 0; (a->flags & CT_API_ENTRY_ONLY) && r < a->n_reads; r++)
		if (a->reads[r].phase == CT_AT_EXIT)
			return fail(c, -EINVAL, "CT_API_ENTRY_ONLY with a read at exit (read %zu): an entry-only "
				    "call cannot show an out-parameter; leave the flag off", r);
	for (size_t k = 0; (a->flags & CT_API_ENTRY_ONLY) && k < a->n_args; k++)
		if (a->args[k].area == CT_AREA_RET)
			return fail(c, -EINVAL, "CT_API_ENTRY_ONLY with %s read from the return value: an "
				    "entry-only call has none; leave the flag off", a->args[k].name);
	if (a->result == CT_RES_HANDLE && a->err_arg >= 0) {
		if ((size_t)a->err_arg >= a->n_args)
			return fail(c, -EINVAL, "err_arg %d is past its %zu arguments", a->err_arg, a->n_args);
		if (a->args[a->err_arg].kind != CT_ARG_ENUM)
			return fail(c, -EINVAL, "err_arg %d (%s) is not an enum", a->err_arg,
				    a->args[a->err_arg].name);
	} else if (a->result == CT_RES_HANDLE && a->err_arg != -1) {
		return fail(c, -EINVAL, "err_arg %d is neither -1 nor an argument", a->err_arg);
	}
	return 0;
}

/* One traced symbol: a row's own, or the row's symbol and one of its suffixes. */
struct sym {
	const char *base, *suffix;
	size_t row;
	int variant; /* -1: the row's own symbol */
};

static int sym_cmp(const void *pa, const void *pb)
{
	const struct sym *a = pa, *b = pb;
	const char *s = a->base, *t = b->base;
	bool s2 = false, t2 = false;

	/* Compare base + suffix without building either. */
	for (;;) {
		if (!*s && !s2 && a->suffix) {
			s = a->suffix;
			s2 = true;
			continue;
		}
		if (!*t && !t2 && b->suffix) {
			t = b->suffix;
			t2 = true;
			continue;
		}
		if (*s != *t || !*s)
			break;
		s++;
		t++;
	}
	if (*s != *t)
		return (unsigned char)*s < (unsigned char)*t ? -1 : 1;
	/* Equal names: table order, so that the later row is the one named. */
	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	return a->variant < b->variant ? -1 : a->variant > b->variant;
}

/* No symbol twice in one table (a generated row that the hand-written
 * table has is not a duplicate: it is left out, plugin/variants.c). */
static int check_unique(struct check *c, const struct ct_api *apis, size_t n_apis)
{
	struct sym *v;
	size_t n = 0;
	int err = 0;

	for (size_t i = 0; i < n_apis; i++)
		n += 1 + apis[i].n_variants;
	if (n > CT_PLUGIN_MAX_APIS)
		return fail(c, -EINVAL, "%zu APIs with their variants, more than %d", n, CT_PLUGIN_MAX_APIS);
	v = calloc(n, sizeof(*v));
	if (!v)
		return fail(c, -ENOMEM, "out of memory");
	n = 0;
	for (size_t i = 0; i < n_apis; i++) {
		v[n++] = (struct sym){ apis[i].symbol, NULL, i, -1 };
		for (size_t k = 0; k < apis[i].n_variants; k++)
			v[n++] = (struct sym){ apis[i].symbol, apis[i].variants[k], i, (int)k };
	}
	qsort(v, n, sizeof(*v), sym_cmp);
	for (size_t i = 1; i < n && !err; i++) {
		const struct sym *a = &v[i - 1], *b = &v[i];

		if (sym_cmp(&(struct sym){ a->base, a->suffix, 0, 0 }, &(struct sym){ b->base, b->suffix, 0, 0 }))
			continue;
		snprintf(c->where, sizeof(c->where), "%s %zu (%s)", c->rows, b->row, b->base);
		if (b->variant < 0)
			err = fail(c, -EINVAL, "symbol %s is already traced by %s %zu", b->base, c->rows, a->row);
		else
			err = fail(c, -EINVAL, "variant %d makes %s%s, already traced by %s %zu",
				   b->variant, b->base, b->suffix, c->rows, a->row);
	}
	free(v);
	return err;
}

static int check_libraries(struct check *c, const struct ct_plugin *p)
{
	int err;

	if (!p->n_libraries)
		return fail(c, -EINVAL, "n_libraries is 0: a plugin names the libraries it traces");
	err = check_array(c, "libraries", "n_libraries", p->libraries, p->n_libraries,
			  CT_PLUGIN_MAX_LIBRARIES, sizeof(p->libraries[0]));
	for (size_t i = 0; !err && i < p->n_libraries; i++) {
		char field[32];

		snprintf(field, sizeof(field), "libraries[%zu]", i);
		err = text(c, field, p->libraries[i], CT_TEXT_MAX);
		if (!err && strchr(p->libraries[i], '/'))
			err = fail(c, -EINVAL, "%s \"%s\" is a path, not the start of a file name",
				   field, p->libraries[i]);
	}
	return err;
}

static int check_name(struct check *c, const char *name)
{
	int err = text(c, "its name", name, CT_PLUGIN_NAME_MAX);

	if (err)
		return err;
	for (const char *s = name; *s; s++)
		if (!(*s == '_' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z')))
			return fail(c, -EINVAL, "its name \"%s\" has a character other than a-z, 0-9 and _",
				    name);
	return 0;
}

/* The head: what this core can read at all, before any field of the table. */
static int check_head(struct check *c, const struct ct_plugin *p, struct ct_plugin *d)
{
	size_t head = offsetof(struct ct_plugin, abi_version) + sizeof(p->abi_version);
	size_t sz;

	if (!readable(p, head))
		return fail(c, -EPROTO, "its descriptor is at unreadable memory");
	sz = p->sz;
	/* ABI 1 and 2 began with a 32-bit abi_version, then a 32-bit sz. */
	if ((uint32_t)sz && (uint32_t)sz < CT_ABI_VERSION && sz >> 32)
		return fail(c, -EPROTO, "it was built for plugin ABI %u, but this cudatracer (%s) speaks "
			    "ABI %u: rebuild the plugin against this cudatracer's headers "
			    "(pkg-config --cflags cudatracer)", (uint32_t)sz, CT_VERSION, CT_ABI_VERSION);
	if (p->abi_version != CT_ABI_VERSION)
		return fail(c, -EPROTO, "it was built for plugin ABI %u, but this cudatracer (%s) speaks "
			    "ABI %u: rebuild the plugin against this cudatracer's headers "
			    "(pkg-config --cflags cudatracer)", p->abi_version, CT_VERSION, CT_ABI_VERSION);
	if (sz < CT_PLUGIN_MIN_SZ)
		return fail(c, -EPROTO, "its descriptor is %zu bytes, smaller than the %zu this ABI "
			    "requires: rebuild the plugin against this cudatracer's headers",
			    sz, (size_t)CT_PLUGIN_MIN_SZ);
	if (sz > CT_PLUGIN_MAX_SZ || !readable(p, sz))
		return fail(c, -EPROTO, "its descriptor says it is %zu bytes, which cannot be read", sz);
	/* A newer plugin's fields that we do not know must be unused (libbpf's rule). */
	for (size_t i = sizeof(*p); i < sz; i++)
		if (((const unsigned char *)p)[i])
			return fail(c, -E2BIG, "its descriptor is %zu bytes, and byte %zu, past the %zu "
				    "this cudatracer (%s) knows, is not zero: it needs a newer cudatracer",
				    sz, i, sizeof(*p), CT_VERSION);
	memset(d, 0, sizeof(*d));
	memcpy(d, p, sz < sizeof(*d) ? sz : sizeof(*d));
	return 0;
}

int ct_plugin_validate(const struct ct_plugin *p, char *why, size_t why_len)
{
	struct check c = { .why = why, .why_len = why_len };
	struct ct_plugin d;
	int err;

	if (why_len)
		why[0] = 0;
	err = check_head(&c, p, &d);
	if (!err)
		err = check_name(&c, d.name);
	if (err)
		return err;
	c.name = d.name;
	err = opt_text(&c, "version", d.version, CT_TEXT_MAX);
	if (!err)
		err = opt_text(&c, "description", d.description, CT_TEXT_MAX);
	if (!err)
		err = opt_text(&c, "success_name", d.success_name, CT_TEXT_MAX);
	if (!err)
		err = check_libraries(&c, &d);
	if (!err && d.errors)
		err = check_enum(&c, "errors", d.errors);
	if (!err && (!d.bpf_hook) != (!d.bpf_hook_sz))
		err = fail(&c, -EINVAL, "bpf_hook and bpf_hook_sz disagree (%s, %zu bytes)",
			   d.bpf_hook ? "an object" : "NULL", d.bpf_hook_sz);
	if (!err && d.bpf_hook && (d.bpf_hook_sz > CT_HOOK_MAX || !readable(d.bpf_hook, d.bpf_hook_sz)))
		err = fail(&c, -EINVAL, "bpf_hook of %zu bytes cannot be read", d.bpf_hook_sz);
	if (!err && !d.n_apis)
		err = fail(&c, -EINVAL, "n_apis is 0: a plugin traces at least one API");
	if (!err)
		err = check_array(&c, "apis", "n_apis", d.apis, d.n_apis, CT_PLUGIN_MAX_APIS,
				  sizeof(d.apis[0]));
	c.hooked = d.bpf_hook != NULL;
	c.rows = "row";
	for (size_t i = 0; !err && i < d.n_apis; i++)
		err = check_row(&c, &d.apis[i], i);
	if (!err)
		err = check_unique(&c, d.apis, d.n_apis);
	c.where[0] = 0;
	if (!err && (!d.gen_apis) != (!d.n_gen_apis))
		err = fail(&c, -EINVAL, "gen_apis and n_gen_apis disagree (%s, %zu rows)",
			   d.gen_apis ? "a table" : "NULL", d.n_gen_apis);
	if (!err && d.gen_apis)
		err = check_array(&c, "gen_apis", "n_gen_apis", d.gen_apis, d.n_gen_apis, CT_PLUGIN_MAX_APIS,
				  sizeof(d.gen_apis[0]));
	c.rows = "generated row";
	for (size_t i = 0; !err && i < d.n_gen_apis; i++)
		err = check_row(&c, &d.gen_apis[i], i);
	if (!err && d.n_gen_apis)
		err = check_unique(&c, d.gen_apis, d.n_gen_apis);
	return err;
}
