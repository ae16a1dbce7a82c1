// SPDX-License-Identifier: MIT
/*
 * cgroup v2 ids to paths, and paths to containers and pods (cgroup.h).
 *
 * An id is the inode number of the cgroup's directory on cgroup2fs, and
 * kernfs takes it as a file handle: open_by_handle_at() on the v2 mount
 * opens the directory, and /proc/self/fd names it. Where the kernel refuses
 * handles (no CAP_DAC_READ_SEARCH, an old kernel) the tree is walked for the
 * inode instead. Either way each id is resolved once.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include "decode/cgroup.h"
#include "util/log.h"
#include "util/u64map.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif
#define FILEID_KERNFS 0xfe /* linux/exportfs.h: a kernfs node's 64-bit id */

/* ---- paths to containers and pods: the runtimes' shapes, as data ---- */

/*
 * The paths the runtimes and the kubelet make, from the cgroup root. A
 * component is '*' (any one) or text with at most one id in it: %c a
 * container's 64 hex digits, %p a pod's UID (8-4-4-4-12 hex), %u the same
 * with '_' for '-' (a systemd unit name cannot hold '-' there). A path
 * matches a row when it begins with the row's components; below that it is
 * the container's own. Anchored at the root, never anywhere in the path:
 * below a directory delegated to a user (user@UID.service, a container's
 * own cgroup namespace) that user names the directories, and could name one
 * after another's container or pod to take its labels. A container's
 * runtime without root (podman's rootless containers) is in such a
 * directory, and gets no label.
 */
static const char *const shapes[] = {
	"/system.slice/docker-%c.scope",  /* docker, systemd driver */
	"/docker/%c",                     /* docker, cgroupfs driver */
	"/machine.slice/libpod-%c.scope", /* podman (libpod-conmon-… is its monitor: no match) */
	"/*/%c",                          /* containerd's cgroupfs driver: /<namespace>/<id> */
	/* the kubelet, systemd driver: guaranteed, burstable, best-effort QoS;
	 * containerd's CRI, cri-o (crio-conmon-… is its monitor), dockershim */
	"/kubepods.slice/kubepods-pod%u.slice",
	"/kubepods.slice/kubepods-pod%u.slice/cri-containerd-%c.scope",
	"/kubepods.slice/kubepods-pod%u.slice/crio-%c.scope",
	"/kubepods.slice/kubepods-pod%u.slice/docker-%c.scope",
	"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%u.slice",
	"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%u.slice/cri-containerd-%c.scope",
	"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%u.slice/crio-%c.scope",
	"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%u.slice/docker-%c.scope",
	"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod%u.slice",
	"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod%u.slice/cri-containerd-%c.scope",
	"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod%u.slice/crio-%c.scope",
	"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod%u.slice/docker-%c.scope",
	/* the kubelet, cgroupfs driver */
	"/kubepods/pod%p",
	"/kubepods/burstable/pod%p",
	"/kubepods/besteffort/pod%p",
	"/kubepods/pod%p/%c",
	"/kubepods/burstable/pod%p/%c",
	"/kubepods/besteffort/pod%p/%c",
};
#define N_SHAPES (sizeof(shapes) / sizeof(shapes[0]))

enum id_form {
	F_HEX64,     /* %c */
	F_UID,       /* %p */
	F_UID_UNDER, /* %u */
};

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* The id of form f in s (n bytes), into out with dashes; false if it is not one. */
static bool id_of(const char *s, size_t n, enum id_form f, char *out)
{
	if (f == F_HEX64) {
		if (n != CT_CONTAINER_ID_LEN)
			return false;
		for (size_t i = 0; i < n; i++)
			if (!is_hex(s[i]))
				return false;
		memcpy(out, s, n);
		out[n] = 0;
		return true;
	}
	if (n != CT_POD_UID_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool sep = i == 8 || i == 13 || i == 18 || i == 23;

		if (sep ? s[i] != (f == F_UID ? '-' : '_') : !is_hex(s[i]))
			return false;
		out[i] = sep ? '-' : s[i];
	}
	out[n] = 0;
	return true;
}

/* Path component c (n bytes) against a row's component pc (m bytes); its id into got. */
static bool match_component(const char *c, size_t n, const char *pc, size_t m, struct ct_cgroup_ids *got)
{
	const char *ph = memchr(pc, '%', m);
	size_t np, ns;
	enum id_form f;

	if (m == 1 && pc[0] == '*')
		return true;
	if (!ph)
		return n == m && !memcmp(c, pc, n);
	np = ph - pc;
	ns = m - np - 2;
	if (n < np + ns || memcmp(c, pc, np) || memcmp(c + n - ns, ph + 2, ns))
		return false;
	f = ph[1] == 'c' ? F_HEX64 : ph[1] == 'p' ? F_UID : F_UID_UNDER;
	return id_of(c + np, n - np - ns, f, f == F_HEX64 ? got->container : got->pod);
}

/* The ids of row if path begins with it, over those found before. */
static void match_row(const char *path, const char *row, struct ct_cgroup_ids *out)
{
	struct ct_cgroup_ids got = { { 0 } };

	for (;;) {
		size_t m, n;

		row += strspn(row, "/");
		path += strspn(path, "/");
		m = strcspn(row, "/");
		n = strcspn(path, "/");
		if (!m)
			break;
		if (!n || !match_component(path, n, row, m, &got))
			return;
		row += m;
		path += n;
	}
	if (got.container[0])
		strcpy(out->container, got.container);
	if (got.pod[0])
		strcpy(out->pod, got.pod);
}

void ct_cgroup_parse(const char *path, struct ct_cgroup_ids *out)
{
	out->container[0] = out->pod[0] = 0;
	for (size_t i = 0; i < N_SHAPES; i++)
		match_row(path, shapes[i], out);
}

/* ---- the cgroup v2 mount ---- */

static struct {
	bool looked;         /* mountinfo was read */
	int fd;              /* the mount's root directory, or -1: none */
	bool walk;           /* the kernel refuses kernfs handles: walk the tree */
	char at[PATH_MAX];   /* where it is mounted */
	char root[PATH_MAX]; /* the cgroup its root is ("/" unless a subtree was bind-mounted) */
} v2 = { .fd = -1 };

/* A mountinfo field in place: octal escapes (\040 a blank) decoded. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = 0;
}

/* The first cgroup2 mount of /proc/self/mountinfo ("ID PARENT M:N ROOT AT OPTS... - TYPE SRC SUPER"). */
static void find_mount(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;

	v2.looked = true;
	while (f && getline(&line, &cap, f) > 0) {
		char *save, *field[5], *dash = strstr(line, " - "), *type;
		int n = 0;

		if (!dash)
			continue;
		type = strtok_r(dash + 3, " \n", &save);
		if (!type || strcmp(type, "cgroup2"))
			continue;
		*dash = 0;
		for (char *t = strtok_r(line, " ", &save); t && n < 5; t = strtok_r(NULL, " ", &save))
			field[n++] = t;
		if (n < 5)
			continue;
		unescape(field[3]);
		unescape(field[4]);
		if (strlen(field[3]) >= sizeof(v2.root) || strlen(field[4]) >= sizeof(v2.at))
			continue;
		strcpy(v2.root, field[3]);
		strcpy(v2.at, field[4]);
		v2.fd = open(v2.at, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (v2.fd >= 0) {
			struct statfs sfs;

			if (!fstatfs(v2.fd, &sfs) && sfs.f_type == CGROUP2_SUPER_MAGIC)
				break;
			close(v2.fd);
			v2.fd = -1;
		}
	}
	free(line);
	if (f)
		fclose(f);
	if (v2.fd < 0)
		ct_info("no cgroup v2 mount found in /proc/self/mountinfo: events carry cgroup ids, not paths");
}

/* A path under the mount point as the cgroup's own path, into out. */
static bool cgroup_path_of(const char *under_mount, char *out, size_t cap)
{
	size_t n = strlen(v2.at);
	const char *rel;

	if (strncmp(under_mount, v2.at, n) || (under_mount[n] && under_mount[n] != '/'))
		return false;
	rel = under_mount + n;
	if (!strcmp(v2.root, "/"))
		return snprintf(out, cap, "%s", *rel ? rel : "/") < (int)cap;
	return snprintf(out, cap, "%s%s", v2.root, rel) < (int)cap;
}

static uint64_t walk_ino;
static char walk_found[PATH_MAX];

static int walk_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_D || st->st_ino != walk_ino)
		return 0;
	snprintf(walk_found, sizeof(walk_found), "%s", p);
	return 1;
}

/* The cgroup of id, into out: 0, -ESTALE (no such cgroup now), or another error. */
static int resolve(uint64_t id, char *out, size_t cap)
{
	char buf[sizeof(struct file_handle) + sizeof(uint64_t)] __attribute__((aligned(8)));
	struct file_handle *fh = (struct file_handle *)buf;
	char link[PATH_MAX + 16], self[32];
	ssize_t n;
	int fd;

	if (!v2.looked)
		find_mount();
	if (v2.fd < 0)
		return -ENOENT;
	if (!v2.walk) {
		fh->handle_bytes = sizeof(uint64_t);
		fh->handle_type = FILEID_KERNFS;
		memcpy(fh->f_handle, &id, sizeof(id));
		fd = open_by_handle_at(v2.fd, fh, O_PATH | O_CLOEXEC);
		if (fd < 0 && (errno == ESTALE || errno == ENOENT))
			return -ESTALE;
		if (fd < 0) {
			ct_info("cgroup ids: open_by_handle_at refused (%s): walking %s instead",
				strerror(errno), v2.at);
			v2.walk = true;
		} else {
			snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
			n = readlink(self, link, sizeof(link) - 1);
			close(fd);
			if (n <= 0)
				return -EIO;
			link[n] = 0;
			return cgroup_path_of(link, out, cap) ? 0 : -ENAMETOOLONG;
		}
	}
	walk_ino = id;
	if (nftw(v2.at, walk_one, 16, FTW_PHYS | FTW_MOUNT) != 1)
		return -ESTALE;
	return cgroup_path_of(walk_found, out, cap) ? 0 : -ENAMETOOLONG;
}

/* ---- the cache ---- */

struct entry {
	struct ct_cgroup pub;
	struct ct_cgroup_ids ids;
	char path[];
};

static struct ct_u64map cache; /* id -> struct entry * */
static const struct entry *last;

static struct entry *entry_new(uint64_t id)
{
	char path[PATH_MAX];
	int err = resolve(id, path, sizeof(path));
	struct entry *e = calloc(1, sizeof(*e) + (err ? 0 : strlen(path) + 1));

	if (!e)
		return NULL;
	e->pub.id = id;
	if (err) {
		ct_info("cgroup id %llu: %s: its calls carry the id alone", (unsigned long long)id,
			err == -ESTALE ? "removed before its path was read" : strerror(-err));
		return e;
	}
	strcpy(e->path, path);
	e->pub.path = e->path;
	ct_cgroup_parse(path, &e->ids);
	e->pub.container = e->ids.container[0] ? e->ids.container : NULL;
	e->pub.pod = e->ids.pod[0] ? e->ids.pod : NULL;
	return e;
}

static void cache_clear(void)
{
	uint64_t k;
	void *v;

	for (size_t it = 0; ct_u64map_next(&cache, &it, &k, &v);)
		free(v);
	ct_u64map_free(&cache);
	last = NULL;
}

const struct ct_cgroup *ct_cgroup_get(uint64_t id)
{
	struct entry *e;

	if (!id)
		return NULL;
	if (last && last->pub.id == id)
		return &last->pub;
	e = ct_u64map_get(&cache, id);
	if (!e) {
		if (cache.n >= CT_CGROUP_CACHE)
			cache_clear();
		e = entry_new(id);
		if (!e)
			return NULL;
		if (ct_u64map_put(&cache, id, e)) {
			free(e);
			return NULL;
		}
	}
	last = e;
	return &e->pub;
}

/* pid -> cgroup id + 1 (0 none), as first read: kept past the process's
 * exit, for its last totals. */
static struct ct_u64map pid_ids;

const struct ct_cgroup *ct_cgroup_of_pid(uint32_t pid)
{
	char path[64], *line = NULL, dir[PATH_MAX * 2];
	const struct ct_cgroup *cg = NULL;
	uintptr_t known = (uintptr_t)ct_u64map_get(&pid_ids, pid);
	size_t cap = 0, nroot;
	struct stat st;
	FILE *f;

	if (known)
		return ct_cgroup_get(known - 1);
	if (!v2.looked)
		find_mount();
	if (v2.fd < 0)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	f = fopen(path, "re");
	while (f && getline(&line, &cap, f) > 0) {
		const char *p;

		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = 0;
		/* relative to the mount's root cgroup */
		p = line + 3;
		nroot = strcmp(v2.root, "/") ? strlen(v2.root) : 0;
		if (nroot && strncmp(p, v2.root, nroot))
			break;
		if (snprintf(dir, sizeof(dir), "%s%s", v2.at, p + nroot) < (int)sizeof(dir) &&
		    !stat(dir, &st) && S_ISDIR(st.st_mode))
			cg = ct_cgroup_get(st.st_ino);
		break;
	}
	free(line);
	if (!f)
		return NULL; /* gone before it was first read: not kept */
	fclose(f);
	if (pid_ids.n >= CT_CGROUP_CACHE)
		ct_u64map_free(&pid_ids);
	ct_u64map_put(&pid_ids, pid, (void *)(uintptr_t)((cg ? cg->id : 0) + 1));
	return cg;
}

int ct_cgroup_dir_open(const char *path)
{
	struct statfs sfs;
	int fd, err;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		ct_err("--cgroup %s: %s%s", path, err == -ENOTDIR ? "not a directory" : strerror(-err),
		       " (a cgroup v2 directory, e.g. /sys/fs/cgroup/unified/system.slice/NAME)");
		return err;
	}
	if (fstatfs(fd, &sfs)) {
		err = -errno;
		ct_err("--cgroup %s: %s", path, strerror(-err));
		close(fd);
		return err;
	}
	if (sfs.f_type != CGROUP2_SUPER_MAGIC) {
		if (!v2.looked)
			find_mount();
		ct_err("--cgroup %s: not a cgroup v2 directory (%s)%s%s", path,
		       sfs.f_type == CGROUP_SUPER_MAGIC ? "a cgroup v1 hierarchy's" : "not on cgroup2fs",
		       v2.fd >= 0 ? "; cgroup v2 is mounted at " : "; no cgroup v2 is mounted",
		       v2.fd >= 0 ? v2.at : "");
		close(fd);
		return -EINVAL;
	}
	return fd;
}

void ct_cgroup_reset(void)
{
	cache_clear();
	ct_u64map_free(&pid_ids);
	if (v2.fd >= 0)
		close(v2.fd);
	v2.fd = -1;
	v2.looked = v2.walk = false;
}
