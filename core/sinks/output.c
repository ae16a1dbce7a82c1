// SPDX-License-Identifier: MIT
/*
 * The open sinks. Each sink writes through its own buffered FILE; a sink
 * that fails (a full disk, a reader that went away) is reported once and
 * stopped, and the others keep going.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "util/log.h"
#include "sinks/listeners.h"
#include "sinks/output.h"
#include "sinks/rotate.h"
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
	o->why[i] = err;
	o->n_dead++;
	ct_err("sink '%s' (%s, %s): %s failed: %s; %s", s->name, s->ops->type, path, what, strerror(err),
	       ct_output_all_dead(o) ? "no sink is left" : "this sink stops, the others go on");
}

bool ct_output_all_dead(const struct ct_output *o)
{
	return o->conf && o->conf->n_sinks && o->n_dead >= o->conf->n_sinks;
}

/* The descriptor (1 or 2) of the command's that the file `a` is, or 0. */
static int command_stream(const struct stat *a)
{
	struct stat b;

	if (ct_out_is_dev_null(a))
		return 0;
	for (int fd = 1; fd <= 2; fd++)
		if (!fstat(fd, &b) && a->st_dev == b.st_dev && a->st_ino == b.st_ino)
			return fd;
	return 0;
}

/* The command's name as part of a file name: letters, digits, . _ - only. */
static void name_part(char *buf, size_t n, const char *argv0)
{
	const char *base = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
	size_t i = 0;

	for (; base[i] && i + 1 < n; i++)
		buf[i] = isalnum((unsigned char)base[i]) || strchr("._-", base[i]) ? base[i] : '_';
	buf[i] = 0;
	if (!i || buf[0] == '.')
		snprintf(buf, n, "cmd");
}

/* A new file cudatracer-COMMAND-PID[-N].EXT, never one that is there. */
static int open_new_file(struct ct_sink_conf *s, const struct ct_output_cmd *cmd, const char *what)
{
	struct ct_sink_common *c = common(s);
	char comm[40], path[128];
	int err = -EEXIST;

	name_part(comm, sizeof(comm), cmd->argv0);
	for (int i = 1; err == -EEXIST && i <= 100; i++) {
		if (i == 1)
			snprintf(path, sizeof(path), "cudatracer-%s-%d.%s", comm, cmd->pid, s->ops->file_ext);
		else
			snprintf(path, sizeof(path), "cudatracer-%s-%d-%d.%s", comm, cmd->pid, i, s->ops->file_ext);
		err = ct_out_create(what, path, &c->out);
	}
	if (err == -EEXIST)
		ct_err("%s: cudatracer-%s-%d.%s and the next 99 names are taken: give a path (-o %s:PATH)", what,
		       comm, cmd->pid, s->ops->file_ext, s->ops->type);
	if (err)
		return err;
	c->path = strdup(path);
	if (!c->path)
		return -ENOMEM;
	ct_note("%s (%s) writes %s", what, s->ops->type, path);
	return 0;
}

static int refuse_shared(const struct ct_sink_conf *s, const struct ct_output_cmd *cmd, int fd)
{
	const char *path = common((struct ct_sink_conf *)s)->path;

	ct_err("sink '%s' (%s): %s is where %s writes its standard %s too, and its output would be mixed into "
	       "the %s file: leave the path out (a new file cudatracer-COMMAND-PID.%s is written), or give "
	       "another", s->name, s->ops->type, path ? path : "-", cmd->argv0, fd == 1 ? "output" : "error",
	       s->ops->type, s->ops->file_ext);
	return -EINVAL;
}

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The sink's open on its file; with rotation, its first lines (a header,
 * the meta line) written through, so a file of nothing else is not rotated. */
static int start_sink(struct ct_output *o, int i)
{
	struct ct_sink_conf *s = &o->conf->sinks[i];
	int err = s->ops->open ? s->ops->open(s->ctx) : 0;

	if (err) {
		ct_err("sink '%s' (%s) could not start: %s", s->name, s->ops->type, strerror(-err));
		return err;
	}
	o->opened[i] = true;
	if (o->rot[i]) {
		err = s->ops->tick ? s->ops->tick(s->ctx, 0) : 0;
		if (err)
			return err;
		ct_rotor_begin(o->rot[i], common(s)->out);
	}
	return 0;
}

/*
 * The file renamed aside, finished as at the end (a chrome trace's closing
 * bracket) and closed; the sink begun again from the context the config
 * left, on a new file at its path: each file stands alone (a jsonl's meta
 * line, a csv's header). Between two events: none is lost or split.
 */
static void rotate(struct ct_output *o, int i)
{
	struct ct_sink_conf *s = &o->conf->sinks[i];
	struct ct_sink_common *c = common(s);
	uint64_t t0 = mono_now();
	char what[96];
	int err;

	if (ct_rotor_rename(o->rot[i], c->out))
		return; /* said; the file goes on */
	err = s->ops->close ? s->ops->close(s->ctx, NULL) : 0;
	if (err) {
		sink_failed(o, i, "finishing a rotated file", -err);
		return;
	}
	errno = 0;
	err = fflush(c->out) || ferror(c->out) ? (errno ? errno : EIO) : 0;
	if (fclose(c->out) && !err)
		err = errno ? errno : EIO;
	c->out = NULL;
	if (s->ops->destroy)
		s->ops->destroy(s->ctx);
	o->opened[i] = false;
	if (err) {
		sink_failed(o, i, "closing a rotated file", err);
		return;
	}
	ct_rotor_finished(o->rot[i]);
	memcpy(s->ctx, o->pristine[i], s->ops->ctx_size);
	snprintf(what, sizeof(what), "sink '%s'", s->name);
	err = ct_out_open_mode(what, c->path, CT_OUT_EMPTY, &c->out);
	if (!err) {
		setvbuf(c->out, NULL, _IOFBF, CT_SINK_BUF);
		err = start_sink(o, i);
	}
	if (err)
		sink_failed(o, i, "beginning a new file after a rotation", -err);
	else
		ct_info("sink '%s': %s rotated to %s (%.1f ms)", s->name, c->path, ct_rotor_rotated(o->rot[i]),
			(double)(mono_now() - t0) / 1e6);
}

int ct_output_open_cmd(struct ct_output *o, struct ct_config *conf, const struct ct_output_cmd *cmd)
{
	int err = 0;

	o->conf = conf;
	o->dead = calloc(conf->n_sinks + 1, sizeof(bool));
	o->why = calloc(conf->n_sinks + 1, sizeof(int));
	o->n_dead = 0;
	o->opened = calloc(conf->n_sinks + 1, sizeof(bool));
	o->live = calloc(conf->n_sinks + 1, sizeof(bool));
	o->named = calloc(conf->n_sinks + 1, sizeof(bool));
	o->rot = calloc(conf->n_sinks + 1, sizeof(*o->rot));
	o->pristine = calloc(conf->n_sinks + 1, sizeof(*o->pristine));
	if (!o->dead || !o->why || !o->opened || !o->live || !o->named || !o->rot || !o->pristine)
		return -ENOMEM;
	for (int i = 0; i < conf->n_sinks; i++) {
		struct ct_sink_conf *s = &conf->sinks[i];
		struct ct_sink_common *c = common(s);
		bool file_format = cmd && s->ops->file_ext;
		struct stat st;
		char what[96];
		int fd;

		snprintf(what, sizeof(what), "sink '%s'", s->name);
		/* Looked at before the open, which would empty the file (the
		 * shell's >> keeps what it held), and after, on what was opened. */
		if (file_format && c->path && strcmp(c->path, "-") && !stat(c->path, &st) &&
		    (fd = command_stream(&st)))
			return refuse_shared(s, cmd, fd);
		/* A daemon's session before finished the file: renamed aside as at a
		 * rotation, so this session begins a new one at the path. */
		if (ct_rotate_on(&c->rot) && c->rotate_aside) {
			err = ct_rotor_new(&o->rot[i], what, c->path, &c->rot);
			if (!err)
				err = ct_rotor_rename(o->rot[i], NULL);
			if (err)
				return err;
			ct_rotor_finished(o->rot[i]);
		}
		if (file_format && !c->path) {
			err = open_new_file(s, cmd, what);
			o->named[i] = !err;
		} else {
			err = ct_out_open_mode(what, c->path, c->out_mode, &c->out);
		}
		if (err)
			return err;
		if (file_format && !fstat(fileno(c->out), &st) && (fd = command_stream(&st)))
			return refuse_shared(s, cmd, fd);
		setvbuf(c->out, NULL, _IOFBF, CT_SINK_BUF);
		o->live[i] = !fstat(fileno(c->out), &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
							    isatty(fileno(c->out)));
		if (ct_rotate_on(&c->rot)) {
			o->pristine[i] = malloc(s->ops->ctx_size);
			if (!o->pristine[i])
				return -ENOMEM;
			memcpy(o->pristine[i], s->ctx, s->ops->ctx_size);
			err = o->rot[i] ? 0 : ct_rotor_new(&o->rot[i], what, c->path, &c->rot);
			if (!err)
				err = ct_rotor_attach(o->rot[i], c->out);
			if (err)
				return err;
		}
		err = start_sink(o, i);
		if (err)
			return err;
	}
	/* Those a daemon's session before kept that no sink here took (another
	 * address now): closed only once the new ones listen. */
	ct_listeners_close_unclaimed();
	return 0;
}

int ct_output_open(struct ct_output *o, struct ct_config *conf)
{
	return ct_output_open_cmd(o, conf, NULL);
}

void ct_output_flush_live(struct ct_output *o)
{
	for (int i = 0; i < o->conf->n_sinks; i++) {
		FILE *out = common(&o->conf->sinks[i])->out;

		if (o->live[i] && !o->dead[i] && out && (fflush(out) || ferror(out)))
			sink_failed(o, i, "writing", errno ? errno : EIO);
		if (!o->dead[i] && ct_rotor_due(o->rot[i], out, false))
			rotate(o, i);
	}
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
		if (!o->dead[i] && ct_rotor_due(o->rot[i], out, true))
			rotate(o, i);
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

void ct_output_stats(struct ct_output *o, const struct ct_run_stats *st)
{
	for (int i = 0; i < o->conf->n_sinks; i++) {
		struct ct_sink_conf *s = &o->conf->sinks[i];

		if (!o->dead[i] && s->ops->stats)
			s->ops->stats(s->ctx, st);
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

void ct_output_hang(struct ct_output *o, const struct ct_hang *h)
{
	for (int i = 0; i < o->conf->n_sinks; i++) {
		struct ct_sink_conf *s = &o->conf->sinks[i];
		int err;

		if (o->dead[i] || !s->ops->hang)
			continue;
		err = s->ops->hang(s->ctx, h);
		if (err)
			sink_failed(o, i, "writing a hang", -err);
	}
}

void ct_output_nvtx(struct ct_output *o, const struct ct_nvtx_event *r)
{
	for (int i = 0; i < o->conf->n_sinks; i++) {
		struct ct_sink_conf *s = &o->conf->sinks[i];
		int err;

		if (o->dead[i] || !s->ops->nvtx)
			continue;
		err = s->ops->nvtx(s->ctx, r);
		if (err)
			sink_failed(o, i, "writing an NVTX range", -err);
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
		/* Its last compression and removals done before the run ends. */
		if (o->rot)
			ct_rotor_free(o->rot[i]);
		if (o->pristine)
			free(o->pristine[i]);
		if (o->dead && o->dead[i]) {
			if (o->why[i])
				ct_err("sink '%s' (%s, %s) failed: %s: what it wrote is incomplete", s->name,
				       s->ops->type, c && c->path ? c->path : "-", strerror(o->why[i]));
			ret = -EIO;
		} else if (o->named && o->named[i])
			ct_note("sink '%s' (%s) wrote %s", s->name, s->ops->type, c->path);
	}
	free(o->dead);
	free(o->why);
	free(o->opened);
	free(o->live);
	free(o->named);
	free(o->rot);
	free(o->pristine);
	o->rot = NULL;
	o->pristine = NULL;
	o->dead = o->opened = o->live = o->named = NULL;
	o->why = NULL;
	return ret;
}

void ct_output_abandon(struct ct_output *o)
{
	/* A dead sink gets no final call, and its end is not said again. */
	for (int i = 0; o->dead && o->conf && i < o->conf->n_sinks; i++)
		o->dead[i] = true;
	ct_output_close(o, NULL);
}
