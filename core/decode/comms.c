// SPDX-License-Identifier: MIT
/*
 * Communicators by handle, per process (util/pidmap.h, as names.c keeps
 * names): what is known of each.
 */
#include <errno.h>
#include <stdlib.h>
#include "record.h"
#include "decode/comms.h"
#include "util/pidmap.h"

static struct ct_pidmap comms; /* (pid, handle) -> struct ct_comm_info */
static __thread struct ct_comm_info shown; /* what the last event points to */

/* The communicator (pid, handle), made blank (rank and size unknown) if `create`. */
static struct ct_comm_info *comm_get(uint32_t pid, uint64_t handle, bool create)
{
	struct ct_comm_info *c = ct_pidmap_get(&comms, pid, handle);

	if (c || !create)
		return c;
	c = malloc(sizeof(*c));
	if (!c)
		return NULL;
	*c = (struct ct_comm_info){ .rank = -1, .nranks = -1 };
	if (ct_pidmap_put(&comms, pid, handle, c)) {
		free(c);
		return NULL;
	}
	return c;
}

/* Made inside another call of its own library (ncclBcast calls ncclBroadcast):
 * part of that one, not a collective of its own. */
static bool nested(const struct ct_event *ev)
{
	return ev->depth && ev->rec && !ev->rec->parent;
}

/* Sent at its entry, in flight (tracer.hang_timeout): its return comes later. */
static bool begin(const struct ct_event *ev)
{
	return ev->rec && (ev->rec->flags & CT_REC_BEGIN);
}

static bool known(const struct ct_field *f)
{
	return f && f->valid;
}

/*
 * The id of a communicator split from one with id `parent` by members that
 * passed `color`: every member derives the same one, and no member of
 * another color does (splitmix64 of the two; 0, unknown, stays 0).
 */
uint64_t ct_comms_split_id(uint64_t parent, int64_t color)
{
	uint64_t z = parent + 0x9e3779b97f4a7c15ull * ((uint64_t)(uint32_t)color + 1);

	if (!parent)
		return 0;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return z ? z : 1;
}

/* A call that creates one communicator per device (ncclCommInitAll): an
 * array of handles from the created field's word, each one's rank its index,
 * the size NRANKS; the words past what the call copied are not known. */
static void note_array(const struct ct_event *ev, const struct ct_comm_fields *f)
{
	size_t first = f->created->arg->off / 8;
	int32_t n = (int32_t)f->nranks->v;

	for (int32_t i = 1; i < n && first + (size_t)i < CT_REC_MEM; i++) {
		uint64_t h = ev->rec->mem[first + (size_t)i];
		struct ct_comm_info *c = h ? comm_get(ev->pid, h, true) : NULL;

		if (c)
			*c = (struct ct_comm_info){ .rank = i, .nranks = n };
	}
}

void ct_comms_note(struct ct_event *ev, const struct ct_comm_fields *f)
{
	bool ok = ev->has_result && !ev->is_error;
	struct ct_comm_info *c = NULL;
	bool array = false;

	ev->comm_info = NULL;
	if (known(f->created) && f->created->v && ok) {
		/* Split from another (ncclCommSplit): its id is derived from the
		 * parent's and what the members passed alike (the color). */
		struct ct_comm_info *parent = known(f->comm) ? comm_get(ev->pid, f->comm->v, false) : NULL;
		uint64_t id = known(f->id) ? f->id->v : 0;

		if (known(f->comm))
			id = parent && known(f->id) ? ct_comms_split_id(parent->id, (int64_t)f->id->v) : 0;
		array = !f->rank && !f->comm && known(f->nranks) && f->created->arg->area == CT_AREA_MEM;
		/* A handle is reused once its communicator is destroyed: a new one
		 * starts from nothing. */
		c = comm_get(ev->pid, f->created->v, true);
		if (c)
			*c = (struct ct_comm_info){ .rank = array ? 0 : -1, .nranks = -1, .id = id };
		if (array)
			note_array(ev, f);
	} else if (known(f->comm) && f->comm->v) {
		/* A query (ncclCommCount) tells about a communicator created before
		 * the tracer came. */
		c = comm_get(ev->pid, f->comm->v, ok && (known(f->rank) || known(f->nranks)));
		if (c && (ev->api->flags & CT_API_COLLECTIVE) && !nested(ev) && !begin(ev))
			c->seq++;
	}
	if (!c)
		return;
	if (ok && known(f->rank))
		c->rank = (int32_t)f->rank->v;
	/* A split's size argument, if any, is the parent's, not its own. */
	if (ok && known(f->nranks) && !(known(f->created) && known(f->comm)))
		c->nranks = (int32_t)f->nranks->v;
	shown = *c;
	if (begin(ev)) /* in flight: counted at its return, shown with the place it will have */
		shown.seq++;
	if (!(ev->api->flags & CT_API_COLLECTIVE) || nested(ev))
		shown.seq = 0;
	ev->comm_info = &shown;
}

void ct_comms_forget(uint32_t pid)
{
	ct_pidmap_forget(&comms, pid);
}

void ct_comms_reset(void)
{
	ct_pidmap_reset(&comms);
}
