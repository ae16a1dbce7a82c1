// SPDX-License-Identifier: MIT
/*
 * The hold under ptrace (core/capture/hold.c), on children of this test: a
 * stopped task seized stays stopped through a SIGCONT, every thread of it;
 * a signal sent meanwhile is delivered once, after the release; a task
 * that another process traces, or that is gone, is refused with the
 * reason; a task that dies while held is released without its status
 * being taken from its parent.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "capture/hold.h"
#include "util/procfs.h"

static int usr1_fd = -1;

static void on_usr1(int sig)
{
	(void)sig;
	if (write(usr1_fd, "u", 1) != 1)
		_exit(3);
}

static void *spin(void *arg)
{
	for (;;)
		(void)arg;
	return NULL;
}

/* A child with `threads` threads besides its own, spinning; SIGUSR1 writes
 * a byte to the pipe's write end. Returned once it is all set up. */
static pid_t child(int threads, int pipe_w)
{
	int ready[2];
	char c = 'r';
	pid_t pid;

	assert_int_equal(pipe(ready), 0);
	pid = fork();
	if (pid) {
		close(ready[1]);
		assert_int_equal(read(ready[0], &c, 1), 1);
		close(ready[0]);
		return pid;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	usr1_fd = pipe_w;
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < threads; i++) {
		pthread_t t;

		pthread_create(&t, NULL, spin, NULL);
	}
	if (write(ready[1], &c, 1) != 1)
		_exit(1);
	spin(NULL);
	_exit(0);
}

static void ms(long n)
{
	nanosleep(&(struct timespec){ n / 1000, (n % 1000) * 1000000L }, NULL);
}

/* The process has threads + 1 threads, each in a state of `want`; waited
 * for up to 2 s. */
static bool all_in(pid_t pid, int threads, const char *want)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	for (int round = 0; round < 2000; round++) {
		DIR *dir = opendir(path);
		struct dirent *d;
		int n = 0, ok = 0;

		while (dir && (d = readdir(dir))) {
			struct ct_proc_stat st;
			long tid = strtol(d->d_name, NULL, 10);

			if (tid <= 0 || ct_proc_stat((uint32_t)tid, &st))
				continue;
			n++;
			ok += strchr(want, st.state) != NULL;
		}
		if (dir)
			closedir(dir);
		if (n == threads + 1 && ok == n)
			return true;
		ms(1);
	}
	return false;
}

static void stop(pid_t pid)
{
	int status;

	assert_int_equal(kill(pid, SIGSTOP), 0);
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	assert_true(WIFSTOPPED(status));
}

static void finish(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
}

static void held_through_sigcont(int threads)
{
	struct ct_hold h = { 0 };
	const char *why = NULL;
	int fds[2];
	char buf[8];
	pid_t pid;

	assert_int_equal(pipe2(fds, O_NONBLOCK), 0);
	pid = child(threads, fds[1]);
	assert_true(all_in(pid, threads, "R"));
	stop(pid);
	assert_int_equal(ct_hold_take(&h, pid, &why), 1);
	assert_int_equal(h.n, threads + 1);
	assert_true(all_in(pid, threads, "t"));
	/* Another's SIGCONT and a SIGUSR1: nothing runs, nothing is delivered. */
	kill(pid, SIGCONT);
	kill(pid, SIGUSR1);
	ms(50);
	assert_true(all_in(pid, threads, "t"));
	assert_int_equal(read(fds[0], buf, sizeof(buf)), -1);
	assert_int_equal(ct_hold_release(&h, 1000), 0);
	assert_int_equal(h.pid, 0);
	/* Continued by the SIGCONT sent while held; the SIGUSR1 arrives once. */
	assert_true(all_in(pid, threads, "RS"));
	ms(100);
	assert_int_equal(read(fds[0], buf, sizeof(buf)), 1);
	finish(pid);
	ct_hold_free(&h);
	close(fds[0]);
	close(fds[1]);
}

static void one_thread(void **state)
{
	(void)state;
	held_through_sigcont(0);
}

static void threads(void **state)
{
	(void)state;
	held_through_sigcont(3);
}

/* Released with no SIGCONT: back in the group stop, as before the seize. */
static void back_to_stop(void **state)
{
	struct ct_hold h = { 0 };
	const char *why;
	pid_t pid = child(1, -1);

	(void)state;
	assert_true(all_in(pid, 1, "R"));
	stop(pid);
	assert_int_equal(ct_hold_take(&h, pid, &why), 1);
	assert_int_equal(ct_hold_release(&h, 1000), 0);
	assert_true(all_in(pid, 1, "T"));
	kill(pid, SIGCONT);
	assert_true(all_in(pid, 1, "R"));
	finish(pid);
	ct_hold_free(&h);
}

static void traced_by_another(void **state)
{
	struct ct_hold h = { 0 };
	const char *why = NULL;
	int fds[2];
	pid_t a, b = 0;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	a = fork();
	if (a == 0) { /* traces its own child, then waits */
		pid_t c = child(0, -1);

		if (ptrace(PTRACE_SEIZE, c, NULL, NULL) || write(fds[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		pause();
		_exit(0);
	}
	assert_int_equal(read(fds[0], &b, sizeof(b)), (ssize_t)sizeof(b));
	assert_int_equal(ct_hold_take(&h, b, &why), 0);
	assert_non_null(why);
	assert_string_equal(why, "another process traces it (ptrace)");
	assert_int_equal(h.pid, 0);
	kill(b, SIGKILL);
	finish(a);
	ct_hold_free(&h);
	close(fds[0]);
	close(fds[1]);
}

static void gone(void **state)
{
	struct ct_hold h = { 0 };
	const char *why = NULL;
	pid_t pid = fork();

	(void)state;
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(ct_hold_take(&h, pid, &why), 0);
	assert_string_equal(why, "it has ended");
	ct_hold_free(&h);
}

/* Killed while held: released at once, and its parent (here, the tracer
 * too) still reads its status. */
static void killed_while_held(void **state)
{
	struct ct_hold h = { 0 };
	const char *why;
	pid_t pid = child(2, -1);
	int status;

	(void)state;
	assert_true(all_in(pid, 2, "R"));
	stop(pid);
	assert_int_equal(ct_hold_take(&h, pid, &why), 1);
	kill(pid, SIGKILL);
	ms(50);
	assert_int_equal(ct_hold_release(&h, 1000), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ct_hold_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_thread),	     cmocka_unit_test(threads), cmocka_unit_test(back_to_stop),
		cmocka_unit_test(traced_by_another), cmocka_unit_test(gone),	cmocka_unit_test(killed_while_held),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
