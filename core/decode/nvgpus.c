// SPDX-License-Identifier: MIT
/*
 * /proc/driver/nvidia/gpus/BUS/information (nvgpus.h). Its lines are
 * "Key: <spaces or tabs> value"; only the three keys below are read, each
 * value checked for its shape, so a file of any other content (no UUID, a
 * line longer than the read) gives nothing rather than a wrong GPU.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "decode/nvgpus.h"
#include "util/procfs.h"

#define RELOAD_NS 1000000000ull

static struct ct_gpu_info gpus[CT_NVGPUS_MAX]; /* appended to, never changed: pointers stay valid */
static size_t n_gpus;
static size_t n_dirs;      /* folders the driver listed at the last read, valid or not */
static uint64_t loaded_ns; /* 0: never read */

/* The value of line `key` (its text up to the end of the line, blanks
 * trimmed), or NULL. */
static const char *value_of(const char *text, size_t n, const char *key, size_t *vlen)
{
	size_t klen = strlen(key);

	for (const char *p = text, *end = text + n; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;

		if ((size_t)(eol - p) > klen && !memcmp(p, key, klen)) {
			const char *v = p + klen;

			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			while (eol > v && isspace((unsigned char)eol[-1]))
				eol--;
			*vlen = (size_t)(eol - v);
			return v;
		}
		p = eol + 1;
	}
	return NULL;
}

/* "GPU-" and 8-4-4-4-12 hex digits, as nvidia-smi -L prints it. */
bool ct_nvgpu_uuid_valid(const char *v, size_t n)
{
	static const char shape[] = "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

	if (n != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; i < n; i++)
		if (shape[i] == 'x' ? !isxdigit((unsigned char)v[i]) : v[i] != shape[i])
			return false;
	return true;
}

bool ct_nvgpu_bus_valid(const char *v, size_t n, size_t cap)
{
	if (!n || n >= cap)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)v[i]) && v[i] != ':' && v[i] != '.')
			return false;
	return true;
}

int ct_nvgpu_parse(const char *text, size_t n, struct ct_gpu_info *out)
{
	size_t ml = 0, ul = 0, bl = 0;
	const char *m = value_of(text, n, "Device Minor:", &ml), *u = value_of(text, n, "GPU UUID:", &ul);
	const char *b = value_of(text, n, "Bus Location:", &bl);
	int32_t minor = 0;

	/* 0..253: 254 is nvidia-modeset's, 255 nvidiactl's. */
	if (!m || !ml || ml > 3 || !u || !ct_nvgpu_uuid_valid(u, ul))
		return -EINVAL;
	for (size_t i = 0; i < ml; i++) {
		if (!isdigit((unsigned char)m[i]))
			return -EINVAL;
		minor = minor * 10 + (m[i] - '0');
	}
	if (minor > 253)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->minor = minor;
	memcpy(out->uuid, u, ul);
	if (b && ct_nvgpu_bus_valid(b, bl, sizeof(out->bus)))
		memcpy(out->bus, b, bl);
	return 0;
}

static const struct ct_gpu_info *find(int32_t minor)
{
	for (size_t i = 0; i < n_gpus; i++)
		if (gpus[i].minor == minor)
			return &gpus[i];
	return NULL;
}

static void load(void)
{
	DIR *d = opendir(CT_NVGPUS_DIR);
	struct dirent *de;

	n_dirs = 0;
	if (!d)
		return; /* no NVIDIA driver here (or not shown to this namespace) */
	while ((de = readdir(d))) {
		char path[sizeof(CT_NVGPUS_DIR) + 300];
		struct ct_gpu_info g;
		size_t len;
		char *text;

		if (de->d_name[0] == '.')
			continue;
		n_dirs++;
		if (n_gpus >= CT_NVGPUS_MAX ||
		    snprintf(path, sizeof(path), "%s/%s/information", CT_NVGPUS_DIR, de->d_name) >= (int)sizeof(path))
			continue;
		text = ct_file_read(path, CT_NVGPU_INFO_MAX, &len);
		if (text && !ct_nvgpu_parse(text, len, &g) && !find(g.minor))
			gpus[n_gpus++] = g;
		free(text);
	}
	closedir(d);
}

/* Read the folder again unless it was read in the last second. */
static void reload(void)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + 1;
	if (loaded_ns && now - loaded_ns < RELOAD_NS)
		return;
	loaded_ns = now;
	load();
}

const struct ct_gpu_info *ct_nvgpus_by_minor(int32_t minor)
{
	const struct ct_gpu_info *g = find(minor);

	if (g)
		return g;
	reload();
	return find(minor);
}

const struct ct_gpu_info *ct_nvgpus_only(void)
{
	if (!loaded_ns)
		reload();
	/* A folder whose file is not believed may be a GPU all the same. */
	return n_dirs == 1 && n_gpus == 1 ? &gpus[0] : NULL;
}

void ct_nvgpus_reset(void)
{
	n_gpus = n_dirs = 0;
	loaded_ns = 0;
}
