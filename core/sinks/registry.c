// SPDX-License-Identifier: MIT
/* The sink types, one row each. Adding a sink is adding its ops here. */
#include <string.h>
#include "sinks/sink.h"

extern const struct ct_sink_ops ct_sink_text;
extern const struct ct_sink_ops ct_sink_jsonl;
extern const struct ct_sink_ops ct_sink_summary;
extern const struct ct_sink_ops ct_sink_csv;
extern const struct ct_sink_ops ct_sink_chrome;
extern const struct ct_sink_ops ct_sink_memory;
extern const struct ct_sink_ops ct_sink_html;
extern const struct ct_sink_ops ct_sink_prometheus;
extern const struct ct_sink_ops ct_sink_remote_write;
extern const struct ct_sink_ops ct_sink_otlp;
extern const struct ct_sink_ops ct_sink_sqlite;

const struct ct_sink_ops *const ct_sink_types[] = {
	&ct_sink_text,
	&ct_sink_jsonl,
	&ct_sink_summary,
	&ct_sink_csv,
	&ct_sink_chrome,
	&ct_sink_memory,
	&ct_sink_html,
	&ct_sink_prometheus,
	&ct_sink_remote_write,
	&ct_sink_otlp,
	&ct_sink_sqlite,
	NULL,
};

const struct ct_sink_ops *ct_sink_find(const char *type)
{
	for (int i = 0; ct_sink_types[i]; i++)
		if (!strcmp(ct_sink_types[i]->type, type))
			return ct_sink_types[i];
	return NULL;
}
