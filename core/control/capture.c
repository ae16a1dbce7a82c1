// SPDX-License-Identifier: MIT
/* One capture run for a request (capture.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "control/capture.h"
#include "sinks/sinkio.h"
#include "util/log.h"

/* What the run is given: the daemon's plugins and ring size, nothing of its
 * config file (its sinks, filters and daemon mode are the daemon's own). */
struct run_args {
	char *argv[24];
	char pid[24], window[32], plugins[1024], plugin_path[PATH_MAX + 32], ring[64];
};

static int run_args(struct run_args *a, const struct ct_capture_request *r, const struct ct_config *conf)
{
	const struct ct_list *pl = &conf->tracer.plugins;
	size_t len = 0;
	int n = 0;

	for (size_t i = 0; i < pl->n && len < sizeof(a->plugins); i++)
		len += (size_t)snprintf(a->plugins + len, sizeof(a->plugins) - len, "%s%s", i ? "," : "", pl->v[i]);
	if (len >= sizeof(a->plugins))
		return -ENAMETOOLONG;
	snprintf(a->pid, sizeof(a->pid), "%llu", (unsigned long long)r->pid);
	snprintf(a->window, sizeof(a->window), "%lluns", (unsigned long long)r->duration);
	snprintf(a->ring, sizeof(a->ring), "tracer.ringbuf_size=%llu", (unsigned long long)conf->tracer.ringbuf_size);
	a->argv[n++] = "cudatracer";
	a->argv[n++] = "--no-config";
	a->argv[n++] = "-P";
	a->argv[n++] = a->plugins;
	a->argv[n++] = "-C";
	a->argv[n++] = a->ring;
	if (conf->tracer.plugin_path && *conf->tracer.plugin_path) {
		if ((size_t)snprintf(a->plugin_path, sizeof(a->plugin_path), "tracer.plugin_path=%s",
				     conf->tracer.plugin_path) >= sizeof(a->plugin_path))
			return -ENAMETOOLONG;
		a->argv[n++] = "-C";
		a->argv[n++] = a->plugin_path;
	}
	if (r->stacks)
		a->argv[n++] = "--stacks";
	a->argv[n++] = "-p";
	a->argv[n++] = a->pid;
	a->argv[n++] = "--duration";
	a->argv[n++] = a->window;
	a->argv[n++] = "-o";
	a->argv[n++] = "jsonl:-";
	a->argv[n] = NULL;
	return 0;
}

/* The run, in the child: the file as stdout, the pipe as stderr, nothing
 * else of the daemon's (its BPF objects, sockets, the control socket). */
static void run_exec(struct run_args *a, int file_fd, int log_fd)
{
	int null = open("/dev/null", O_RDONLY);
	sigset_t none;

	if (null < 0 || dup2(null, 0) < 0 || dup2(file_fd, 1) < 0 || dup2(log_fd, 2) < 0)
		_exit(127);
	close_range(3, ~0u, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	unsetenv("NOTIFY_SOCKET"); /* systemd hears from the daemon alone */
	execv("/proc/self/exe", a->argv);
	dprintf(2, "cudatracer: error: cannot run /proc/self/exe: %s\n", strerror(errno));
	_exit(127);
}

int ct_capture_start(struct ct_capture *c, unsigned id, const struct ct_capture_request *r,
		     const struct ct_config *conf, int client, char *why, size_t n)
{
	struct run_args a;
	int pipefd[2] = { -1, -1 }, err;
	FILE *f = NULL;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	c->file_fd = c->log_fd = c->client = -1;
	if (r->gpu_activity) {
		snprintf(why, n, "GPU activity reaches a process only when the tracer starts it (tracer.gpu_activity "
			 "needs a command): a capture of a running process records its API calls alone");
		return -ENOTSUP;
	}
	if (kill((pid_t)r->pid, 0) && errno == ESRCH) {
		snprintf(why, n, "no process %llu", (unsigned long long)r->pid);
		return -ESRCH;
	}
	err = run_args(&a, r, conf);
	if (err) {
		snprintf(why, n, "the daemon's plugin list or plugin path is too long to pass on");
		return err;
	}
	err = ct_out_create_private("capture", r->output, &f);
	if (err) {
		snprintf(why, n, "cannot create %s: %s", r->output,
			 err == -EEXIST ? "it exists (a capture never overwrites a file)" :
			 err == -EPERM ? "refused (a link of another user's, or a folder others may change that is not "
					 "sticky: the daemon's log says which)" : strerror(-err));
		return err;
	}
	c->file_fd = fcntl(fileno(f), F_DUPFD_CLOEXEC, 3);
	fclose(f);
	c->path = strdup(r->output);
	if (c->file_fd < 0 || !c->path || pipe2(pipefd, O_CLOEXEC)) {
		err = -errno;
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto fail;
	}
	if (pid == 0)
		run_exec(&a, c->file_fd, pipefd[1]);
	close(pipefd[1]);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	c->log_fd = pipefd[0];
	c->run = pid;
	c->id = id;
	c->target = (pid_t)r->pid;
	c->client = client;
	ct_note("capture %u: PID %d for %g s into %s (run PID %d)", id, c->target, (double)r->duration / 1e9,
		c->path, (int)pid);
	return 0;
fail:
	snprintf(why, n, "cannot start the capture: %s", strerror(-err));
	if (pipefd[0] >= 0) {
		close(pipefd[0]);
		close(pipefd[1]);
	}
	if (c->file_fd >= 0) {
		unlink(r->output); /* made just now, empty */
		close(c->file_fd);
	}
	free(c->path);
	c->path = NULL;
	return err;
}

/* One line the run said: to the log and the client; its last error kept. */
static void on_line(struct ct_capture *c, char *line)
{
	static const char ours[] = "cudatracer: ", error[] = "error: ";

	if (!strncmp(line, ours, sizeof(ours) - 1))
		line += sizeof(ours) - 1;
	if (!*line)
		return;
	if (!strncmp(line, error, sizeof(error) - 1))
		snprintf(c->error, sizeof(c->error), "%s", line + sizeof(error) - 1);
	ct_note("capture %u (PID %d): %s", c->id, (int)c->target, line);
	ct_reply(c->client, "say", line);
}

static void read_log(struct ct_capture *c)
{
	char buf[4096];
	ssize_t got;

	if (c->log_fd < 0)
		return;
	while ((got = read(c->log_fd, buf, sizeof(buf))) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			break;
		}
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] != '\n' && c->len < sizeof(c->line) - 1) {
				c->line[c->len++] = buf[i];
				continue;
			}
			c->line[c->len] = 0;
			on_line(c, c->line);
			c->len = 0;
			if (buf[i] != '\n')
				c->line[c->len++] = buf[i];
		}
	}
	close(c->log_fd); /* the end of it: the run, and whatever it started, are gone */
	c->log_fd = -1;
}

/* A failed run's file, if it is still the empty one we made: removed. */
static bool drop_empty(const struct ct_capture *c)
{
	struct stat held, named;

	if (fstat(c->file_fd, &held) || held.st_size || lstat(c->path, &named) || held.st_dev != named.st_dev ||
	    held.st_ino != named.st_ino)
		return false;
	return unlink(c->path) == 0;
}

static void finish(struct ct_capture *c)
{
	char msg[1024];

	if (c->len) {
		c->line[c->len] = 0;
		on_line(c, c->line);
	}
	if (WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0) {
		ct_note("capture %u (PID %d): written to %s", c->id, (int)c->target, c->path);
		ct_reply(c->client, "ok", c->path);
	} else {
		if (!c->error[0])
			snprintf(c->error, sizeof(c->error), "the capture's tracer ended with %s %d",
				 WIFEXITED(c->status) ? "status" : "signal",
				 WIFEXITED(c->status) ? WEXITSTATUS(c->status) : WTERMSIG(c->status));
		snprintf(msg, sizeof(msg), "%s%s", c->error, drop_empty(c) ? " (its empty file removed)" : "");
		ct_warn("capture %u (PID %d) failed: %s", c->id, (int)c->target, msg);
		ct_reply(c->client, "error", msg);
	}
	close(c->client);
	close(c->file_fd);
	free(c->path);
	c->client = c->file_fd = -1;
	c->path = NULL;
}

bool ct_capture_poll(struct ct_capture *c)
{
	int status;

	read_log(c);
	if (c->run && waitpid(c->run, &status, WNOHANG) == c->run) {
		c->status = status;
		c->run = 0;
	}
	if (c->run)
		return false;
	read_log(c);
	if (c->log_fd >= 0) { /* a process it started still holds the pipe: not waited for */
		close(c->log_fd);
		c->log_fd = -1;
	}
	finish(c);
	return true;
}

void ct_capture_stop(struct ct_capture *c)
{
	if (c->run)
		kill(c->run, SIGTERM);
}
