# SPDX-License-Identifier: MIT
# The opencl plugin: a table check against CL/cl.h (unit), and a program that
# runs real kernels through the ICD loader on PoCL's CPU device.
find_library(OPENCL_LIBRARY OpenCL)
if(NOT OPENCL_LIBRARY)
	message(FATAL_ERROR "tests: libOpenCL not found; run scripts/install-deps.sh (ocl-icd-opencl-dev)")
endif()

add_executable(opencl_vadd "${CMAKE_CURRENT_SOURCE_DIR}/programs/opencl_vadd.c")
target_include_directories(opencl_vadd PRIVATE "${OPENCL_INCLUDE_DIR}")
target_compile_options(opencl_vadd PRIVATE -O1 -g -fno-omit-frame-pointer)
target_link_libraries(opencl_vadd PRIVATE "${OPENCL_LIBRARY}")
set_target_properties(opencl_vadd PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/programs")

ct_unit_test(test_opencl_plugin "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_opencl_plugin.c")
target_include_directories(test_opencl_plugin PRIVATE "${OPENCL_INCLUDE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}/unit")
target_compile_definitions(test_opencl_plugin PRIVATE
	CT_TEST_PLUGIN="$<TARGET_FILE:ct-opencl>" CT_TEST_RUNTIME="${OPENCL_LIBRARY}")
add_dependencies(test_opencl_plugin ct-opencl)

ct_integration_test(test_opencl "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_opencl.py" LABELS opencl)
