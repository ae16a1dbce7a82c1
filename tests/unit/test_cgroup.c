// SPDX-License-Identifier: MIT
/*
 * cgroup v2 paths as container runtimes and the kubelet make them, to the
 * container id and pod UID the events carry (decode/cgroup.c's table).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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
	/* podman, rootful and rootless, and its conmon */
	{ "/machine.slice/libpod-" ID ".scope", ID, "" },
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope/container", ID, "" },
	{ "/machine.slice/libpod-conmon-" ID ".scope", "", "" },
	/* docker in docker: the innermost wins */
	{ "/system.slice/docker-" ID2 ".scope/docker/" ID, ID, "" },
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_dir_open_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
