# SPDX-License-Identifier: MIT
# GPU activity (--gpu-activity) and the device of every call, without a GPU:
# the wire decoder on synthetic batches; a stand-in libcupti through which a
# test program feeds activity records, built from cupti_activity.h's own
# structs, into the real injection library while traced; stand-in runtime
# and driver libraries for the device of every call and for names read at
# return. tests/gpu/run_gpu_activity.sh is the H200's part.
set(P "${CMAKE_CURRENT_SOURCE_DIR}/programs")
set(PB "${CMAKE_BINARY_DIR}/tests/programs")

ct_unit_test(test_gpu_decode "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_gpu_decode.c")

add_library(fake_cupti SHARED "${P}/fake_cupti.c")
target_include_directories(fake_cupti PRIVATE "${CUDA_HOME}/include")
target_compile_options(fake_cupti PRIVATE -fvisibility=hidden)
set_target_properties(fake_cupti PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${PB}")

add_library(fake_gpu_cudart SHARED "${P}/fake_gpu_cudart.c")
set_target_properties(fake_gpu_cudart PROPERTIES OUTPUT_NAME cudart SUFFIX ".so.98" NO_SONAME ON
	LIBRARY_OUTPUT_DIRECTORY "${PB}/fakegpu")
add_library(fake_gpu_cuda SHARED "${P}/fake_gpu_cuda.c")
set_target_properties(fake_gpu_cuda PROPERTIES OUTPUT_NAME cuda SUFFIX ".so.1" NO_SONAME ON
	LIBRARY_OUTPUT_DIRECTORY "${PB}/fakegpu")

add_executable(gpu_activity "${P}/gpu_activity.c")
target_include_directories(gpu_activity PRIVATE "${CUDA_HOME}/include")
target_link_libraries(gpu_activity PRIVATE dl pthread)
set_target_properties(gpu_activity PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}")
add_dependencies(gpu_activity fake_cupti fake_gpu_cudart fake_gpu_cuda cudatracer-inject)

ct_integration_test(test_gpu_activity "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_gpu_activity.py"
	LABELS gpu)
# CUDA graphs: nodes made inside traced calls, clones at instantiate, replays.
ct_integration_test(test_gpu_graphs "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_gpu_graphs.py"
	LABELS gpu)
ct_integration_test(test_gpu_attach "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_gpu_attach.py"
	LABELS gpu)
ct_integration_test(test_device_tracking "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_device_tracking.py"
	LABELS gpu)

# Kernel names from the parent call, attached mid-run: a stand-in runtime
# whose cudaLaunchKernel launches through the stand-in driver.
add_library(fake_launch_cudart SHARED "${P}/fake_launch_cudart.c")
target_link_libraries(fake_launch_cudart PRIVATE dl)
set_target_properties(fake_launch_cudart PROPERTIES OUTPUT_NAME cudart SUFFIX ".so.97" NO_SONAME ON
	LIBRARY_OUTPUT_DIRECTORY "${PB}/fakegpu")
add_executable(kname_attach "${P}/kname_attach.c")
target_link_libraries(kname_attach PRIVATE dl)
set_target_properties(kname_attach PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}")
add_dependencies(kname_attach fake_launch_cudart fake_gpu_cuda)
ct_integration_test(test_cuda_attach_names "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cuda_attach_names.py"
	LABELS gpu)

# A runtime launch and the driver launch it makes: one return for both
# (uprobe sessions), the same events as two timed calls.
add_executable(launch_layers "${P}/launch_layers.c")
target_link_libraries(launch_layers PRIVATE dl)
set_target_properties(launch_layers PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}")
add_dependencies(launch_layers fake_launch_cudart fake_gpu_cuda)
ct_integration_test(test_cuda_launch_layers "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cuda_launch_layers.py"
	LABELS gpu)

# The device of calls whose thread never said: the GPU the process holds
# open, named by a stand-in /proc/driver/nvidia in a mount namespace; the
# parsers of what it reads.
ct_unit_test(test_device_sources "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_device_sources.c")
add_executable(open_gpus "${P}/open_gpus.c")
target_link_libraries(open_gpus PRIVATE dl)
set_target_properties(open_gpus PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}")
add_dependencies(open_gpus fake_gpu_cudart)
ct_integration_test(test_device_fallback "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_device_fallback.py"
	LABELS gpu)
