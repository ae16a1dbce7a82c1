// SPDX-License-Identifier: MIT
/* jsonl: one JSON object per call (schema in docs/events.md). */
#include <inttypes.h>
#include <stdio.h>
#include "sink.h"

struct jsonl_sink {
	struct ct_sink_common c;
};

static int jsonl_open(void *ctx)
{
	return 0;
}

static int jsonl_event(void *ctx, const struct ct_event *ev)
{
	struct jsonl_sink *s = ctx;
	FILE *out = s->c.out;

	fprintf(out, "{\"ts_ns\":%" PRIu64 ",\"plugin\":", ev->ts_ns);
	ct_json_str(out, ev->plugin->name);
	fputs(",\"api\":", out);
	ct_json_str(out, ev->api->symbol);
	fprintf(out, ",\"pid\":%u,\"tid\":%u,\"comm\":", ev->pid, ev->tid);
	ct_json_str(out, ev->comm);
	fprintf(out, ",\"depth\":%u", ev->depth);
	if (ev->entry_only) {
		fputs(",\"entry_only\":true", out);
	} else {
		fprintf(out, ",\"dur_ns\":%" PRIu64, ev->dur_ns);
		if (ev->has_result) {
			fprintf(out, ",\"result\":%" PRId64 ",\"result_name\":", ev->result);
			if (ev->result_name)
				ct_json_str(out, ev->result_name);
			else
				fputs("null", out);
			fprintf(out, ",\"error\":%s", ev->is_error ? "true" : "false");
		}
		if (ev->has_ret_handle)
			fprintf(out, ",\"ret\":\"0x%" PRIx64 "\"", ev->ret_handle);
	}
	fputs(",\"args\":{", out);
	for (int i = 0; i < ev->n_fields; i++) {
		if (i)
			fputc(',', out);
		ct_json_str(out, ev->fields[i].arg->name);
		fputc(':', out);
		ct_json_field(out, &ev->fields[i]);
	}
	fputs("}}\n", out);
	return 0;
}

static int jsonl_close(void *ctx, const struct ct_run_stats *st)
{
	return 0;
}

const struct ct_sink_ops ct_sink_jsonl = {
	.type = "jsonl",
	.help = "One JSON object per call, one per line (schema: docs/events.md)",
	.keys = NULL,
	.ctx_size = sizeof(struct jsonl_sink),
	.wants_file = true,
	.open = jsonl_open,
	.event = jsonl_event,
	.close = jsonl_close,
};
