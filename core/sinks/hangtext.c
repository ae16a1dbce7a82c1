// SPDX-License-Identifier: MIT
/* A hang said on stderr (hangtext.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "sinks/hangtext.h"
#include "sinks/sink.h"
#include "sinks/stackfmt.h"
#include "sinks/texttable.h"
#include "util/log.h"
#include "util/strbuf.h"

/* "; rank 0 of 2 on communicator 0x..., collective 3; rank 1 (PID 42) is behind, at collective 2" */
static void where(const struct ct_hang *h, char *buf, size_t n)
{
	const struct ct_event *ev = h->call;
	const struct ct_comm_info *c = ev->comm_info;
	int w = 0;

	buf[0] = 0;
	if (ev->env && ev->env->rank >= 0)
		w = snprintf(buf, n, ", job rank %d", ev->env->rank);
	if (c && c->id && w >= 0 && (size_t)w < n)
		w += snprintf(buf + w, n - (size_t)w, "; communicator 0x%llx rank %d of %d, collective %llu",
			      (unsigned long long)c->id, c->rank, c->nranks, (unsigned long long)c->seq);
	if (h->behind_rank >= 0 && w >= 0 && (size_t)w < n)
		snprintf(buf + w, n - (size_t)w, "; rank %d (PID %u) is behind, at collective %llu",
			 h->behind_rank, h->behind_pid, (unsigned long long)h->behind_seq);
}

static void say_args(const struct ct_event *ev)
{
	struct ct_sb b = { 0 };
	bool ok = true;

	for (int i = 0; ok && i < ev->n_fields; i++) {
		const char *name = ev->fields[i].arg->name;

		ok = ct_sb_room(&b, strlen(name) + 16);
		if (ok) {
			ct_sb_put(&b, i ? " " : "  args: ", i ? 1 : 8);
			ct_sb_put(&b, name, strlen(name));
			ct_sb_ch(&b, '=');
			ok = ct_format_field_sb(&b, &ev->fields[i]);
		}
	}
	if (ok && b.len && ct_sb_room(&b, 1)) {
		b.p[b.len] = 0;
		ct_warn("%s", b.p);
	}
	ct_sb_free(&b);
}

static void say_stacks(const struct ct_event *ev)
{
	char line[512];

	for (uint32_t i = 0; ev->stack && i < ev->stack->n && i < CT_HANG_FRAMES_SAID; i++) {
		ct_frame_text(&ev->stack->frames[i], line, sizeof(line));
		ct_warn("  #%u %s", i, line);
	}
	for (uint32_t i = 0; ev->py_stack && i < ev->py_stack->n && i < CT_HANG_FRAMES_SAID; i++) {
		ct_py_frame_text(&ev->py_stack->f[i], line, sizeof(line));
		ct_warn("  py#%u %s", i, line);
	}
	if (!ev->stack && !ev->py_stack)
		ct_warn("  (no stack could be taken)");
}

const char *ct_hang_state_name(enum ct_hang_state s)
{
	static const char *const names[] = { [CT_HANG_STUCK] = "stuck", [CT_HANG_ENDED] = "ended",
					     [CT_HANG_GONE] = "gone" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

/* Whether this report may be said: CT_HANG_SAID_PER_SEC a second, the rest counted. */
static bool may_say(void)
{
	static uint64_t since, said, unsaid;
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (now - since >= 1000000000ull) {
		since = now;
		said = 0;
	}
	if (said >= CT_HANG_SAID_PER_SEC) {
		unsaid++;
		return false;
	}
	said++;
	if (unsaid)
		ct_warn("%llu hang reports were not said here (more than %d a second); the sinks have them all",
			(unsigned long long)unsaid, CT_HANG_SAID_PER_SEC);
	unsaid = 0;
	return true;
}

void ct_hang_say(const struct ct_hang *h)
{
	const struct ct_event *ev = h->call;
	char dur[CT_TABLE_NS_MAX], lim[CT_TABLE_NS_MAX], at[640];

	if (!may_say())
		return;

	ct_table_ns(dur, ev->dur_ns);
	ct_table_ns(lim, h->timeout_ns);
	where(h, at, sizeof(at));
	switch (h->state) {
	case CT_HANG_STUCK:
		ct_warn("hang: %s:%s in flight for %s (over %s): PID %u (%s) TID %u%s", ev->plugin->name,
			ev->api->symbol, dur, lim, ev->pid, ev->comm, ev->tid, at);
		say_args(ev);
		say_stacks(ev);
		break;
	case CT_HANG_ENDED:
		ct_warn("hang ended: %s:%s of PID %u TID %u returned after %s%s%s", ev->plugin->name,
			ev->api->symbol, ev->pid, ev->tid, dur, ev->result_name ? ": " : "",
			ev->result_name ? ev->result_name : "");
		break;
	case CT_HANG_GONE:
		ct_warn("hang gone: %s:%s of PID %u TID %u was still in flight after %s when its %s", ev->plugin->name,
			ev->api->symbol, ev->pid, ev->tid, dur, "process exited or its thread left it");
		break;
	}
}
