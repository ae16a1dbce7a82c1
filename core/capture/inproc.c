// SPDX-License-Identifier: MIT
/*
 * --engine inproc: what the tracer puts into the command (see inproc.h).
 * The libraries are found where the tracer's own libraries are (ownlib.h),
 * as the injection library is, and trusted the same way:
 * they run inside the command, as it runs.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "plugin/trust.h"
#include "util/log.h"
#include "util/procfs.h"
#include "capture/target.h"
#include "capture/inproc.h"
#include "capture/ownlib.h"
#include "decode/decode.h"
#include "util/procfs.h"

/* The library `name` where the tracer's own libraries are, trusted; into out. */
static int find_lib(const char *name, char *out)
{
	char why[PATH_MAX + 128];
	int fd, err = ct_ownlib_find(name, out);

	if (err)
		return err;
	fd = ct_trusted_open(out, ct_trust_privileged(), why, sizeof(why));
	if (fd < 0) {
		ct_err("--engine inproc: refusing %s: %s", out, fd == -EPERM || fd == -EINVAL ? why : strerror(-fd));
		return fd;
	}
	close(fd);
	return 0;
}

int ct_inproc_preload(const struct ct_engine_plugin *pl, int n, char *out, size_t len)
{
	char path[PATH_MAX], name[128], where[3 * PATH_MAX + 16];
	size_t used = 0;
	int err;

	for (int i = -1; i < n; i++) {
		if (i < 0)
			snprintf(name, sizeof(name), "%s", CT_INPROC_CORE);
		else
			snprintf(name, sizeof(name), "libcudatracer-inproc-%s.so", pl[i].p->name);
		err = find_lib(name, path);
		if (err == -ENOENT && i < 0) {
			ct_ownlib_where(where, sizeof(where));
			ct_err("--engine inproc: no %s in %s", name, where);
		} else if (err == -ENOENT)
			ct_err("--engine inproc: plugin %s has no stub library %s: the in-process engine interposes "
			       "the in-tree plugins' APIs (its stubs are generated from their tables at build time); "
			       "trace it with --engine ebpf", pl[i].p->name, name);
		if (err)
			return err;
		if (used + strlen(path) + 2 > len)
			return -ENAMETOOLONG;
		used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ":" : "", path);
	}
	/* Which copy goes into the command: an installed tree's, the build tree's. */
	ct_info("--engine inproc: preloading %s", out);
	return 0;
}

int ct_inproc_specs(const struct ct_engine_plugin *pl, int n, struct ct_shm_spec **specs, uint32_t *n_specs)
{
	struct ct_shm_spec *v = calloc(CT_MAX_CALLS, sizeof(*v));
	uint32_t k = 0;

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		const struct ct_plugin *p = pl[i].p;

		for (size_t a = 0; a < p->n_apis && a < CT_MAX_PLUGIN_APIS; a++) {
			if (!pl[i].enabled[a] || strlen(p->apis[a].symbol) >= CT_SHM_NAME)
				continue;
			snprintf(v[k].name, sizeof(v[k].name), "%s", p->apis[a].symbol);
			v[k].call = CT_CALL_ID(i, a);
			/* A plugin's BPF hook cannot run in the process: the table's captures only. */
			ct_engine_spec(&p->apis[a], pl[i].entry_only[a], false, &v[k].spec);
			v[k].arg_words = ct_record_arg_slots(&p->apis[a]);
			k++;
		}
	}
	*specs = v;
	*n_specs = k;
	return 0;
}

int ct_inproc_check_program(const struct ct_engine_plugin *pl, int n, const char *program)
{
	char path[PATH_MAX];

	if (ct_target_command_path(program, path, sizeof(path)))
		return 0; /* execvp will say */
	for (int i = 0; i < n; i++) {
		int found = ct_target_count_symbols(pl[i].p, path);

		if (found <= 0)
			continue;
		ct_err("--engine inproc: %s links the %s runtime in statically (it defines %d of its APIs; nvcc's "
		       "default -cudart static): calls inside one executable cannot be interposed. Build it with "
		       "-cudart shared, or trace it with --engine ebpf (uprobes see a linked-in runtime)", path,
		       pl[i].p->name, found);
		return -EINVAL;
	}
	return 0;
}

/* Whether the process maps the interposer: 1, 0, or -errno (its maps cannot be read). */
static int maps_interposer(uint32_t pid)
{
	static const char want[] = "/" CT_INPROC_CORE "\n";
	size_t len;
	char *maps = ct_proc_read(pid, "maps", 64u << 20, &len);
	int found;

	if (!maps)
		return errno ? -errno : -EIO;
	found = memmem(maps, len, want, sizeof(want) - 1) != NULL;
	free(maps);
	return found;
}

int ct_inproc_refuse_pid(uint32_t pid)
{
	int in = maps_interposer(pid);

	if (in < 0)
		ct_err("--engine inproc -p %u: cannot read /proc/%u/maps: %s", pid, pid, strerror(-in));
	else if (!in)
		ct_err("--engine inproc cannot attach to process %u: its interposer (" CT_INPROC_CORE ") is not "
		       "in it (/proc/%u/maps), and a preload library enters a process only when it starts "
		       "(LD_PRELOAD, read at exec). Trace it as it runs with --engine ebpf (sudo cudatracer -p %u), "
		       "or start it under cudatracer --engine inproc -- COMMAND", pid, pid, pid);
	else
		ct_err("--engine inproc cannot attach to process %u: the interposer (" CT_INPROC_CORE ") is in it, "
		       "from the cudatracer --engine inproc that started it, but the ring it records into was that "
		       "tracer's and ended with it; taking it again would need a new ring handed into the running "
		       "process and its interposer bound to it (a call made inside the process, as --gpu-activity -p "
		       "makes), which this version does not do. Trace it with --engine ebpf (sudo cudatracer -p %u)",
		       pid, pid);
	return -EINVAL;
}

bool ct_inproc_in_tree(uint32_t pid, bool (*known)(void *ctx, uint32_t pid), void *ctx)
{
	struct ct_proc_stat st;

	for (int up = 0; up < 64 && pid > 1; up++) {
		if (known(ctx, pid))
			return true;
		if (ct_proc_stat(pid, &st) || st.ppid <= 0)
			return false;
		pid = (uint32_t)st.ppid;
	}
	return false;
}
