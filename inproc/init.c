// SPDX-License-Identifier: MIT
/*
 * The preload library's setup: at its constructor, map the ring the tracer
 * left open (checked to be that memfd: its name, seals, size and header),
 * index the spec table by name, and bind the stub libraries' slots to their
 * call ids as they register. A slot's real function is found at its first
 * call (ct_inproc_resolve), in whichever loaded library defines it: the runtime
 * may be loaded after us, even into a local scope (a Python extension's
 * dependencies), where dlsym(RTLD_NEXT) would not see it.
 *
 * Anything wrong (no ring, a different file, an old header) leaves the
 * library inert: every stub jumps to its function, nothing is recorded.
 */
#include <cpuid.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "inproc.h"

struct ct_inproc ct_g;
void *ct_dlsym_real CT_HIDDEN;

/* The spec table by name: open addressing, indices + 1 (0: empty). */
#define SPEC_HASH (2 * CT_MAX_CALLS)
static uint16_t spec_hash[SPEC_HASH];

/* Our own objects (the core, the stub libraries): never taken for a runtime. */
#define OWN_MAX 16
static const void *own[OWN_MAX];
static unsigned n_own;
static ct_inproc_dlsym_fn getproc_wrap;

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

int ct_spec_find(const char *name)
{
	if (!ct_g.head)
		return -1;
	for (uint32_t h = hash_name(name) % SPEC_HASH, n = 0; n < SPEC_HASH; h = (h + 1) % SPEC_HASH, n++) {
		uint16_t i = spec_hash[h];

		if (!i)
			return -1;
		if (!strncmp(ct_g.specs[i - 1].name, name, CT_SHM_NAME))
			return i - 1;
	}
	return -1;
}

static void dlsym_init(void)
{
	if (ct_dlsym_real)
		return;
	ct_dlsym_real = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!ct_dlsym_real)
		ct_dlsym_real = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
}

void *ct_inproc_real_dlsym(void *handle, const char *name)
{
	dlsym_init();
	return ct_dlsym_real ? ((void *(*)(void *, const char *))ct_dlsym_real)(handle, name) : NULL;
}

/* dlsym(handle, traced name): a program that finds the runtime's functions
 * by handle (dlopen, then dlsym) gets the trampoline of what it found. */
static void *dlsym_bind(void *handle, const char *name)
{
	return ct_inproc_bind(ct_inproc_real_dlsym(handle, name));
}

/* Called by tramp.S's dlsym: the function to run in its place, or NULL. */
CT_HIDDEN void *ct_inproc_dlsym_wants(const char *name)
{
	dlsym_init();
	if (!name)
		return NULL;
	if (getproc_wrap && !strncmp(name, "cuGetProcAddress", 16))
		return (void *)getproc_wrap;
	return ct_spec_find(name) >= 0 ? (void *)dlsym_bind : NULL;
}

void ct_inproc_set_getproc(ct_inproc_dlsym_fn wrap)
{
	getproc_wrap = wrap;
}

static bool is_own(const void *map)
{
	for (unsigned i = 0; i < n_own; i++)
		if (own[i] == map)
			return true;
	return false;
}

static const void *map_of(const void *addr)
{
	Dl_info info;
	void *map = NULL;

	if (!dladdr1(addr, &info, &map, RTLD_DL_LINKMAP))
		return NULL;
	return map;
}

bool ct_inproc_is_own(const void *addr)
{
	return is_own(map_of(addr));
}

/*
 * The first loaded library, in load order, that defines the symbol itself
 * (not through a dependency), other than ours. The executable is not
 * looked in: a runtime linked into it is refused by the tracer.
 */
uint64_t ct_inproc_resolve(struct ct_slot *s)
{
	struct link_map *lm = NULL;
	void *self = dlopen(NULL, RTLD_LAZY | RTLD_NOLOAD);

	if (self && dlinfo(self, RTLD_DI_LINKMAP, &lm))
		lm = NULL;
	if (self)
		dlclose(self);
	for (; lm; lm = lm->l_next) {
		void *h, *p;

		/* The handle of a loaded object (not the vDSO, which has no scope). */
		if (is_own(lm) || !lm->l_name[0] || !(h = dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD)))
			continue;
		p = ct_inproc_real_dlsym(h, s->name);
		dlclose(h);
		if (p && map_of(p) == lm) {
			__atomic_store_n(&s->real, (uint64_t)p, __ATOMIC_RELEASE);
			return (uint64_t)p;
		}
	}
	if (!s->unresolved && ct_g.head)
		__atomic_fetch_add(&ct_g.head->stat[CT_SHM_UNRESOLVED], 1, __ATOMIC_RELAXED);
	s->unresolved = 1;
	return 0;
}

void ct_inproc_register(const char *const *names, const char *const *apis, struct ct_slot *slots, unsigned n)
{
	const void *m = map_of(slots);
	unsigned bound = 0;

	if (m && n_own < OWN_MAX)
		own[n_own++] = m;
	for (unsigned i = 0; i < n; i++) {
		int k = ct_spec_find(apis[i]);

		slots[i].name = names[i];
		if (k >= 0) {
			slots[i].call1 = (uint32_t)k + 1;
			bound++;
		}
	}
	if (ct_g.head && bound)
		__atomic_fetch_add(&ct_g.head->stat[CT_SHM_BOUND], bound, __ATOMIC_RELAXED);
}

/* The fd the tracer named, or its copy through the tracer's /proc (a
 * command that closed its descriptors before an exec). */
static int ring_fd(void)
{
	const char *v = getenv(CT_SHM_ENV_FD), *t = getenv(CT_SHM_ENV_TRACER);
	char path[64], link[128];
	ssize_t n;
	int fd;

	if (!v)
		return -1;
	fd = atoi(v);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = 0;
	if (n > 0 && !strncmp(link, "/memfd:" CT_SHM_MEMFD_NAME " ", sizeof("/memfd:" CT_SHM_MEMFD_NAME)))
		return fd; /* ours: the number stays open, for our children */
	if (!t)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", atoi(t), fd);
	return open(path, O_RDWR | O_CLOEXEC);
}

/* CPUID 0x80000001 ECX bit 8 (3DNowPrefetch: PREFETCHW; Intel since Broadwell, every AMD). */
static bool has_prefetchw(void)
{
	unsigned a, b, c = 0, d;

	if (!__get_cpuid(0x80000001, &a, &b, &c, &d))
		return false;
	return c & (1u << 8);
}

static int map_ring(int fd)
{
	int seals = fcntl(fd, F_GET_SEALS);
	struct ct_shm_head *h;
	struct stat st;
	unsigned char *d;

	if (seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW) ||
	    fstat(fd, &st) || st.st_size < CT_SHM_HEAD_SIZE)
		return -EINVAL;
	h = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return -errno;
	if (h->magic != CT_SHM_MAGIC || h->version != CT_SHM_VERSION || h->total_size != (uint64_t)st.st_size ||
	    !h->data_size || (h->data_size & (h->data_size - 1)) || h->data_off % 4096 ||
	    h->data_off + h->data_size > (uint64_t)st.st_size || h->n_specs > CT_MAX_CALLS ||
	    h->specs_off + (uint64_t)h->n_specs * sizeof(struct ct_shm_spec) > h->data_off) {
		munmap(h, (size_t)st.st_size);
		return -EINVAL;
	}
	/* The data again, right after itself: a record that wraps is one piece. */
	d = mmap(NULL, 2 * h->data_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d == MAP_FAILED ||
	    mmap(d, h->data_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)h->data_off) == MAP_FAILED ||
	    mmap(d + h->data_size, h->data_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
		 (off_t)h->data_off) == MAP_FAILED) {
		munmap(h, (size_t)st.st_size);
		return -ENOMEM;
	}
	ct_g.specs = (const struct ct_shm_spec *)((const char *)h + h->specs_off);
	ct_g.data = d;
	ct_g.mask = h->data_size - 1;
	ct_g.parents = h->track_parents;
	ct_g.tsc = h->clock == CT_SHM_CLOCK_TSC;
	ct_g.prefetchw = has_prefetchw();
	for (uint32_t i = 0; i < h->n_specs; i++) {
		uint32_t k = hash_name(ct_g.specs[i].name) % SPEC_HASH;

		if (ct_g.specs[i].call >= CT_MAX_CALLS)
			continue;
		while (spec_hash[k])
			k = (k + 1) % SPEC_HASH;
		spec_hash[k] = (uint16_t)(i + 1);
	}
	ct_g.head = h;
	return 0;
}

static void at_fork_child(void)
{
	ct_g.pid = (uint32_t)getpid();
	ct_hooks_fork_child();
	if (ct_g.head)
		__atomic_fetch_add(&ct_g.head->stat[CT_SHM_PROCS], 1, __ATOMIC_RELAXED);
}

__attribute__((constructor(101))) static void ct_inproc_init(void)
{
	int fd = ring_fd();

	own[n_own++] = map_of((const void *)ct_inproc_init);
	dlsym_init(); /* before anyone calls ours */
	ct_g.pid = (uint32_t)getpid();
	pthread_atfork(NULL, NULL, at_fork_child);
	if (fd < 0 || map_ring(fd)) {
		if (getenv(CT_SHM_ENV_FD))
			fprintf(stderr, "cudatracer-inproc: pid %d: no trace ring (%s=%s): calls not traced\n",
				(int)ct_g.pid, CT_SHM_ENV_FD, getenv(CT_SHM_ENV_FD));
		return;
	}
	__atomic_fetch_add(&ct_g.head->stat[CT_SHM_PROCS], 1, __ATOMIC_RELAXED);
	ct_hooks_started(getenv(CT_SHM_ENV_TRACER) ? atoi(getenv(CT_SHM_ENV_TRACER)) : 0);
}
