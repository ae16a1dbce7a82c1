# SPDX-License-Identifier: MIT
# Reliability and security (issue 7): faults, privilege checks and bad input.
# The fuzz targets are in fuzz/ (-DCT_FUZZ=ON); docs/reliability.md says what
# each test pins and how to run it.
set(P "${CMAKE_CURRENT_SOURCE_DIR}/programs")
set(PB "${CMAKE_BINARY_DIR}/tests/programs")
file(MAKE_DIRECTORY "${PB}/fault/lib")

# A stand-in runtime with a nested call and a call that blocks, and its user,
# in a pip-like layout: fault/lib/libcudart.so.98 (see fault_cudart.c).
add_library(fault_cudart SHARED "${P}/fault_cudart.c")
set_target_properties(fault_cudart PROPERTIES OUTPUT_NAME cudart SUFFIX ".so.98"
	LIBRARY_OUTPUT_DIRECTORY "${PB}/fault/lib")
add_executable(fault_user "${P}/fault_user.c")
target_link_libraries(fault_user PRIVATE fault_cudart)
set_target_properties(fault_user PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}/fault"
	BUILD_RPATH "\$ORIGIN/lib" SKIP_BUILD_RPATH OFF)
add_executable(fault_dlclose "${P}/fault_dlclose.c")
target_link_libraries(fault_dlclose PRIVATE dl)
set_target_properties(fault_dlclose PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}")
add_executable(fault_forks "${P}/fault_forks.c")
target_link_libraries(fault_forks PRIVATE dl)
set_target_properties(fault_forks PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}")

set(I "${CMAKE_CURRENT_SOURCE_DIR}/integration")
# A process held at its dlopen: signals sent meanwhile, threads (test_fault_hold.py).
add_executable(held_task "${P}/held_task.c")
target_link_libraries(held_task PRIVATE dl Threads::Threads)
set_target_properties(held_task PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}")
foreach(t kill exec dlclose output sigkill threads nested input group_kill startup_stop hangup pid_state truncated_plugin stdio config_lines target_files stop_busy hold)
	ct_integration_test(fault_${t} "${I}/test_fault_${t}.py" LABELS "root;reliability")
endforeach()
# Issue 13: a user's .so whose constructor leaves a marker (test_privilege_race.py).
add_library(marker_plugin MODULE "${P}/marker_plugin.c")
set_target_properties(marker_plugin PROPERTIES OUTPUT_NAME ct-marker PREFIX "lib" LIBRARY_OUTPUT_DIRECTORY "${PB}")
# Keeps a process alive a while at exit (test_fault_target_files.py).
add_library(hold_exit MODULE "${P}/hold_exit.c")
set_target_properties(hold_exit PROPERTIES OUTPUT_NAME ct-hold-exit PREFIX "lib" LIBRARY_OUTPUT_DIRECTORY "${PB}")
# Preloaded into programs nvcc built, which have no sanitizer runtime.
if(CT_SANITIZE)
	target_compile_options(hold_exit PRIVATE -fno-sanitize=all)
	target_link_options(hold_exit PRIVATE -fno-sanitize=all)
endif()
# Distinct plugins of one API each (test_privilege_verifier.py: up to 8 loaded at once).
foreach(n RANGE 1 7)
	add_library(named_plugin_${n} MODULE "${P}/named_plugin.c")
	target_compile_definitions(named_plugin_${n} PRIVATE NAME=watch${n})
	target_include_directories(named_plugin_${n} PRIVATE "${CT_PUBLIC_INCLUDE}")
	set_target_properties(named_plugin_${n} PROPERTIES OUTPUT_NAME ct-watch${n} PREFIX "lib"
		LIBRARY_OUTPUT_DIRECTORY "${PB}/plugins")
endforeach()
foreach(t files env verifier outputs race)
	ct_integration_test(privilege_${t} "${I}/test_privilege_${t}.py" LABELS "root;reliability")
endforeach()

# What the engine sends for each API decodes as the whole record would.
ct_unit_test(test_record_shape "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_record_shape.c")
target_compile_definitions(test_record_shape PRIVATE CT_TEST_PLUGIN_DIR="${CMAKE_BINARY_DIR}/plugins")
add_dependencies(test_record_shape ct-cudart ct-cuda ct-hip ct-opencl)

# Issue 13: bytes a traced program chose, escaped on their way out.
ct_unit_test(test_escape "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_escape.c")
ct_integration_test(cli_limits "${I}/test_cli_limits.py" LABELS "root;reliability")
if(EXISTS "${CUDA_HOME}/lib64/libcudart.so")
	add_executable(comm_bytes "${P}/comm_bytes.c")
	target_include_directories(comm_bytes PRIVATE "${CUDA_HOME}/include")
	target_link_libraries(comm_bytes PRIVATE "${CUDA_HOME}/lib64/libcudart.so")
	set_target_properties(comm_bytes PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}"
		BUILD_RPATH "${CUDA_HOME}/lib64")
endif()
ct_integration_test(fault_bytes "${I}/test_fault_bytes.py" LABELS "root;reliability")

# Issue 13: runtimes loaded after a system-wide tracer started; a library's
# entry and exit links together or not at all.
ct_integration_test(fault_system_wide "${I}/test_fault_system_wide.py" LABELS "root;reliability")
ct_integration_test(fault_probe_pair "${I}/test_fault_probe_pair.py" LABELS "root;reliability")

# A task held for probing, continued by another process (another tracer's
# SIGCONT): stopped again, its calls all traced.
ct_integration_test(fault_foreign_cont "${I}/test_fault_foreign_cont.py" LABELS "root;reliability")
# Both take the task with ptrace first: a system-wide tracer of another test beside them
# (which stops and seizes every new program) would take it before them.
set_tests_properties(fault_foreign_cont fault_hold PROPERTIES RUN_SERIAL TRUE)
# A task stopped again as it was released (another tracer's stop, landing
# after our SIGCONT): looked at again and continued.
ct_integration_test(fault_stop_after_release "${I}/test_fault_stop_after_release.py" LABELS "root;reliability")
# Alone: a system-wide tracer of another test beside it holds the same shell at
# exec, and its release's late stop is one this test cannot tell from the shell's own.
set_tests_properties(fault_stop_after_release PROPERTIES RUN_SERIAL TRUE)
# The file a process opened, found after the fact: a descriptor number
# reused by a copy of the same name is not taken for it (fault_system_wide's
# "copy being written" lost that race under ASan).
ct_unit_test(test_target_opened "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_target_opened.c")
# The hold under ptrace, on the test's own children (core/capture/hold.c).
ct_unit_test(test_hold "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_hold.c")
target_link_libraries(test_hold PRIVATE Threads::Threads)
