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

static bool known(const struct ct_field *f)
{
	return f && f->valid;
}

void ct_comms_note(struct ct_event *ev, const struct ct_comm_fields *f)
{
	bool ok = ev->has_result && !ev->is_error;
	struct ct_comm_info *c = NULL;

	ev->comm_info = NULL;
	if (known(f->created) && f->created->v && ok) {
		/* A handle is reused once its communicator is destroyed: a new one
		 * starts from nothing. */
		c = comm_get(ev->pid, f->created->v, true);
		if (c)
			*c = (struct ct_comm_info){ .rank = -1, .nranks = -1,
						    .id = known(f->id) ? f->id->v : 0 };
	} else if (known(f->comm) && f->comm->v) {
		/* A query (ncclCommCount) tells about a communicator created before
		 * the tracer came. */
		c = comm_get(ev->pid, f->comm->v, ok && (known(f->rank) || known(f->nranks)));
		if (c && (ev->api->flags & CT_API_COLLECTIVE) && !nested(ev))
			c->seq++;
	}
	if (!c)
		return;
	if (ok && known(f->rank))
		c->rank = (int32_t)f->rank->v;
	if (ok && known(f->nranks))
		c->nranks = (int32_t)f->nranks->v;
	shown = *c;
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
