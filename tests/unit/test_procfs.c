// SPDX-License-Identifier: MIT
/*
 * The one reader of /proc/PID/... (core/util/procfs.c): a file read whole
 * or cut at its bound, NUL-terminated; a directory or a process that is
 * gone refused with the reason, and a read that fails too (a process
 * reaped between the open and the read: ESRCH); /proc/PID/stat parsed past
 * a name that holds spaces and parentheses.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "util/procfs.h"

static void read_whole_and_bounded(void **state)
{
	size_t len = 0, cut = 0;
	char *all = ct_proc_read((uint32_t)getpid(), "maps", 1u << 20, &len);
	char *part = ct_proc_read((uint32_t)getpid(), "maps", 100, &cut);

	(void)state;
	assert_non_null(all);
	assert_true(len > 100);
	assert_int_equal(strlen(all), len);
	assert_non_null(part);
	assert_int_equal(cut, 100);
	assert_int_equal(part[100], 0);
	assert_memory_equal(all, part, 100);
	free(all);
	free(part);
}

static void refused(void **state)
{
	pid_t child = fork();

	(void)state;
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	errno = 0;
	assert_null(ct_proc_read((uint32_t)getpid(), "task", 4096, NULL)); /* a directory */
	assert_int_equal(errno, EINVAL);
	assert_null(ct_proc_read((uint32_t)child, "maps", 4096, NULL)); /* reaped: gone */
	assert_int_equal(errno, ENOENT);
}

/*
 * A read that fails is an error with its errno, never an empty file: a
 * process reaped between the open and the read fails it with ESRCH, and
 * its stat, read as empty, was taken for a process that lives (session.c's
 * proc_gone), so its exit went unheard. /proc/self/mem fails its first read
 * (nothing is mapped at address 0) in the same place, on demand.
 */
static void read_error_said(void **state)
{
	(void)state;
	errno = 0;
	assert_null(ct_proc_read((uint32_t)getpid(), "mem", 4096, NULL));
	assert_int_equal(errno, EIO);
}

static void stat_parsed(void **state)
{
	struct ct_proc_stat st;

	(void)state;
	assert_int_equal(prctl(PR_SET_NAME, "a (b) c", 0, 0, 0), 0);
	assert_int_equal(ct_proc_stat((uint32_t)getpid(), &st), 0);
	assert_string_equal(st.comm, "a (b) c");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.ppid, getppid());
	assert_false(st.flags & CT_PF_KTHREAD);
	/* kthreadd, where this runs in the initial pid namespace */
	if (ct_proc_stat(2, &st) == 0 && !strcmp(st.comm, "kthreadd"))
		assert_true(st.flags & CT_PF_KTHREAD);
}

/* A key is matched at a line's start: "Pid:" is neither "PPid:" nor "TracerPid:". */
static void status_field_read(void **state)
{
	(void)state;
	assert_int_equal(ct_proc_status_field((uint32_t)getpid(), "Pid:"), getpid());
	assert_int_equal(ct_proc_status_field((uint32_t)getpid(), "PPid:"), getppid());
	assert_int_equal(ct_proc_status_field((uint32_t)getpid(), "Tgid:"), getpid());
	assert_int_equal(ct_proc_status_field((uint32_t)getpid(), "NoSuchKey:"), -1);
	assert_int_equal(ct_proc_status_field(0x7fffffff, "Pid:"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(read_whole_and_bounded),
		cmocka_unit_test(refused),
		cmocka_unit_test(read_error_said),
		cmocka_unit_test(stat_parsed),
		cmocka_unit_test(status_field_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
