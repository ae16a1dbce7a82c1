// SPDX-License-Identifier: MIT
/* Small libbpf helpers: constants of objects opened from memory, per-CPU
 * counters, a load that signals do not interrupt. */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "capture/bpfutil.h"

void *ct_bpf_const(struct bpf_object *obj, const char *name, size_t sz)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, ".rodata");
	struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	size_t data_sz;
	char *data;
	int id;

	if (!m || !btf)
		return NULL;
	data = bpf_map__initial_value(m, &data_sz);
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	if (!data || id < 0)
		return NULL;
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (int i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *var = btf__type_by_id(btf, vs->type);

		if (strcmp(btf__name_by_offset(btf, var->name_off), name))
			continue;
		if (vs->size != sz || vs->offset + sz > data_sz)
			return NULL;
		return data + vs->offset;
	}
	return NULL;
}

int ct_bpf_set_const(struct bpf_object *obj, const char *name, const void *val, size_t sz)
{
	void *at = ct_bpf_const(obj, name, sz);

	if (!at)
		return -ENOENT;
	memcpy(at, val, sz);
	return 0;
}

int ct_bpf_percpu_sum(int fd, unsigned n, uint64_t *out)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;

	if (ncpu <= 0)
		return -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t k = 0; k < n; k++) {
		out[k] = 0;
		if (bpf_map_lookup_elem(fd, &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[k] += vals[c];
	}
	free(vals);
	return 0;
}

/* One load with every signal blocked; and again while it was interrupted. */
static int load_quiet(struct bpf_object_skeleton *skel, struct bpf_object *obj)
{
	sigset_t all, old;
	int err, tries = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	do
		err = skel ? bpf_object__load_skeleton(skel) : bpf_object__load(obj);
	while (ct_bpf_interrupted(err) && ++tries < 5 && !skel);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

int ct_bpf_load_quiet(struct bpf_object_skeleton *skel)
{
	return load_quiet(skel, NULL);
}

int ct_bpf_object_load_quiet(struct bpf_object *obj)
{
	return load_quiet(NULL, obj);
}
