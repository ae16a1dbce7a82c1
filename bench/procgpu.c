// SPDX-License-Identifier: MIT
/*
 * What the device fallback (core/decode/procgpu.c) costs the poll loop: an
 * event of a process already looked at (a map lookup and a coarse clock
 * read), and one look at a process's descriptors (once a second per
 * process), for processes holding 100 to 10,000 open files. Itself is the
 * process looked at.
 *
 *   (ulimit -n 20000; build/bench/ct-procgpu)
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "decode/procgpu.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
	struct ct_event ev = { .pid = (uint32_t)getpid(), .device = -1 };
	const int events = 10000000;
	int open_fds = 3;
	double t;

	ct_procgpu_note(&ev);
	t = now_s();
	for (int i = 0; i < events; i++) {
		ev.device = -1;
		ct_procgpu_note(&ev);
	}
	printf("an event, the process looked at already: %.1f ns\n", (now_s() - t) / events * 1e9);
	for (int want = 100; want <= 10000; want *= 10) {
		const int looks = 200000 / want;

		for (; open_fds < want; open_fds++)
			if (open("/dev/null", O_RDONLY | O_CLOEXEC) < 0) {
				perror("open");
				return 1;
			}
		t = now_s();
		for (int i = 0; i < looks; i++) {
			ct_procgpu_forget(ev.pid);
			ct_procgpu_note(&ev);
		}
		printf("a look at a process of %5d descriptors: %8.1f us\n", want, (now_s() - t) / looks * 1e6);
	}
	ct_procgpu_reset();
	return 0;
}
