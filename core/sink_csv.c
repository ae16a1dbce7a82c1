// SPDX-License-Identifier: MIT
/*
 * csv sink: a header row, then one row per call, quoted as RFC 4180 says
 * (fields with a comma, quote or line break in double quotes, quotes
 * doubled, CRLF line ends). The decoded arguments share one column as
 * "name=value ..." because each API has its own.
 */
#include <errno.h>
#include <inttypes.h>
#include "sink.h"
#include "sinkio.h"

struct csv_ctx {
	struct ct_sink_common c;
	bool header;
};

static const struct ct_key csv_keys[] = {
	{ "header", CT_KEY_BOOL, "true", offsetof(struct csv_ctx, header),
	  "write a header row first" },
	{ 0 },
};

static int csv_open(void *ctx)
{
	struct csv_ctx *s = ctx;

	if (s->header)
		fputs("ts_ns,pid,tid,comm,plugin,api,dur_ns,depth,result,error,bytes,args\r\n", s->c.out);
	return 0;
}

static int csv_event(void *ctx, const struct ct_event *ev)
{
	struct csv_ctx *s = ctx;
	FILE *out = s->c.out;
	char buf[4096];
	uint32_t flags = ev->api ? ev->api->flags : 0;

	fprintf(out, "%" PRIu64 ",%u,%u,", ev->ts_ns, ev->pid, ev->tid);
	ct_csv_field(out, ev->comm);
	fputc(',', out);
	ct_csv_field(out, ev->plugin && ev->plugin->name ? ev->plugin->name : "");
	fputc(',', out);
	ct_csv_field(out, ev->api && ev->api->symbol ? ev->api->symbol : "");
	if (ev->entry_only)
		fprintf(out, ",,%u,", ev->depth);
	else
		fprintf(out, ",%" PRIu64 ",%u,", ev->dur_ns, ev->depth);
	ct_fmt_result(buf, sizeof(buf), ev);
	ct_csv_field(out, buf);
	fputs(ev->is_error ? ",1," : ",0,", out);
	if (flags & (CT_API_COPY | CT_API_SET | CT_API_ALLOC))
		fprintf(out, "%" PRIu64, ct_event_bytes(ev));
	fputc(',', out);
	ct_fmt_args(buf, sizeof(buf), ev);
	ct_csv_field(out, buf);
	fputs("\r\n", out);
	return ferror(out) ? -EIO : 0;
}

static int csv_tick(void *ctx, uint64_t now_ns)
{
	struct csv_ctx *s = ctx;

	/* whole rows on disk about once a second, for tail -f and for crashes */
	return fflush(s->c.out) ? -errno : 0;
}

static int csv_close(void *ctx, const struct ct_run_stats *st)
{
	struct csv_ctx *s = ctx;

	return fflush(s->c.out) ? -errno : 0;
}

const struct ct_sink_ops ct_sink_csv = {
	.type = "csv",
	.help = "one row per call, RFC 4180",
	.keys = csv_keys,
	.ctx_size = sizeof(struct csv_ctx),
	.wants_file = true,
	.open = csv_open,
	.event = csv_event,
	.tick = csv_tick,
	.close = csv_close,
};
