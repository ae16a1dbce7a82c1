# SPDX-License-Identifier: MIT
# The nccl plugin against the toolkit's real libnccl.so.2 (no GPU: calls fail
# fast, with ncclUnhandledCudaError or ncclInvalidArgument, and every probe
# fires), and `cudatracer merge` on traces of a stand-in libnccl whose calls
# succeed.
set(P "${CMAKE_CURRENT_SOURCE_DIR}/programs")
set(PB "${CMAKE_BINARY_DIR}/tests/programs")
set(I "${CMAKE_CURRENT_SOURCE_DIR}/integration")
set(nccl_lib "${NCCL_HOME}/lib64/libnccl.so.2")
if(TARGET ct-nccl AND EXISTS "${nccl_lib}")
	add_executable(nccl_calls "${P}/nccl_calls.c")
	target_include_directories(nccl_calls PRIVATE "${NCCL_HOME}/include" "${CUDA_HOME}/include")
	target_link_libraries(nccl_calls PRIVATE "${nccl_lib}")
	set_target_properties(nccl_calls PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}"
		BUILD_RPATH "${NCCL_HOME}/lib64")
	ct_integration_test(nccl_calls "${I}/test_nccl.py" LABELS root)
else()
	message(WARNING "no ${nccl_lib} or no nccl plugin: the nccl tests will skip")
endif()

# The stand-in libnccl (calls succeed; ranks meet in a folder) and a rank that
# uses it, in a pip-like layout: fakenccl/lib/libnccl.so.2.
if(TARGET ct-nccl)
	add_library(fake_nccl SHARED "${P}/fake_nccl.c")
	target_include_directories(fake_nccl PRIVATE "${NCCL_HOME}/include" "${CUDA_HOME}/include")
	set_target_properties(fake_nccl PROPERTIES OUTPUT_NAME nccl SOVERSION 2
		LIBRARY_OUTPUT_DIRECTORY "${PB}/fakenccl/lib")
	add_executable(nccl_ranks "${P}/nccl_ranks.c")
	target_include_directories(nccl_ranks PRIVATE "${NCCL_HOME}/include" "${CUDA_HOME}/include")
	target_link_libraries(nccl_ranks PRIVATE fake_nccl)
	set_target_properties(nccl_ranks PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}/fakenccl"
		BUILD_RPATH "\$ORIGIN/lib" SKIP_BUILD_RPATH OFF)
	ct_integration_test(nccl_merge "${I}/test_nccl_merge.py" LABELS root)
	# Communicators of ncclCommInitAll and ncclCommSplit.
	add_executable(nccl_comms "${P}/nccl_comms.c")
	target_include_directories(nccl_comms PRIVATE "${NCCL_HOME}/include" "${CUDA_HOME}/include")
	target_link_libraries(nccl_comms PRIVATE fake_nccl)
	set_target_properties(nccl_comms PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}/fakenccl"
		BUILD_RPATH "\$ORIGIN/lib" SKIP_BUILD_RPATH OFF)
	ct_integration_test(nccl_comms "${I}/test_nccl_comms.py" LABELS root)
	# Hangs caught while they happen: a rank stuck in ncclAllReduce (FAKE_NCCL_HANG_AT).
	add_executable(nccl_hang "${P}/nccl_hang.c")
	target_include_directories(nccl_hang PRIVATE "${NCCL_HOME}/include" "${CUDA_HOME}/include")
	target_link_libraries(nccl_hang PRIVATE fake_nccl)
	target_compile_options(nccl_hang PRIVATE -fno-omit-frame-pointer)
	set_target_properties(nccl_hang PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}/fakenccl"
		BUILD_RPATH "\$ORIGIN/lib" SKIP_BUILD_RPATH OFF)
	ct_integration_test(nccl_hang "${I}/test_nccl_hang.py" LABELS root)
	# The same caught by a daemon (the stand-in probed with tracer.lib), the rank behind named.
	ct_integration_test(daemon_hang "${I}/test_daemon_hang.py" LABELS root)
endif()

# Alignment and stragglers on synthetic traces; the procenv parser.
ct_unit_test(test_merge "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_merge.c")
target_compile_definitions(test_merge PRIVATE CT_TEST_TMP="${CMAKE_BINARY_DIR}/tests/tmp")

# The collectives table's GPU columns: kernels attributed to the calls that launched them.
ct_unit_test(test_collstats "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collstats.c")

# A synchronization past the timeout, on inproc.cmake's stand-in libcudart whose sync sleeps.
ct_integration_test(sync_hang "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_sync_hang.py" LABELS root)
# 10,000 threads of one process stuck at once in that sync: every hang in the file, stderr bounded.
add_executable(sync_threads "${CMAKE_CURRENT_SOURCE_DIR}/programs/sync_threads.c")
target_link_libraries(sync_threads PRIVATE fake_sleep_cudart Threads::Threads)
set_target_properties(sync_threads PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/programs/sleep"
	BUILD_RPATH "\$ORIGIN/lib")
ct_integration_test(hang_threads "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_hang_threads.py" LABELS root)
# Calls held in flight: stuck once, ended or gone once, the rank behind, the bounds.
ct_unit_test(test_hangs "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_hangs.c")
