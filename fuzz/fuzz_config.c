// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the INI config reader (inih and the key tables: sizes,
 * durations, booleans, choices, lists), the [sink.NAME] sections and their
 * per-type key tables (ct_config_finish), and freeing all of it. The input
 * is the file's text. No sink is opened: paths in the input are never
 * created. With CT_FUZZ_WRITE_SEEDS=DIR, a config with a section for every
 * sink type and every key of it (from the key tables) is written there.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config/config.h"
#include "util/log.h"

static char tmpdir[] = "/tmp/ctfuzz.XXXXXX";
static char path[PATH_MAX];

static void cleanup(void)
{
	unlink(path);
	rmdir(tmpdir);
}

static void write_seed(const char *dir)
{
	char seed[PATH_MAX];
	FILE *f;

	snprintf(seed, sizeof(seed), "%s/seed-all-sinks.ini", dir);
	f = fopen(seed, "w");
	if (!f) {
		perror(seed);
		exit(1);
	}
	fputs("[tracer]\nplugins = cudart, cuda\nringbuf_size = 1M\n[filter]\nmin_duration = 2ms\n", f);
	for (int i = 0; ct_sink_types[i]; i++) {
		fprintf(f, "[sink.%s]\ntype = %s\npath = -\n", ct_sink_types[i]->type, ct_sink_types[i]->type);
		for (const struct ct_key *k = ct_sink_types[i]->keys; k && k->name; k++)
			fprintf(f, "%s = %s\n", k->name, k->def ? k->def : "x");
	}
	fclose(f);
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
	if (getenv("CT_FUZZ_WRITE_SEEDS"))
		write_seed(getenv("CT_FUZZ_WRITE_SEEDS"));
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
