// SPDX-License-Identifier: MIT
/*
 * csv sink: a header row, then one row per call, quoted as RFC 4180 says
 * (fields with a comma or quote in double quotes, quotes doubled, CRLF line
 * ends); control bytes, line breaks among them, escaped as \x0a. The decoded arguments share one column,
 * a JSON object ({"devPtr":"0x7f..","size":4096}), because each API has its
 * own: one column a name would be empty for most rows, and a JSON parser
 * takes the object apart without guessing where a value ends. Rows are built in one
 * buffer and handed to stdio in large writes.
 * The device column comes last. GPU activity (--gpu-activity) is not written
 * here: its rows would need columns of their own (jsonl, chrome and summary
 * have it).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "sinks/sink.h"
#include "sinks/sinkio.h"
#include "util/strbuf.h"

#define CSV_FLUSH (64 * 1024)
/* A row beside its escaped strings (the numbers and separators). */
#define CSV_ROW_MAX 1024

struct csv_ctx {
	struct ct_sink_common c;
	bool header;
	struct ct_sb b;
	struct ct_sb args; /* the row's arguments as a JSON object, reused */
};

static const struct ct_key csv_keys[] = {
	{ "header", CT_KEY_BOOL, "true", offsetof(struct csv_ctx, header),
	  "Write a header row first" },
	{ 0 },
};

/* One field into the buffer (room reserved by the caller). */
static void csv_field(struct ct_sb *b, const char *s)
{
	CT_SB_APPLY(b, ct_w_csv_field(b->p + b->len, s));
}

static int csv_write(struct csv_ctx *s)
{
	size_t n = s->b.len;

	s->b.len = 0;
	if (fwrite(s->b.p, 1, n, s->c.out) != n)
		return -(errno ? errno : EIO);
	return 0;
}

static int csv_open(void *ctx)
{
	struct csv_ctx *s = ctx;

	if (!ct_sb_room(&s->b, CSV_FLUSH + CSV_ROW_MAX))
		return -ENOMEM;
	if (s->header)
		ct_sb_lit(&s->b, "ts_ns,pid,tid,comm,plugin,api,dur_ns,depth,result,error,bytes,args,device\r\n");
	return 0;
}

static int csv_event(void *ctx, const struct ct_event *ev)
{
	struct csv_ctx *s = ctx;
	struct ct_sb *b = &s->b;
	uint32_t flags = ev->api ? ev->api->flags : 0;

	if (ct_args_json(&s->args, ev))
		return -ENOMEM;
	if (!ct_sb_room(b, CSV_ROW_MAX + ct_csv_field_max(s->args.p) + ct_csv_field_max(ev->comm) +
			       ct_csv_field_max(ev->plugin ? ev->plugin->name : NULL) +
			       ct_csv_field_max(ev->api ? ev->api->symbol : NULL) +
			       ct_csv_field_max(ev->result_name)))
		return -ENOMEM;
	ct_sb_u64(b, ev->ts_ns);
	ct_sb_ch(b, ',');
	ct_sb_u64(b, ev->pid);
	ct_sb_ch(b, ',');
	ct_sb_u64(b, ev->tid);
	ct_sb_ch(b, ',');
	csv_field(b, ev->comm);
	ct_sb_ch(b, ',');
	csv_field(b, ev->plugin ? ev->plugin->name : NULL);
	ct_sb_ch(b, ',');
	csv_field(b, ev->api ? ev->api->symbol : NULL);
	ct_sb_ch(b, ',');
	if (!ev->entry_only)
		ct_sb_u64(b, ev->dur_ns);
	ct_sb_ch(b, ',');
	ct_sb_u64(b, ev->depth);
	ct_sb_ch(b, ',');
	if (ev->has_result && ev->result_name)
		csv_field(b, ev->result_name);
	else if (ev->has_result)
		ct_sb_i64(b, ev->result);
	if (ev->is_error)
		ct_sb_lit(b, ",1,");
	else
		ct_sb_lit(b, ",0,");
	if (ct_api_has_bytes(flags))
		ct_sb_u64(b, ct_event_bytes(ev));
	ct_sb_ch(b, ',');
	csv_field(b, s->args.p);
	ct_sb_ch(b, ','); /* the thread's current device; empty: not known */
	if (ev->device >= 0)
		ct_sb_u64(b, (uint64_t)ev->device);
	ct_sb_lit(b, "\r\n");
	return b->len >= CSV_FLUSH ? csv_write(s) : 0;
}

static int csv_tick(void *ctx, uint64_t now_ns)
{
	struct csv_ctx *s = ctx;
	int err = csv_write(s);

	/* whole rows on disk about once a second, for tail -f and for crashes */
	if (!err && fflush(s->c.out))
		err = -errno;
	return err;
}

static int csv_close(void *ctx, const struct ct_run_stats *st)
{
	return csv_tick(ctx, 0);
}

static void csv_destroy(void *ctx)
{
	struct csv_ctx *s = ctx;

	ct_sb_free(&s->b);
	ct_sb_free(&s->args);
}

const struct ct_sink_ops ct_sink_csv = {
	.type = "csv",
	.where_help = "one CSV row per call",
	.file_ext = "csv",
	.rotatable = true,
	.help = "One row per call, RFC 4180; the decoded arguments in one column as a JSON object",
	.keys = csv_keys,
	.ctx_size = sizeof(struct csv_ctx),
	.open = csv_open,
	.event = csv_event,
	.tick = csv_tick,
	.close = csv_close,
	.destroy = csv_destroy,
};
