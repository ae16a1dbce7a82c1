// SPDX-License-Identifier: MIT
/*
 * jsonl: one JSON object per call (schema in docs/events.md). The hot path:
 * each line is built in one buffer with hand-rolled formatters and handed
 * to stdio in large writes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "sink.h"
#include "strbuf.h"

#define JSONL_FLUSH (64 * 1024)
/* The most one event can take: 12 args of name and value, strings escaped. */
#define JSONL_EVENT_MAX (16 * 1024)

/*
 * The parts of a line that depend only on the API (its plugin and name, the
 * argument keys) are escaped once and kept, keyed by the API's row.
 */
#define JSONL_CACHE 1024 /* slots; APIs of all plugins together are far fewer */

struct api_text {
	const struct ct_api *api;
	struct ct_sb head;           /* ,"plugin":"cudart","api":"cudaMalloc" */
	struct ct_sb keys[CT_MAX_ARGS]; /* "size": */
};

struct jsonl_sink {
	struct ct_sink_common c;
	struct ct_sb b;
	struct api_text *cache;
	struct ct_sb_ts_cache ts;
};

/*
 * The cached pieces are short: copied at a constant size (a few vector
 * moves, no call to memcpy), of which only n bytes count. Their buffers
 * hold at least 4096 bytes, and the line's room is reserved per event.
 */
static inline void put_cached(struct ct_sb *b, const struct ct_sb *piece)
{
	if (piece->len <= 64) {
		memcpy(b->p + b->len, piece->p, 64);
		b->len += piece->len;
	} else {
		ct_sb_put(b, piece->p, piece->len);
	}
}

static struct api_text *api_text(struct jsonl_sink *s, const struct ct_event *ev)
{
	size_t h = ((uintptr_t)ev->api >> 4) % JSONL_CACHE;

	for (size_t i = 0; i < JSONL_CACHE; i++, h = (h + 1) % JSONL_CACHE) {
		struct api_text *t = &s->cache[h];

		if (t->api == ev->api)
			return t;
		if (t->api)
			continue;
		if (!ct_sb_room(&t->head, 6 * 256 + 64))
			return NULL;
		ct_sb_lit(&t->head, ",\"plugin\":");
		ct_sb_json_str(&t->head, ev->plugin->name);
		ct_sb_lit(&t->head, ",\"api\":");
		ct_sb_json_str(&t->head, ev->api->symbol);
		for (int k = 0; k < ev->api->n_args && k < CT_MAX_ARGS; k++) {
			if (!ct_sb_room(&t->keys[k], 6 * 64 + 4))
				return NULL;
			ct_sb_json_str(&t->keys[k], ev->api->args[k].name);
			ct_sb_ch(&t->keys[k], ':');
		}
		t->api = ev->api;
		return t;
	}
	return NULL;
}

static int jsonl_open(void *ctx)
{
	struct jsonl_sink *s = ctx;

	s->cache = calloc(JSONL_CACHE, sizeof(*s->cache));
	if (!s->cache)
		return -ENOMEM;
	return ct_sb_room(&s->b, JSONL_FLUSH + JSONL_EVENT_MAX) ? 0 : -ENOMEM;
}

static int jsonl_write(struct jsonl_sink *s)
{
	size_t n = fwrite(s->b.p, 1, s->b.len, s->c.out);

	s->b.len = 0;
	return n == s->b.len || !ferror(s->c.out) ? 0 : -(errno ? errno : EIO);
}

static int jsonl_event(void *ctx, const struct ct_event *ev)
{
	struct jsonl_sink *s = ctx;
	struct ct_sb *b = &s->b;
	struct api_text *t = api_text(s, ev);

	if (!t)
		return -ENOMEM;
	ct_sb_lit(b, "{\"ts_ns\":");
	ct_sb_ts(b, ev->ts_ns, &s->ts);
	put_cached(b, &t->head);
	ct_sb_lit(b, ",\"pid\":");
	ct_sb_u64(b, ev->pid);
	ct_sb_lit(b, ",\"tid\":");
	ct_sb_u64(b, ev->tid);
	ct_sb_lit(b, ",\"comm\":");
	ct_sb_json_str(b, ev->comm);
	ct_sb_lit(b, ",\"depth\":");
	ct_sb_u64(b, ev->depth);
	if (ev->parent_api) {
		ct_sb_lit(b, ",\"parent\":{\"plugin\":");
		ct_sb_json_str(b, ev->parent_plugin);
		ct_sb_lit(b, ",\"api\":");
		ct_sb_json_str(b, ev->parent_api);
		ct_sb_ch(b, '}');
	}
	if (ev->entry_only) {
		ct_sb_lit(b, ",\"entry_only\":true");
	} else {
		ct_sb_lit(b, ",\"dur_ns\":");
		ct_sb_u64(b, ev->dur_ns);
		if (ev->has_result) {
			ct_sb_lit(b, ",\"result\":");
			ct_sb_i64(b, ev->result);
			ct_sb_lit(b, ",\"result_name\":");
			if (ev->result_name)
				ct_sb_json_str(b, ev->result_name);
			else
				ct_sb_lit(b, "null");
			if (ev->is_error)
				ct_sb_lit(b, ",\"error\":true");
			else
				ct_sb_lit(b, ",\"error\":false");
		}
		if (ev->has_ret_handle) {
			ct_sb_lit(b, ",\"ret\":\"");
			ct_sb_hex(b, ev->ret_handle);
			ct_sb_ch(b, '"');
		}
	}
	ct_sb_lit(b, ",\"args\":{");
	for (int i = 0; i < ev->n_fields; i++) {
		if (i)
			ct_sb_ch(b, ',');
		put_cached(b, &t->keys[i]);
		ct_json_field_sb(b, &ev->fields[i]);
	}
	ct_sb_lit(b, "}}\n");
	return b->len >= JSONL_FLUSH ? jsonl_write(s) : 0;
}

static int jsonl_tick(void *ctx, uint64_t now_ns)
{
	return jsonl_write(ctx);
}

static int jsonl_close(void *ctx, const struct ct_run_stats *st)
{
	return jsonl_write(ctx);
}

static void jsonl_destroy(void *ctx)
{
	struct jsonl_sink *s = ctx;

	for (size_t i = 0; s->cache && i < JSONL_CACHE; i++) {
		ct_sb_free(&s->cache[i].head);
		for (int k = 0; k < CT_MAX_ARGS; k++)
			ct_sb_free(&s->cache[i].keys[k]);
	}
	free(s->cache);
	ct_sb_free(&s->b);
}

const struct ct_sink_ops ct_sink_jsonl = {
	.type = "jsonl",
	.help = "One JSON object per call, one per line (schema: docs/events.md)",
	.keys = NULL,
	.ctx_size = sizeof(struct jsonl_sink),
	.wants_file = true,
	.open = jsonl_open,
	.event = jsonl_event,
	.tick = jsonl_tick,
	.close = jsonl_close,
	.destroy = jsonl_destroy,
};
