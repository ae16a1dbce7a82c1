// SPDX-License-Identifier: MIT
/*
 * A user's .so that root must never load (test_privilege_race.py): its
 * constructor runs at dlopen, before any check of what it exports could
 * refuse it, and leaves the file named by CT_TEST_MARKER as the proof.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void leave_marker(void)
{
	const char *path = getenv("CT_TEST_MARKER");
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644) : -1;

	if (fd >= 0)
		close(fd);
}
