// SPDX-License-Identifier: MIT
/*
 * cgroup v2 paths as container runtimes and the kubelet make them, to the
 * container id and pod UID the events carry (decode/cgroup.c's table).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "decode/cgroup.h"

#define ID "3f5b0c2a9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a"
#define ID2 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define UID "1b4c1d2e-5f6a-4b7c-8d9e-0f1a2b3c4d5e"
#define UID_ "1b4c1d2e_5f6a_4b7c_8d9e_0f1a2b3c4d5e"

static const struct {
	const char *path, *container, *pod;
} cases[] = {
	/* docker: systemd driver, cgroupfs driver, systemd inside the container */
	{ "/system.slice/docker-" ID ".scope", ID, "" },
	{ "/docker/" ID, ID, "" },
	{ "/system.slice/docker-" ID ".scope/init.scope", ID, "" },
	/* containerd: CRI with the systemd driver; ctr's /<namespace>/<id> */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" ID ".scope",
	  ID, UID },
	{ "/default/" ID, ID, "" },
	/* cri-o, and its conmon monitor (not the container) */
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/crio-" ID ".scope", ID, UID },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/crio-conmon-" ID ".scope",
	  "", UID },
	/* guaranteed QoS: no class slice */
	{ "/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" ID ".scope", ID, UID },
	/* the kubelet's cgroupfs driver */
	{ "/kubepods/besteffort/pod" UID "/" ID, ID, UID },
	{ "/kubepods/pod" UID "/" ID, ID, UID },
	{ "/kubepods/burstable/pod" UID, "", UID },
	/* podman and its conmon */
	{ "/machine.slice/libpod-" ID ".scope", ID, "" },
	{ "/machine.slice/libpod-conmon-" ID ".scope", "", "" },
	/* Below a directory a user or a container was given, its names are its
	 * own: a runtime's shape there is no one's container or pod. Docker in
	 * docker is the outer container; rootless podman, none. */
	{ "/system.slice/docker-" ID2 ".scope/docker/" ID, ID2, "" },
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope/container", "", "" },
	{ "/user.slice/user-1000.slice/user@1000.service/app.slice/kubepods.slice/kubepods-pod" UID_
	  ".slice/cri-containerd-" ID ".scope", "", "" },
	{ "/user.slice/user-1000.slice/user@1000.service/kubepods.slice/kubepods-burstable.slice/"
	  "kubepods-burstable-pod" UID_ ".slice/cri-containerd-" ID ".scope", "", "" },
	{ "/user.slice/user-1000.slice/user@1000.service/kubepods/besteffort/pod" UID "/" ID, "", "" },
	{ "/system.slice/delegated.service/docker/" ID, "", "" },
	{ "/system.slice/delegated.service/system.slice/docker-" ID ".scope", "", "" },
	/* not containers: the root, a service, ids of the wrong length or case */
	{ "/", "", "" },
	{ "/system.slice/ssh.service", "", "" },
	{ "/user.slice/user-0.slice/session-3.scope", "", "" },
	{ "/system.slice/docker-" ID "0.scope", "", "" },
	{ "/docker/" "3F5B0C2A9D8E7F6A5B4C3D2E1F0A9B8C7D6E5F4A3B2C1D0E9F8A7B6C5D4E3F2A", "", "" },
	{ "/kubepods/besteffort/pod1b4c1d2e-5f6a-4b7c-8d9e", "", "" },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID ".slice", "", "" },
	{ "", "", "" },
};

static void test_shapes(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_cgroup_ids ids;

		ct_cgroup_parse(cases[i].path, &ids);
		if (strcmp(ids.container, cases[i].container) || strcmp(ids.pod, cases[i].pod))
			fail_msg("%s:\n container %s, wanted %s\n pod %s, wanted %s", cases[i].path, ids.container,
				 cases[i].container, ids.pod, cases[i].pod);
	}
}

/* The filter's checks, on real files: what is not a cgroup v2 directory is refused. */
static void test_dir_open_refuses(void **state)
{
	(void)state;
	assert_int_equal(ct_cgroup_dir_open("/nonexistent/cttest"), -ENOENT);
	assert_int_equal(ct_cgroup_dir_open("/proc/self/status"), -ENOTDIR);
	assert_int_equal(ct_cgroup_dir_open("/tmp"), -EINVAL);
}

/* Ids to paths on the real cgroup v2 mount: a live cgroup resolves to its
 * path (and this process's, by pid); one removed since says so. */
static void test_resolve(void **state)
{
	const char *mnt = "/sys/fs/cgroup/unified";
	char self[128], dir[256], procs[300], id[CT_CONTAINER_ID_LEN + 1];
	const struct ct_cgroup *cg;
	bool made_self;
	struct stat st;
	uint64_t live, gone;
	FILE *f;

	(void)state;
	if (geteuid() || stat(mnt, &st))
		skip(); /* needs root and this machine's v2 mount */
	/* at the root, where docker makes it (deeper down it names no container);
	 * an id of this process's, beside other tests' */
	snprintf(self, sizeof(self), "%s/docker", mnt);
	snprintf(id, sizeof(id), "%064x", (unsigned)getpid());
	snprintf(dir, sizeof(dir), "%s/%s", self, id);
	made_self = !mkdir(self, 0755);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(stat(dir, &st), 0);
	live = st.st_ino;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	f = fopen(procs, "w");
	assert_non_null(f);
	fprintf(f, "%d\n", (int)getpid());
	assert_int_equal(fclose(f), 0);

	cg = ct_cgroup_get(live);
	assert_non_null(cg);
	assert_string_equal(cg->path, dir + strlen(mnt));
	assert_string_equal(cg->container, id);
	assert_null(cg->pod);
	cg = ct_cgroup_of_pid((uint32_t)getpid());
	assert_non_null(cg);
	assert_int_equal(cg->id, live);

	/* back to the root; then a cgroup removed before its id is looked up */
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", mnt);
	f = fopen(procs, "w");
	assert_non_null(f);
	fprintf(f, "%d\n", (int)getpid());
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(stat(dir, &st), 0);
	gone = st.st_ino;
	assert_int_equal(rmdir(dir), 0);
	if (made_self)
		rmdir(self); /* another test's may be in it still */
	cg = ct_cgroup_get(gone);
	assert_non_null(cg);
	assert_int_equal(cg->id, gone);
	assert_null(cg->path);
	assert_null(cg->container);
	/* the live one was kept: the same answer, though it is gone now too */
	cg = ct_cgroup_get(live);
	assert_string_equal(cg->path, dir + strlen(mnt));
	assert_null(ct_cgroup_get(0));
	ct_cgroup_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_dir_open_refuses),
		cmocka_unit_test(test_resolve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
