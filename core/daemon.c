// SPDX-License-Identifier: MIT
/*
 * Daemon mode (daemon.h; docs/daemon.md). A reload is the start again, in
 * the same process: the new config is read and checked whole while the
 * running session goes on (every key and value, the daemon's own rules,
 * each plugin loaded once, each output file opened for writing); refused,
 * nothing changes and the log says why, with file:line. Accepted, the
 * running session stops as it would at SIGTERM (drained, every sink closed,
 * its files complete) and a session is built from the new config by the
 * same code that built the first: there is no second path through setup
 * to keep right. What a session holds (counters, the probes) starts anew,
 * but for a listening socket, which goes from the old session's sink to the
 * new one's (listeners.h); a file an earlier session wrote is never emptied
 * (continue_files). Should the new session still fail to start, the one
 * before is started again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/random.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "control/server.h"
#include "daemon.h"
#include "plugin/loader.h"
#include "session.h"
#include "sinks/listeners.h"
#include "sinks/sinkio.h"
#include "util/log.h"

void ct_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = path ? strlen(path) : 0;
	int fd;

	/* A path, or '@' for a name in the abstract namespace (systemd's own). */
	if (!path || (path[0] != '/' && path[0] != '@') || len < 2 || len >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = 0;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
			     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		ct_info("cannot tell systemd %s at %s: %s", state, path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* Sinks whose output is a listener or an endpoint: their path (the final
 * values as text) is an extra, and they need none. */
static const char *const served_sinks[] = { "prometheus", "remote_write", "otlp" };

static bool served(const struct ct_sink_conf *s)
{
	for (size_t i = 0; i < sizeof(served_sinks) / sizeof(served_sinks[0]); i++)
		if (!strcmp(s->ops->type, served_sinks[i]))
			return true;
	return false;
}

static const char *sink_path(const struct ct_sink_conf *s)
{
	return ((const struct ct_sink_common *)s->ctx)->path;
}

/* "FILE:LINE: " of a sink's section, or "" for one given by -o. */
static const char *sink_where(const struct ct_sink_conf *s, char *buf, size_t n)
{
	if (s->file)
		snprintf(buf, n, "%s:%d: ", s->file, s->line);
	else
		buf[0] = 0;
	return buf;
}

int ct_daemon_check(const struct ct_config *c, const char *file)
{
	const char *from = file ? file : "the command line";
	char where[PATH_MAX + 16];

	if (c->filter.pid) {
		ct_err("%s: tracer.daemon traces every process: filter.pid (-p) %llu has no place in it", from,
		       (unsigned long long)c->filter.pid);
		return -EINVAL;
	}
	if (c->tracer.gpu_activity) {
		ct_err("%s: tracer.daemon traces every process: tracer.gpu_activity needs a command", from);
		return -EINVAL;
	}
	if (c->tracer.duration) {
		ct_err("%s: tracer.daemon runs until SIGTERM: tracer.duration (--duration) has no place in it; for a "
		       "window on one process, ask the daemon: cudatracer capture -p PID --duration D -o FILE", from);
		return -EINVAL;
	}
	if (!c->n_sinks) {
		ct_err("%s: tracer.daemon and no sink: a daemon has no terminal to show calls on; add one "
		       "([sink.metrics] type = prometheus, or -o jsonl:/var/lib/cudatracer/calls.jsonl)", from);
		return -EINVAL;
	}
	for (int i = 0; i < c->n_sinks; i++) {
		const struct ct_sink_conf *s = &c->sinks[i];
		const char *path = sink_path(s);

		if ((path && !strcmp(path, "-")) || (!path && !served(s))) {
			ct_err("%ssink '%s' (%s) writes to standard output, and tracer.daemon has none to give it "
			       "(under systemd it is the journal): give it path = FILE", sink_where(s, where, sizeof(where)),
			       s->name, s->ops->type);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * What setup would trip on, tried before the running session is stopped:
 * each plugin loads; each output file could be opened to write.
 *
 * A sink's file is looked at through one O_PATH descriptor, which opens
 * nothing for writing, creates nothing and follows nothing: a device named
 * as a sink is not opened (opening some does something), and a link planted
 * in a folder others may write to is seen as the link. A link another user
 * owns is refused here as ct_out_open refuses it at start; what is allowed
 * is left to the new session's ct_out_open, the one opener of output files.
 */
static int output_writable(const char *path)
{
	char *dir, *slash;
	struct statvfs vfs;
	struct stat st;
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC), err = 0;

	if (fd >= 0) {
		if (fstat(fd, &st))
			err = -errno;
		else if (S_ISLNK(st.st_mode))
			err = st.st_uid == 0 || st.st_uid == geteuid() ? 0 : -EPERM;
		else if (S_ISDIR(st.st_mode))
			err = -EISDIR;
		else if (S_ISREG(st.st_mode) && !fstatvfs(fd, &vfs) && (vfs.f_flag & ST_RDONLY))
			err = -EROFS;
		close(fd);
		return err;
	}
	if (errno != ENOENT)
		return -errno;
	dir = strdup(path);
	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	fd = open(slash ? dir : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -ENOENT; /* the file, and its folder, are not there */
	if (!fstatvfs(fd, &vfs) && (vfs.f_flag & ST_RDONLY))
		err = -EROFS;
	close(fd);
	return err;
}

int ct_daemon_precheck(const struct ct_config *c)
{
	char **dirs = ct_plugin_dirs(c->tracer.plugin_path);
	char where[PATH_MAX + 16];
	int err = dirs ? 0 : -ENOMEM;

	for (size_t i = 0; !err && i < c->tracer.plugins.n; i++) {
		struct ct_loaded_plugin lp;

		err = ct_plugin_load(c->tracer.plugins.v[i], dirs, &lp);
		if (!err)
			ct_plugin_unload(&lp);
	}
	ct_plugin_dirs_free(dirs);
	for (int i = 0; !err && i < c->n_sinks; i++) {
		const struct ct_sink_conf *s = &c->sinks[i];
		const char *path = sink_path(s);

		if (!path)
			continue;
		err = output_writable(path);
		if (err)
			ct_err("%ssink '%s' (%s): cannot open %s for writing: %s", sink_where(s, where, sizeof(where)),
			       s->name, s->ops->type, path, strerror(-err));
	}
	return err;
}

/* The files the daemon's sessions have written, so far. */
struct written {
	char **path;
	size_t n;
};

static bool was_written(const struct written *w, const char *path)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->path[i], path))
			return true;
	return false;
}

/* After a session that started: its files are the daemon's from now on
 * (a file it wrote beside one of them is named by no config: not kept). */
static int note_written(struct written *w, const struct ct_config *c)
{
	for (int i = 0; i < c->n_sinks; i++) {
		const struct ct_sink_common *sc = c->sinks[i].ctx;
		char **grown;

		if (!sc->path || served(&c->sinks[i]) || sc->out_mode == CT_OUT_NEW || was_written(w, sc->path))
			continue;
		grown = realloc(w->path, (w->n + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		w->path = grown;
		w->path[w->n] = strdup(sc->path);
		if (!w->path[w->n])
			return -ENOMEM;
		w->n++;
	}
	return 0;
}

static void written_free(struct written *w)
{
	while (w->n)
		free(w->path[--w->n]);
	free(w->path);
}

/*
 * PATH's name with a random part before its extension (trace.json:
 * trace.k3J9qa2b.json), in PATH's folder: a name no one can have made
 * ready for us, created by the session only if it is new (O_EXCL).
 */
static char *beside(const char *path)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path, *dot = strrchr(base, '.');
	size_t stem = dot && dot != base ? (size_t)(dot - path) : strlen(path);
	unsigned char rnd[8];
	char *out = malloc(strlen(path) + sizeof(rnd) + 2), *w;

	if (!out || getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		free(out);
		return NULL;
	}
	memcpy(out, path, stem);
	w = out + stem;
	*w++ = '.';
	for (size_t i = 0; i < sizeof(rnd); i++)
		*w++ = set[rnd[i] % (sizeof(set) - 1)];
	strcpy(w, path + stem);
	return out;
}

/*
 * A session after another never empties what one before it wrote: a file
 * of a format that can be continued (jsonl, text) is appended to; another
 * (a chrome trace ends in a bracket) is left finished, and this session
 * writes a new file beside it, said in the log. With rotation, such a
 * file is rotated aside instead; and a file at a rotated sink's path that no
 * session of this daemon wrote (a daemon before a restart, another boot's)
 * is rotated aside too, whatever its format: kept whole, with its own meta
 * line, never emptied nor continued by a tracer whose clocks it does not
 * share.
 */
static int continue_files(const struct written *w, struct ct_config *next)
{
	for (int i = 0; i < next->n_sinks; i++) {
		struct ct_sink_conf *s = &next->sinks[i];
		struct ct_sink_common *c = s->ctx;
		bool rotated = s->ops->rotatable && ct_rotate_on(&c->rot);
		struct stat st;
		char *other;

		if (!c->path || served(s) || (!was_written(w, c->path) && !rotated) || stat(c->path, &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (rotated && !was_written(w, c->path)) {
			c->rotate_aside = true;
			c->out_mode = CT_OUT_NEW;
			ct_info("sink '%s': %s, from before this daemon, is rotated", s->name, c->path);
			continue;
		}
		if (s->ops->appendable) {
			c->out_mode = CT_OUT_APPEND;
			ct_info("sink '%s': %s is continued", s->name, c->path);
			continue;
		}
		/* Rotated: set aside under its rotated name, as at a rotation,
		 * the path the current file's as always; created new, never
		 * emptied (a name taken fails the session, not the file). */
		if (rotated) {
			c->rotate_aside = true;
			c->out_mode = CT_OUT_NEW;
			ct_info("sink '%s': the finished %s is rotated", s->name, c->path);
			continue;
		}
		other = beside(c->path);
		if (!other) {
			int err = -errno;

			ct_err("sink '%s': cannot name a file beside %s: %s", s->name, c->path, strerror(-err));
			return err;
		}
		ct_note("sink '%s' (%s): the finished %s is kept; this session writes %s", s->name, s->ops->type,
			c->path, other);
		free(c->path);
		c->path = other;
		c->out_mode = CT_OUT_NEW;
	}
	return 0;
}

static void config_drop(struct ct_config *c)
{
	if (!c)
		return;
	ct_config_free(c);
	free(c);
}

struct daemon {
	ct_daemon_load_fn load;
	void *ctx;
	struct ct_config *next, *next_spare; /* an accepted reload: to run, and a copy not run */
	struct written written;
	struct ct_control control;   /* capture requests: across sessions */
	const struct ct_config *running;
};

/* From the running session's loop. */
static void on_serve(void *ctx)
{
	struct daemon *d = ctx;

	ct_control_serve(&d->control, d->running);
}

/*
 * The control socket of the first config, kept across reloads (a reload
 * that names another is said to take effect at the next start). Should it
 * not open (another daemon holds it, its folder is not root's alone), the
 * daemon traces on without it, said.
 */
static void control_open(struct daemon *d, const struct ct_config *c)
{
	const char *path = c->tracer.control_socket;

	if (!path || !*path)
		return;
	if (ct_control_open(&d->control, path))
		ct_warn("no capture requests: the control socket %s did not open (said above)", path);
}

/* A config read again and checked, with a copy of it to fall back on (a
 * config run once is not run again: its sinks' contexts are spent). */
static int load_pair(struct daemon *d, struct ct_config **run, struct ct_config **spare)
{
	struct ct_config *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	int err = a && b ? 0 : -ENOMEM;

	if (!err && (err = d->load(d->ctx, a))) {
		free(a); /* freed inside */
		a = NULL;
	}
	if (!err)
		err = ct_daemon_precheck(a);
	if (!err && (err = d->load(d->ctx, b))) {
		free(b);
		b = NULL;
	}
	if (err) {
		config_drop(a);
		config_drop(b);
		return err;
	}
	*run = a;
	*spare = b;
	return 0;
}

/* At SIGHUP, from the running session's loop. */
static int on_reload(void *ctx)
{
	struct daemon *d = ctx;
	char msg[96];
	struct timespec ts;

	ct_note("SIGHUP: reading the configuration again");
	config_drop(d->next);
	config_drop(d->next_spare);
	if (load_pair(d, &d->next, &d->next_spare)) {
		ct_err("reload refused (said above): tracing goes on with the configuration that was running");
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000);
	ct_notify(msg);
	ct_note("reload: the new configuration is valid; the session is built again from it");
	return 1;
}

int ct_daemon_run(struct ct_config *conf, ct_daemon_load_fn load, void *ctx)
{
	struct daemon d = { load, ctx, NULL, NULL, { NULL, 0 }, { 0 }, NULL };
	struct ct_config *run = malloc(sizeof(*run)), *spare = calloc(1, sizeof(*spare)), *back = NULL;
	struct ct_session_daemon sd = { on_reload, &d, on_serve, false, 0 };
	const struct ct_target t = { 0 };
	int ret = 1;

	if (!run || !spare) {
		free(run);
		free(spare);
		return 1;
	}
	*run = *conf;
	memset(conf, 0, sizeof(*conf));
	ct_control_init(&d.control);
	control_open(&d, run);
	ct_listeners_handover(true);
	if (load(ctx, spare)) {
		free(spare);
		spare = NULL;
	}
	for (;;) {
		sd.started = false;
		if (continue_files(&d.written, run)) {
			ret = 1;
			break;
		}
		d.running = run;
		ret = ct_session_run(run, &t, &sd);
		if (sd.started && note_written(&d.written, run)) {
			ret = 1;
			break;
		}
		if (ret == CT_SESSION_RELOAD) {
			config_drop(run);
			config_drop(back);
			back = spare; /* the running config's unrun copy: to go back to */
			run = d.next;
			spare = d.next_spare;
			d.next = d.next_spare = NULL;
			continue;
		}
		if (!sd.started && sd.stop_signal) {
			ret = 0; /* stopped while a session was being built */
		} else if (!sd.started && back) {
			ct_err("the new configuration did not start (said above): the one before is started again");
			config_drop(run);
			config_drop(spare);
			run = back;
			spare = back = NULL;
			continue;
		}
		break;
	}
	ct_control_close(&d.control);
	config_drop(run);
	config_drop(spare);
	config_drop(back);
	config_drop(d.next);
	config_drop(d.next_spare);
	written_free(&d.written);
	ct_listeners_handover(false);
	return ret;
}
