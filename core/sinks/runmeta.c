// SPDX-License-Identifier: MIT
/* The run's host, boot and clocks: see runmeta.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sinks/runmeta.h"

static int64_t env_i64(const char *name)
{
	const char *v = getenv(name);
	char *end;
	long long n;

	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtoll(v, &end, 10);
	return errno || *end ? 0 : (int64_t)n;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void ct_run_meta_read(struct ct_run_meta *m)
{
	const char *fake = getenv("CUDATRACER_TEST_HOST");
	FILE *f;

	memset(m, 0, sizeof(*m));
	if (fake && *fake)
		snprintf(m->host, sizeof(m->host), "%s", fake);
	else if (gethostname(m->host, sizeof(m->host) - 1))
		snprintf(m->host, sizeof(m->host), "unknown");
	m->skew_ns = env_i64("CUDATRACER_TEST_CLOCK_SKEW_NS");
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f) {
		if (!fgets(m->boot_id, sizeof(m->boot_id), f))
			m->boot_id[0] = 0;
		m->boot_id[strcspn(m->boot_id, "\n")] = 0;
		fclose(f);
	}
	m->tracer_pid = (uint32_t)getpid();
	m->mono_ns = clock_ns(CLOCK_MONOTONIC);
	m->wall_ns = clock_ns(CLOCK_REALTIME) + (uint64_t)m->skew_ns;
}
