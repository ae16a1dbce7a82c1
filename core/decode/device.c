// SPDX-License-Identifier: MIT
/*
 * Per-thread current device (device.h). The runtime's device (cudaSetDevice,
 * hipSetDevice) and the driver's context stack are kept apart only as far
 * as the driver's semantics need: a context made current names its device
 * when the tracer saw that context created or retained; otherwise the
 * thread's device becomes unknown.
 */
#include <stdlib.h>
#include "decode/device.h"
#include "decode/procgpu.h"
#include "util/pidmap.h"

#define CTX_STACK 8

struct thread_dev {
	int32_t device;           /* -1: unknown */
	uint32_t depth;           /* contexts on the stack (at most CTX_STACK kept) */
	uint64_t ctx[CTX_STACK];
};

static struct ct_pidmap threads;  /* (pid, tid) -> thread_dev */
static struct ct_pidmap contexts; /* (pid, context) -> int32_t device */

static struct thread_dev *thread_of(uint32_t pid, uint32_t tid)
{
	struct thread_dev *t = ct_pidmap_get(&threads, pid, tid);

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->device = -1;
	if (ct_pidmap_put(&threads, pid, tid, t)) {
		free(t);
		return NULL;
	}
	return t;
}

static int32_t device_of_context(uint32_t pid, uint64_t ctx)
{
	const int32_t *d = ctx ? ct_pidmap_get(&contexts, pid, ctx) : NULL;

	return d ? *d : -1;
}

static const struct ct_field *valid_role(const struct ct_event *ev, enum ct_role role)
{
	const struct ct_field *f = ct_event_role(ev, role);

	return f && f->valid ? f : NULL;
}

/* The context now on top of the thread's stack decides its device. */
static void top_changed(struct thread_dev *t, uint32_t pid)
{
	t->device = t->depth && t->depth <= CTX_STACK ? device_of_context(pid, t->ctx[t->depth - 1]) : -1;
}

static void from_calls(struct ct_event *ev)
{
	uint32_t flags = ev->api ? ev->api->flags : 0;
	const struct ct_field *dev, *ctx, *made;
	struct thread_dev *t = thread_of(ev->pid, ev->tid);
	uint64_t c;

	ev->device = t ? t->device : -1;
	if (!t || (!(flags & (CT_API_SET_DEVICE | CT_API_SET_CONTEXT | CT_API_PUSH_CONTEXT | CT_API_POP_CONTEXT)) &&
		   !ct_event_role(ev, CT_ROLE_CONTEXT_NEW)))
		return;
	/* Only a call that succeeded changed anything. */
	if (ev->entry_only || (ev->has_result && ev->is_error) || (!ev->has_result && ev->api->result != CT_RES_VOID))
		return;
	dev = valid_role(ev, CT_ROLE_DEVICE);
	ctx = valid_role(ev, CT_ROLE_CONTEXT);
	made = valid_role(ev, CT_ROLE_CONTEXT_NEW);
	if (made && made->v && dev) {
		int32_t *d = malloc(sizeof(*d));

		if (d) {
			*d = (int32_t)dev->v;
			if (ct_pidmap_put(&contexts, ev->pid, made->v, d))
				free(d);
		}
	}
	c = ctx ? ctx->v : made ? made->v : 0;
	if (flags & CT_API_POP_CONTEXT) {
		if (t->depth)
			t->depth--;
		top_changed(t, ev->pid);
	}
	if (flags & CT_API_PUSH_CONTEXT) {
		if (t->depth < CTX_STACK)
			t->ctx[t->depth] = c;
		t->depth++;
		top_changed(t, ev->pid);
	}
	if ((flags & CT_API_SET_CONTEXT) && (ctx || made)) {
		/* cuCtxSetCurrent(NULL) empties the top: no current context. */
		if (!t->depth)
			t->depth = 1;
		if (t->depth <= CTX_STACK)
			t->ctx[t->depth - 1] = c;
		if (!c)
			t->depth--;
		top_changed(t, ev->pid);
	}
	if ((flags & CT_API_SET_DEVICE) && dev)
		t->device = (int32_t)dev->v;
	ev->device = t->device;
}

void ct_device_note(struct ct_event *ev)
{
	from_calls(ev);
	ct_procgpu_note(ev); /* what the process says where its calls did not */
}

void ct_device_forget(uint32_t pid)
{
	ct_pidmap_forget(&threads, pid);
	ct_pidmap_forget(&contexts, pid);
	ct_procgpu_forget(pid);
}

void ct_device_reset(void)
{
	ct_pidmap_reset(&threads);
	ct_pidmap_reset(&contexts);
	ct_procgpu_reset();
}
