# SPDX-License-Identifier: MIT
# The hip plugin: a table check against the HIP headers (unit), and a program
# that calls every traced API on Debian's libamdhip64, which runs without an
# AMD GPU and fails each call with hipErrorNoDevice or hipErrorInvalidDevice.
find_library(AMDHIP64_LIBRARY amdhip64)
if(NOT AMDHIP64_LIBRARY)
	message(FATAL_ERROR "tests: libamdhip64 not found; run scripts/install-deps.sh (libamdhip64-dev)")
endif()

add_executable(hip_calls "${CMAKE_CURRENT_SOURCE_DIR}/programs/hip_calls.c")
target_include_directories(hip_calls PRIVATE "${HIP_INCLUDE_DIR}")
target_compile_definitions(hip_calls PRIVATE __HIP_PLATFORM_AMD__)
target_compile_options(hip_calls PRIVATE -O1 -g -fno-omit-frame-pointer)
target_link_libraries(hip_calls PRIVATE "${AMDHIP64_LIBRARY}")
set_target_properties(hip_calls PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/programs")

ct_unit_test(test_hip_plugin "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_hip_plugin.c")
target_include_directories(test_hip_plugin PRIVATE "${HIP_INCLUDE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}/unit")
target_compile_definitions(test_hip_plugin PRIVATE __HIP_PLATFORM_AMD__
	CT_TEST_PLUGIN="$<TARGET_FILE:ct-hip>" CT_TEST_RUNTIME="${AMDHIP64_LIBRARY}")
add_dependencies(test_hip_plugin ct-hip)

ct_integration_test(test_hip "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_hip.py" LABELS hip)
