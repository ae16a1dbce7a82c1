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
 *
 * The guard must outlive whatever killed the tracer. A signal to the
 * tracer's process group (timeout -s KILL, Ctrl-\, kill -KILL -PGID at a
 * service stop) would take the guard with it if it stayed in that group, and
 * the tasks would stay stopped. So it starts its own session, ignores every
 * signal a terminal or a job control sends, and is ready (in its session,
 * the signals ignored) before ct_guard_start() returns, so before any task
 * can be stopped. It ends when its job is done, or by SIGKILL.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
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

/* What a terminal, a shell's job control or a service manager sends to a group. */
static const int group_signals[] = { SIGINT, SIGQUIT, SIGHUP, SIGTERM, SIGTSTP, SIGTTIN, SIGTTOU,
				     SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
				     SIGXFSZ, SIGWINCH };

static void guard_main(int events_fd, int rd, int ready)
{
	struct timespec round = { 0, GUARD_ROUND_MS * 1000000L };
	struct ct_rings rings;
	sigset_t none;
	char c = 'r';

	for (size_t i = 0; i < sizeof(group_signals) / sizeof(group_signals[0]); i++)
		signal(group_signals[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	prctl(PR_SET_NAME, "ct-guard");
	if (write(ready, &c, 1) != 1)
		_exit(1);
	close(ready);
	close_all_but(&events_fd, &rd);
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
	int fds[2], ready[2], err = 0;
	ssize_t n;
	pid_t pid;
	char c;

	g->pid = 0;
	g->fd = -1;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	if (pipe2(ready, O_CLOEXEC)) {
		err = -errno;
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		close(ready[0]);
		guard_main(events_fd, fds[0], ready[1]);
	}
	if (pid < 0)
		err = -errno;
	close(fds[0]);
	close(ready[1]);
	if (pid > 0) {
		while ((n = read(ready[0], &c, 1)) < 0 && errno == EINTR)
			;
		if (n != 1) {
			/* It died before it was safe from group signals: none. */
			waitpid(pid, NULL, 0);
			err = -ECHILD;
		}
	}
	close(ready[0]);
	if (err) {
		close(fds[1]);
		return err;
	}
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
