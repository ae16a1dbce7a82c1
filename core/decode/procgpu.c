// SPDX-License-Identifier: MIT
/*
 * A process's open GPUs (procgpu.h). The descriptors are read as links
 * only (readlinkat on /proc/PID/fd): nothing the process opened is opened
 * or stat'ed, so a file on a hung or hostile filesystem cannot stall the
 * poll loop. The nvidia driver names each GPU's node /dev/nvidiaN after its
 * minor number, and container runtimes keep those names.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "decode/nvgpus.h"
#include "decode/procenv.h"
#include "decode/procgpu.h"
#include "util/u64map.h"

struct proc_gpu {
	uint64_t next_ns;    /* CLOCK_MONOTONIC_COARSE of the next look */
	uint64_t every_ns;   /* the wait after the last look */
	int32_t minor;       /* the one GPU open; -1: none, or more than one */
	bool any;            /* a GPU was open at the last look */
};

static struct ct_u64map procs; /* pid -> struct proc_gpu * */

int32_t ct_procgpu_minor_of_link(const char *link, size_t n)
{
	static const char dev[] = "/dev/nvidia";
	size_t k = sizeof(dev) - 1;
	int32_t minor = 0;

	if (n <= k || n > k + 3 || memcmp(link, dev, k) || (link[k] == '0' && n > k + 1))
		return -1;
	for (size_t i = k; i < n; i++) {
		if (link[i] < '0' || link[i] > '9')
			return -1;
		minor = minor * 10 + (link[i] - '0');
	}
	return minor <= 253 ? minor : -1; /* 254, 255: nvidia-modeset, nvidiactl */
}

/* The one GPU minor among the process's descriptors; -1: none, several,
 * or too many descriptors to read; -2: not readable (it is gone: what was
 * seen last stands for its last records). *any: some GPU was seen. */
static int32_t scan(uint32_t pid, bool *any)
{
	char path[32], link[32];
	int32_t one = -1;
	unsigned seen = 0;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%u/fd", pid);
	d = opendir(path);
	if (!d)
		return -2;
	while ((de = readdir(d))) {
		ssize_t n;
		int32_t m;

		if (de->d_name[0] == '.')
			continue;
		if (++seen > CT_PROCGPU_MAX_FDS) {
			one = -1;
			break;
		}
		n = readlinkat(dirfd(d), de->d_name, link, sizeof(link));
		if (n <= 0 || (size_t)n >= sizeof(link) || (m = ct_procgpu_minor_of_link(link, (size_t)n)) < 0)
			continue;
		*any = true;
		if (one >= 0 && m != one) {
			one = -1; /* two GPUs: neither is the process's */
			break;
		}
		one = m;
	}
	closedir(d);
	return one;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int32_t open_gpu(uint32_t pid)
{
	struct proc_gpu *p = ct_u64map_get(&procs, pid);
	uint64_t now = now_ns();
	int32_t minor;

	bool any = false;

	if (p && now < p->next_ns)
		return p->minor;
	if (!p) {
		if (procs.n >= CT_PROCGPU_MAX_PROCS)
			return -1; /* ended processes kept (ct_procgpu_exited) fill it: no more */
		p = calloc(1, sizeof(*p));
		if (!p || ct_u64map_put(&procs, pid, p)) {
			free(p);
			return -1;
		}
		p->minor = -1;
	}
	minor = scan(pid, &any);
	/* The runtime opens every GPU it can see when it starts: once a process
	 * holds some, what it holds seldom changes, and it is looked at less
	 * often the longer it stays the same. Until then, every interval. */
	if (minor == -2 || !any || minor != p->minor || !p->any)
		p->every_ns = CT_PROCGPU_RECHECK_NS;
	else if (p->every_ns < CT_PROCGPU_RECHECK_MAX_NS)
		p->every_ns *= 2;
	if (minor != -2) {
		p->minor = minor;
		p->any = any;
	}
	p->next_ns = now + p->every_ns;
	return p->minor;
}

const struct ct_gpu_info *ct_procgpu_of(uint32_t pid)
{
	int32_t minor = open_gpu(pid);

	return minor >= 0 ? ct_nvgpus_by_minor(minor) : NULL;
}

void ct_procgpu_say(uint32_t pid, int32_t *device, enum ct_device_from *from, const struct ct_gpu_info **gpu)
{
	int32_t minor = open_gpu(pid);
	int visible;

	*from = *device >= 0 ? CT_DEVICE_FROM_CALL : CT_DEVICE_FROM_NONE;
	*gpu = minor >= 0 ? ct_nvgpus_by_minor(minor) : NULL;
	if (minor < 0 || *device >= 0)
		return;
	visible = ct_procenv_visible_devices(pid);
	if (visible == 1) {
		*device = 0;
		*from = CT_DEVICE_FROM_VISIBLE;
	} else if (*gpu && visible < 0 && *gpu == ct_nvgpus_only()) {
		/* No CUDA_VISIBLE_DEVICES and one GPU in the node: the runtime
		 * sees that one alone, as its device 0. */
		*device = 0;
		*from = CT_DEVICE_FROM_ONLY_GPU;
	} else if (*gpu) {
		*from = CT_DEVICE_FROM_OPEN_GPU;
	}
}

void ct_procgpu_note(struct ct_event *ev)
{
	ct_procgpu_say(ev->pid, &ev->device, &ev->device_from, &ev->gpu);
}

void ct_procgpu_exited(uint32_t pid)
{
	struct proc_gpu *p = ct_u64map_get(&procs, pid);

	if (p && p->minor >= 0)
		p->next_ns = UINT64_MAX; /* its last look stands: /proc/PID is gone */
	else
		ct_procgpu_forget(pid);
}

void ct_procgpu_forget(uint32_t pid)
{
	free(ct_u64map_del(&procs, pid));
}

void ct_procgpu_reset(void)
{
	ct_u64map_free_all(&procs, free);
	ct_nvgpus_reset();
}
