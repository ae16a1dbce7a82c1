// SPDX-License-Identifier: MIT
/*
 * The open sinks. Each sink writes through its own buffered FILE; a sink
 * that fails (a full disk, a reader that went away) is reported once and
 * stopped, and the others keep going.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/log.h"
#include "sinks/output.h"
#include "sinks/sinkio.h"

#define CT_SINK_BUF (1 << 20)

static struct ct_sink_common *common(struct ct_sink_conf *s)
{
	return s->ctx;
}

static void sink_failed(struct ct_output *o, int i, const char *what, int err)
{
	struct ct_sink_conf *s = &o->conf->sinks[i];
	const char *path = common(s)->path ? common(s)->path : "-";

	if (o->dead[i])
		return;
	o->dead[i] = true;
	ct_err("sink '%s' (%s, %s): %s failed: %s; this sink stops, the others go on",
	       s->name, s->ops->type, path, what, strerror(err));
}

int ct_output_open(struct ct_output *o, struct ct_config *conf)
{
	int err = 0;

	o->conf = conf;
	o->dead = calloc(conf->n_sinks + 1, sizeof(bool));
	o->opened = calloc(conf->n_sinks + 1, sizeof(bool));
	if (!o->dead || !o->opened)
		return -ENOMEM;
	for (int i = 0; i < conf->n_sinks; i++) {
		struct ct_sink_conf *s = &conf->sinks[i];
		struct ct_sink_common *c = common(s);
		char what[96];

		snprintf(what, sizeof(what), "sink '%s'", s->name);
		err = ct_out_open(what, c->path, &c->out);
		if (err)
			return err;
		setvbuf(c->out, NULL, _IOFBF, CT_SINK_BUF);
		err = s->ops->open ? s->ops->open(s->ctx) : 0;
		if (err) {
			ct_err("sink '%s' (%s) could not start: %s", s->name, s->ops->type, strerror(-err));
			return err;
		}
		o->opened[i] = true;
	}
	return 0;
}

void ct_output_event(struct ct_output *o, const struct ct_event *ev)
{
	for (int i = 0; i < o->conf->n_sinks; i++) {
		struct ct_sink_conf *s = &o->conf->sinks[i];
		int err;

		if (o->dead[i])
			continue;
		err = s->ops->event(s->ctx, ev);
		if (err)
			sink_failed(o, i, "writing an event", -err);
	}
}

void ct_output_tick(struct ct_output *o, uint64_t now_ns)
{
	for (int i = 0; i < o->conf->n_sinks; i++) {
		struct ct_sink_conf *s = &o->conf->sinks[i];
		FILE *out = common(s)->out;

		if (o->dead[i])
			continue;
		if (s->ops->tick) {
			int err = s->ops->tick(s->ctx, now_ns);

			if (err)
				sink_failed(o, i, "a periodic report", -err);
		}
		if (out && (fflush(out) || ferror(out)))
			sink_failed(o, i, "writing", errno ? errno : EIO);
	}
}

void ct_output_totals(struct ct_output *o, const struct ct_totals *t)
{
	for (int i = 0; i < o->conf->n_sinks; i++) {
		struct ct_sink_conf *s = &o->conf->sinks[i];
		int err;

		if (o->dead[i] || !s->ops->totals)
			continue;
		err = s->ops->totals(s->ctx, t);
		if (err)
			sink_failed(o, i, "taking the kernel's counts", -err);
	}
}

void ct_output_gpu(struct ct_output *o, const struct ct_gpu_event *g)
{
	for (int i = 0; i < o->conf->n_sinks; i++) {
		struct ct_sink_conf *s = &o->conf->sinks[i];
		int err;

		if (o->dead[i] || !s->ops->gpu)
			continue;
		err = s->ops->gpu(s->ctx, g);
		if (err)
			sink_failed(o, i, "writing GPU activity", -err);
	}
}

void ct_output_proc_exit(struct ct_output *o, uint32_t pid, uint64_t ts_ns)
{
	for (int i = 0; i < o->conf->n_sinks; i++) {
		struct ct_sink_conf *s = &o->conf->sinks[i];

		if (!o->dead[i] && s->ops->proc_exit)
			s->ops->proc_exit(s->ctx, pid, ts_ns);
	}
}

int ct_output_close(struct ct_output *o, const struct ct_run_stats *st)
{
	int ret = 0;

	for (int i = 0; o->conf && i < o->conf->n_sinks; i++) {
		struct ct_sink_conf *s = &o->conf->sinks[i];
		struct ct_sink_common *c = s->ctx ? common(s) : NULL;

		if (o->opened && o->opened[i] && !o->dead[i] && s->ops->close) {
			int err = s->ops->close(s->ctx, st);

			if (err)
				sink_failed(o, i, "the final report", -err);
		}
		if (c && c->out) {
			errno = 0;
			if ((fflush(c->out) || ferror(c->out)) && !o->dead[i])
				sink_failed(o, i, "writing", errno ? errno : EIO);
			if (c->out != stdout && fclose(c->out) && !o->dead[i])
				sink_failed(o, i, "closing", errno);
			c->out = NULL;
		}
		if (o->opened && o->opened[i] && s->ops->destroy)
			s->ops->destroy(s->ctx);
		if (o->dead && o->dead[i])
			ret = -EIO;
	}
	free(o->dead);
	free(o->opened);
	o->dead = o->opened = NULL;
	return ret;
}
