// SPDX-License-Identifier: MIT
/*
 * /proc/PID/environ, read once per process. The file is the target's: it is
 * opened non-blocking and checked on the descriptor held (a regular file),
 * and read up to CT_ENVIRON_MAX bytes, whatever the process put there.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/procfs.h"
#include "decode/procenv.h"
#include "util/strbuf.h"
#include "util/u64map.h"

/* Which variables fill which field, first set first: torchrun's, Slurm's, Open MPI's. */
enum env_field { F_RANK, F_LOCAL_RANK, F_WORLD_SIZE, F_JOB_ID };

static const struct {
	const char *var;
	enum env_field field;
} vars[] = {
	{ "RANK", F_RANK },
	{ "SLURM_PROCID", F_RANK },
	{ "OMPI_COMM_WORLD_RANK", F_RANK },
	{ "LOCAL_RANK", F_LOCAL_RANK },
	{ "SLURM_LOCALID", F_LOCAL_RANK },
	{ "OMPI_COMM_WORLD_LOCAL_RANK", F_LOCAL_RANK },
	{ "WORLD_SIZE", F_WORLD_SIZE },
	{ "SLURM_NTASKS", F_WORLD_SIZE },
	{ "OMPI_COMM_WORLD_SIZE", F_WORLD_SIZE },
	{ "SLURM_JOB_ID", F_JOB_ID },
	{ "TORCHELASTIC_RUN_ID", F_JOB_ID },
};
#define N_VARS (sizeof(vars) / sizeof(vars[0]))

static bool parse_nonneg(const char *s, size_t n, int32_t *out)
{
	char buf[16], *end;
	long v;

	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || *end || end == buf || v < 0 || v > INT32_MAX)
		return false;
	*out = (int32_t)v;
	return true;
}

/*
 * A job id is the traced process's to choose: it becomes a label value
 * (Prometheus marks a whole target down for one series whose label is not
 * UTF-8, OTLP refuses the batch) and a field of every sink. Kept as valid
 * UTF-8 without controls; any other byte becomes '?'.
 */
static void job_id_copy(char *dst, const char *val, size_t vlen)
{
	const unsigned char *p = (const unsigned char *)val, *end = p + vlen;
	size_t o = 0;

	while (p < end) {
		int k = ct_text_keep(p);

		if (k == 0 || p + k > end) {
			dst[o++] = '?';
			p++;
			continue;
		}
		memcpy(dst + o, p, (size_t)k);
		o += (size_t)k;
		p += k;
	}
	dst[o] = 0;
}

bool ct_procenv_parse(const char *env, size_t n, struct ct_proc_env *out)
{
	unsigned best[4] = { N_VARS, N_VARS, N_VARS, N_VARS }; /* the row that set each field */
	const char *p = env, *end = env + n;

	*out = (struct ct_proc_env){ .rank = -1, .local_rank = -1, .world_size = -1 };
	while (p < end) {
		const char *nul = memchr(p, 0, (size_t)(end - p)), *eq;
		size_t len = (nul ? nul : end) - p;

		eq = memchr(p, '=', len);
		for (unsigned i = 0; eq && i < N_VARS; i++) {
			const char *val = eq + 1;
			size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
			int32_t *num;

			if (i >= best[vars[i].field] || strlen(vars[i].var) != klen || memcmp(p, vars[i].var, klen))
				continue;
			if (vars[i].field == F_JOB_ID) {
				if (!vlen || vlen >= sizeof(out->job_id))
					continue;
				job_id_copy(out->job_id, val, vlen);
			} else {
				num = vars[i].field == F_RANK ? &out->rank :
				      vars[i].field == F_LOCAL_RANK ? &out->local_rank : &out->world_size;
				if (!parse_nonneg(val, vlen, num))
					continue;
			}
			best[vars[i].field] = i;
		}
		p += len + 1;
	}
	return best[0] < N_VARS || best[1] < N_VARS || best[2] < N_VARS || best[3] < N_VARS;
}

int ct_visible_devices_count(const char *v, size_t n)
{
	int count = 0;

	for (const char *p = v, *end = v + n; p < end;) {
		const char *comma = memchr(p, ',', (size_t)(end - p)), *e = comma ? comma : end;
		size_t len = (size_t)(e - p), i = 0;

		if (len > 4 && (!memcmp(p, "GPU-", 4) || !memcmp(p, "MIG-", 4)))
			i = len;
		while (i < len && p[i] >= '0' && p[i] <= '9')
			i++;
		if (!len || i < len)
			break; /* the runtime ignores this entry and those after it */
		count++;
		p = e + 1;
	}
	return count;
}

/* What the cache keeps of a process, remembered even when it says nothing. */
struct proc_entry {
	struct ct_proc_env env;
	bool has_env;
	int visible; /* devices CUDA_VISIBLE_DEVICES names; -1: unset */
};

static struct ct_u64map procs; /* pid -> struct proc_entry * */
static uint32_t last_pid;
static const struct proc_entry *last;
/* A process gone before it was read, or out of memory: nothing known. */
static const struct proc_entry unknown = { .visible = -1 };

static const struct proc_entry *read_environ(uint32_t pid)
{
	static const char cvd[] = "CUDA_VISIBLE_DEVICES=";
	size_t len;
	char *buf = ct_proc_read(pid, "environ", CT_ENVIRON_MAX, &len);
	struct proc_entry *e;

	if (!buf)
		return &unknown; /* gone: its last records say nothing of a job */
	e = calloc(1, sizeof(*e));
	if (e) {
		e->has_env = ct_procenv_parse(buf, len, &e->env);
		e->visible = -1;
		for (const char *p = buf, *end = buf + len; p < end; p += strlen(p) + 1)
			if (!strncmp(p, cvd, sizeof(cvd) - 1))
				e->visible = ct_visible_devices_count(p + sizeof(cvd) - 1, strlen(p + sizeof(cvd) - 1));
	}
	free(buf);
	return e ? e : &unknown;
}

static const struct proc_entry *entry_of(uint32_t pid)
{
	const struct proc_entry *e;

	if (last && pid == last_pid)
		return last;
	e = ct_u64map_get(&procs, pid);
	if (!e) {
		e = read_environ(pid);
		if (ct_u64map_put(&procs, pid, (void *)e)) {
			if (e != &unknown)
				free((void *)e);
			return &unknown;
		}
	}
	last_pid = pid;
	last = e;
	return e;
}

const struct ct_proc_env *ct_procenv_get(uint32_t pid)
{
	const struct proc_entry *e = entry_of(pid);

	return e->has_env ? &e->env : NULL;
}

int ct_procenv_visible_devices(uint32_t pid)
{
	return entry_of(pid)->visible;
}

void ct_procenv_forget(uint32_t pid)
{
	void *e = ct_u64map_del(&procs, pid);

	if (e && e != &unknown)
		free(e);
	if (pid == last_pid)
		last = NULL;
}

void ct_procenv_reset(void)
{
	uint64_t key;
	void *val;

	for (size_t it = 0; ct_u64map_next(&procs, &it, &key, &val);)
		if (val != &unknown)
			free(val);
	ct_u64map_free(&procs);
	last = NULL;
}
