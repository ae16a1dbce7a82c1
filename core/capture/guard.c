// SPDX-License-Identifier: MIT
/*
 * The guard. The watcher stops a traced task (SIGSTOP, sent from BPF) when it
 * opens a runtime or calls exec, and the tracer sends SIGCONT once the probes
 * are in place. If the tracer dies before it reads that event (SIGKILL, a
 * crash, an OOM kill) or ends between its last read and the watcher's detach,
 * nothing would ever continue the task: a GPU job hung for good by its
 * tracer. So a small process is forked once the watcher is loaded. It keeps
 * only the watcher's event ring (no program, no link: probes still vanish
 * with the tracer) and waits on a pipe. When the tracer is gone, however it
 * went, the pipe reads end-of-file; the guard reads what is still in the ring
 * (the tracer consumes each record only after handling it) and continues
 * every task those events stopped, then exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include "record.h"
#include "watch_event.h"
#include "capture/guard.h"
#include "capture/ring.h"

/* After the tracer's end, links may take a moment to go: look a few times. */
#define GUARD_ROUNDS 10
#define GUARD_ROUND_MS 50

static int continue_stopped(void *ctx, void *data, size_t len)
{
	const struct ct_watch_event *e = data;

	if (len >= sizeof(*e) && (e->kind == CT_WATCH_OPEN || e->kind == CT_WATCH_EXEC) && e->stopped)
		kill((pid_t)e->pid, SIGCONT);
	return 0;
}

/*
 * Keep *a and *b (moved above stdio if need be); everything else the tracer
 * had open is closed, stdio included, so that no reader of the tracer's
 * output waits on the guard.
 */
static void close_all_but(int *a, int *b)
{
	int null, lo, hi;

	if (*a < 3)
		*a = fcntl(*a, F_DUPFD, 3);
	if (*b < 3)
		*b = fcntl(*b, F_DUPFD, 3);
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	lo = *a < *b ? *a : *b;
	hi = *a < *b ? *b : *a;
	if (lo > 3)
		close_range(3, lo - 1, 0);
	if (hi > lo + 1)
		close_range(lo + 1, hi - 1, 0);
	close_range(hi + 1, ~0u, 0);
}

static void guard_main(int events_fd, int rd)
{
	struct timespec round = { 0, GUARD_ROUND_MS * 1000000L };
	struct ct_rings rings;
	char c;

	close_all_but(&events_fd, &rd);
	prctl(PR_SET_NAME, "ct-guard");
	/* Ctrl-C reaches the whole process group: the guard outlives it. */
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	while (read(rd, &c, 1) < 0 && errno == EINTR)
		;
	ct_rings_init(&rings);
	if (ct_rings_add(&rings, events_fd, continue_stopped, NULL) < 0)
		_exit(1);
	for (int i = 0; i < GUARD_ROUNDS; i++) {
		ct_rings_consume(&rings, -1);
		nanosleep(&round, NULL);
	}
	ct_rings_free(&rings);
	_exit(0);
}

int ct_guard_start(struct ct_guard *g, int events_fd)
{
	int fds[2];
	pid_t pid;

	g->pid = 0;
	g->fd = -1;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (pid == 0) {
		close(fds[1]);
		guard_main(events_fd, fds[0]);
	}
	close(fds[0]);
	g->pid = pid;
	g->fd = fds[1];
	return 0;
}

void ct_guard_stop(struct ct_guard *g)
{
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
}
