// SPDX-License-Identifier: MIT
/* --stacks, the reader's side: see stacks.h. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "capture/stacks.h"
#include "symbols/symbolizer.h"
#include "symbols/unwind.h"

/* stacks.apis words that name APIs by their kind (the plugin's flags). */
static const struct {
	const char *word;
	uint32_t flags;
} api_kinds[] = {
	{ "alloc", CT_API_ALLOC }, { "free", CT_API_FREE }, { "launch", CT_API_LAUNCH },
	{ "copy", CT_API_COPY },   { "set", CT_API_SET },   { "sync", CT_API_SYNC },
};

static bool listed(const struct ct_stacks_conf *c, const char *word)
{
	for (size_t i = 0; i < c->apis.n; i++)
		if (!strcmp(c->apis.v[i], word))
			return true;
	return false;
}

bool ct_stacks_word_known(const char *word)
{
	if (!strcmp(word, "all") || !strcmp(word, "errors"))
		return true;
	for (size_t i = 0; i < sizeof(api_kinds) / sizeof(api_kinds[0]); i++)
		if (!strcmp(word, api_kinds[i].word))
			return true;
	return false;
}

void ct_stacks_words(char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "all, errors");

	for (size_t i = 0; i < sizeof(api_kinds) / sizeof(api_kinds[0]) && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, ", %s", api_kinds[i].word);
}

bool ct_stacks_api_wanted(const struct ct_stacks_conf *c, const struct ct_api *a)
{
	if (listed(c, "all"))
		return true;
	for (size_t i = 0; i < sizeof(api_kinds) / sizeof(api_kinds[0]); i++)
		if ((a->flags & api_kinds[i].flags) && listed(c, api_kinds[i].word))
			return true;
	for (size_t i = 0; i < c->apis.n; i++)
		if (fnmatch(c->apis.v[i], a->symbol, 0) == 0)
			return true;
	return false;
}

bool ct_stacks_errors_wanted(const struct ct_stacks_conf *c)
{
	return listed(c, "errors") || listed(c, "all");
}

/* A stack as it arrived: its frames' addresses, named when first used. */
struct ct_known_stack {
	uint32_t pid;
	uint64_t hash;
	enum ct_frame_kind end;
	uint32_t n;
	uint64_t pcs[];
};

void ct_stacks_init(struct ct_stacks *st)
{
	memset(st, 0, sizeof(*st));
}

static struct ct_known_stack *known_new(uint32_t pid, uint64_t hash, enum ct_frame_kind end,
					const uint64_t *pcs, uint32_t n)
{
	struct ct_known_stack *k = malloc(sizeof(*k) + n * sizeof(*pcs));

	if (!k)
		return NULL;
	*k = (struct ct_known_stack){ .pid = pid, .hash = hash, .end = end, .n = n };
	memcpy(k->pcs, pcs, n * sizeof(*pcs));
	return k;
}

/* Replace what `map` holds at key (a stack sent again, or a thread's next slice). */
static void keep(struct ct_u64map *map, uint64_t key, struct ct_known_stack *k)
{
	free(ct_u64map_del(map, key));
	if (k && ct_u64map_put(map, key, k))
		free(k);
}

static uint64_t hash_pcs(uint32_t pid, const uint64_t *pcs, uint32_t n, enum ct_frame_kind end)
{
	uint64_t h = 0xcbf29ce484222325ull ^ pid;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ pcs[i]) * 0x100000001b3ull;
	return (h ^ (uint64_t)end) * 0x100000001b3ull;
}

static int take_frames(struct ct_stacks *st, const void *data, size_t len)
{
	struct ct_ustack_frames h;

	if (len < CT_USTACK_FRAMES_HEAD)
		return 1;
	memcpy(&h, data, sizeof(h));
	if (h.n > CT_USTACK_DEPTH_MAX || h.n * 8 > len - CT_USTACK_FRAMES_HEAD)
		return 1;
	st->stacks++;
	keep(&st->known, (uint64_t)h.pid << 32 | h.id,
	     known_new(h.pid, h.hash, h.flags & CT_USTACK_TRUNCATED ? CT_FRAME_TRUNCATED : CT_FRAME_NATIVE,
		       (const uint64_t *)((const char *)data + CT_USTACK_FRAMES_HEAD), (uint32_t)h.n));
	return 1;
}

static int take_slice(struct ct_stacks *st, const void *data, size_t len)
{
	const struct ct_ustack_slice *s = data;
	uint64_t pcs[CT_USTACK_DEPTH_MAX];
	enum ct_frame_kind end;
	int n;

	if (len < CT_USTACK_SLICE_HEAD || s->len > len - CT_USTACK_SLICE_HEAD)
		return 1;
	st->slices++;
	n = ct_unwind_slice(s, pcs, CT_USTACK_DEPTH_MAX, &end);
	keep(&st->pending, s->tid, n < 0 ? NULL : known_new(s->pid, hash_pcs(s->pid, pcs, n, end), end, pcs, n));
	return 1;
}

int ct_stacks_take(struct ct_stacks *st, const void *data, size_t len)
{
	uint32_t call;

	if (len < CT_USTACK_FRAMES_HEAD)
		return 0;
	memcpy(&call, (const char *)data + offsetof(struct ct_record, call), sizeof(call));
	if (call == CT_CALL_USTACK_FRAMES)
		return take_frames(st, data, len);
	if (call == CT_CALL_USTACK_SLICE)
		return take_slice(st, data, len);
	return 0;
}

const struct ct_callstack *ct_stacks_of(struct ct_stacks *st, const struct ct_record *r)
{
	struct ct_known_stack *k = NULL;
	const struct ct_callstack *cs;

	if (!r->ustack)
		return NULL;
	if (r->ustack == CT_USTACK_SLICE)
		k = ct_u64map_del(&st->pending, r->tid);
	else
		k = ct_u64map_get(&st->known, (uint64_t)r->pid << 32 | r->ustack);
	if (!k || k->pid != r->pid) {
		st->unmatched++;
		if (r->ustack == CT_USTACK_SLICE)
			free(k);
		return NULL;
	}
	cs = ct_sym_stack(k->pid, k->hash, k->pcs, k->n, k->end);
	if (r->ustack == CT_USTACK_SLICE)
		free(k);
	return cs;
}

uint32_t ct_stacks_raw(struct ct_stacks *st, const struct ct_record *r, const uint64_t **pcs, uint64_t *hash,
		       enum ct_frame_kind *end)
{
	struct ct_known_stack *k = NULL;

	free(st->taken);
	st->taken = NULL;
	if (!r->ustack)
		return 0;
	if (r->ustack == CT_USTACK_SLICE)
		k = st->taken = ct_u64map_del(&st->pending, r->tid);
	else
		k = ct_u64map_get(&st->known, (uint64_t)r->pid << 32 | r->ustack);
	if (!k || k->pid != r->pid) {
		st->unmatched++;
		return 0;
	}
	*pcs = k->pcs;
	*hash = k->hash;
	*end = k->end;
	return k->n;
}

void ct_stacks_free(struct ct_stacks *st)
{
	free(st->taken);
	ct_u64map_free_all(&st->known, free);
	ct_u64map_free_all(&st->pending, free);
	memset(st, 0, sizeof(*st));
}
