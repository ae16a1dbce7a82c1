# SPDX-License-Identifier: MIT
# NVTX ranges (docs/nvtx.md): a program with NVTX v3 ranges around real
# libcudart calls that fail without a GPU.
set(P "${CMAKE_CURRENT_SOURCE_DIR}/programs")
set(PB "${CMAKE_BINARY_DIR}/tests/programs")
set(I "${CMAKE_CURRENT_SOURCE_DIR}/integration")
if(EXISTS "${CUDA_HOME}/lib64/libcudart.so" AND EXISTS "${CUDA_HOME}/include/nvtx3/nvToolsExt.h")
	add_executable(nvtx_ranges "${P}/nvtx_ranges.c")
	target_include_directories(nvtx_ranges PRIVATE "${CUDA_HOME}/include")
	target_link_libraries(nvtx_ranges PRIVATE "${CUDA_HOME}/lib64/libcudart.so" dl pthread)
	set_target_properties(nvtx_ranges PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}"
		BUILD_RPATH "${CUDA_HOME}/lib64")
	ct_integration_test(nvtx "${I}/test_nvtx.py" LABELS root)
	# No tracer: the injection loaded, its functions called, and nothing
	# else happens (the program runs as before, NVTX's levels are the
	# injection's).
	add_test(NAME nvtx_untraced COMMAND nvtx_ranges)
	set_tests_properties(nvtx_untraced PROPERTIES LABELS unit
		ENVIRONMENT "NVTX_INJECTION64_PATH=$<TARGET_FILE:cudatracer-nvtx>"
		PASS_REGULAR_EXPRESSION "^levels 0 1 1 0\n$")
endif()
ct_unit_test(test_nvtx "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_nvtx.c")
target_include_directories(test_nvtx PRIVATE "${CMAKE_SOURCE_DIR}/nvtx")
