# SPDX-License-Identifier: MIT
# Who made a call (issue 20): cgroup paths to containers and pods; in the
# integration tests real cgroup v2 directories, the in-kernel --cgroup
# filter, and the job environment as event keys and Prometheus labels.
ct_unit_test(test_cgroup "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_cgroup.c")
ct_unit_test(test_procfs "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_procfs.c")

set(I "${CMAKE_CURRENT_SOURCE_DIR}/integration")
foreach(t cgroup cgroup_filter job_labels)
	ct_integration_test(who_${t} "${I}/test_who_${t}.py" LABELS root)
endforeach()
