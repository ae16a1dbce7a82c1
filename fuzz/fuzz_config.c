// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the INI config reader (inih and the key tables: sizes,
 * durations, booleans, choices, lists), the [sink.NAME] sections and their
 * per-type key tables (ct_config_finish), and freeing all of it. The input
 * is the file's text. No sink is opened: paths in the input are never
 * created.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "log.h"

static char tmpdir[] = "/tmp/ctfuzz.XXXXXX";
static char path[PATH_MAX];

static void cleanup(void)
{
	unlink(path);
	rmdir(tmpdir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	ct_verbosity = getenv("CT_FUZZ_VERBOSE") ? CT_LOG_DEBUG : -1;
	/* A root-only folder in the sticky /tmp: the reader's ownership check passes. */
	if (!mkdtemp(tmpdir)) {
		perror("fuzz_config: mkdtemp");
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/fuzz.ini", tmpdir);
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ct_config c;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
	ct_config_init(&c);
	if (!ct_config_load(&c, path))
		ct_config_finish(&c);
	ct_config_free(&c);
	return 0;
}
