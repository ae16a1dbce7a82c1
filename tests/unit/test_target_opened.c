// SPDX-License-Identifier: MIT
/*
 * ct_target_opened (core/capture/target.c): the file a process opened, seen
 * after the fact. Its descriptor's number may name another file by then,
 * even one of the same name: a process read a runtime, closed it, and wrote
 * a copy of the same name elsewhere (pip installing a wheel), which took the
 * same number. A task the watcher did not hold gets the file its path names;
 * a held one, its descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "capture/target.h"

struct seen_file {
	int calls;
	ino_t ino;
};

static int record(const char *open_path, const char *display, void *ctx)
{
	struct seen_file *s = ctx;
	struct stat st;

	(void)display;
	assert_int_equal(stat(open_path, &st), 0);
	s->calls++;
	s->ino = st.st_ino;
	return 0;
}

static ino_t ino_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_ino;
}

static void reused_descriptor(void **state)
{
	char dir[] = "/tmp/ct-target-XXXXXX", a[64], b_dir[80], b[96];
	struct seen_file held = { 0 }, unheld = { 0 };
	int fd, fd2;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/libcudart.so.13", dir);
	snprintf(b_dir, sizeof(b_dir), "%s/wheel", dir);
	snprintf(b, sizeof(b), "%s/libcudart.so.13", b_dir);
	assert_int_equal(mkdir(b_dir, 0700), 0);
	fd = open(a, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "runtime", 7), 7);
	close(fd);
	/* The runtime read by path, closed; the copy written takes its number. */
	fd = open(a, O_RDONLY);
	assert_true(fd >= 0);
	close(fd);
	fd2 = open(b, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_int_equal(fd2, fd);
	assert_int_equal(ct_target_opened(getpid(), fd, a, false, "libcudart.so", record, &unheld), 1);
	assert_int_equal(unheld.calls, 1);
	assert_true(unheld.ino == ino_of(a));
	/* Held at its open, the descriptor is the file opened, whatever the path. */
	assert_int_equal(ct_target_opened(getpid(), fd, a, true, "libcudart.so", record, &held), 1);
	assert_true(held.ino == ino_of(b));
	close(fd2);
	unlink(b);
	rmdir(b_dir);
	/* The path gone: the descriptor is all there is. */
	fd = open(a, O_RDONLY);
	assert_true(fd >= 0);
	unheld = (struct seen_file){ 0 };
	unlink(a);
	assert_int_equal(ct_target_opened(getpid(), fd, a, false, "libcudart.so", record, &unheld), 1);
	assert_int_equal(unheld.calls, 1);
	close(fd);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reused_descriptor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
