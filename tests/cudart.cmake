# SPDX-License-Identifier: MIT
# The core and the cudart plugin: unit tests and integration tests against
# the real libcudart (no GPU: calls fail with cudaErrorInsufficientDriver).
set(P "${CMAKE_CURRENT_SOURCE_DIR}/programs")
set(PB "${CMAKE_BINARY_DIR}/tests/programs")
file(MAKE_DIRECTORY "${PB}" "${PB}/fake/lib")

if(NVCC)
	foreach(prog cudart_calls cudart_threads cudart_loop)
		ct_cuda_program(${prog}_shared "${P}/${prog}.cu" SHARED)
		ct_cuda_program(${prog}_static "${P}/${prog}.cu")
	endforeach()
else()
	message(WARNING "nvcc not found: the cudart integration tests will skip")
endif()

add_executable(late_dlopen "${P}/late_dlopen.c")
target_link_libraries(late_dlopen PRIVATE dl)
set_target_properties(late_dlopen PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}")

# The stand-in runtime and its user, in a pip-like layout: fake/lib/libcudart.so.99.
add_library(fake_cudart SHARED "${P}/fake_cudart.c")
set_target_properties(fake_cudart PROPERTIES OUTPUT_NAME cudart SUFFIX ".so.99"
	LIBRARY_OUTPUT_DIRECTORY "${PB}/fake/lib" NO_SONAME OFF)
add_executable(fake_user "${P}/fake_user.c")
target_link_libraries(fake_user PRIVATE fake_cudart)
set_target_properties(fake_user PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PB}/fake"
	BUILD_RPATH "\$ORIGIN/lib" SKIP_BUILD_RPATH OFF)

# The cudaError_t table, checked against driver_types.h by the compiler.
set(chk "${CMAKE_BINARY_DIR}/tests/cudart_errors_check.c")
add_custom_command(OUTPUT "${chk}"
	COMMAND ${Python3_EXECUTABLE} "${CMAKE_SOURCE_DIR}/tools/gen_enum.py"
		"${CUDA_HOME}/include/driver_types.h" cudart_errors --enum cudaError --check -o "${chk}"
	DEPENDS "${CMAKE_SOURCE_DIR}/tools/gen_enum.py" COMMENT "cudaError_t check")

ct_unit_test(test_core "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_core.c" "${chk}")
target_include_directories(test_core PRIVATE "${CUDA_HOME}/include")
target_compile_definitions(test_core PRIVATE
	CT_BADPLUGINS="${CMAKE_BINARY_DIR}/tests/badplugins"
	CT_TEST_TMP="${CMAKE_BINARY_DIR}/tests/tmp")
add_dependencies(test_core badplugin_abi badplugin_size badplugin_none badplugin_row badplugin_tail
	badplugin_wild)

set(I "${CMAKE_CURRENT_SOURCE_DIR}/integration")
ct_integration_test(cudart_sequence "${I}/test_cudart_sequence.py" LABELS root)
ct_integration_test(cudart_targets "${I}/test_cudart_targets.py" LABELS root)
ct_integration_test(cudart_threads "${I}/test_cudart_threads.py" LABELS root)
ct_integration_test(cudart_entry_only_unknown "${I}/test_cudart_entry_only_unknown.py" LABELS root)
ct_integration_test(cudart_volume "${I}/test_cudart_volume.py" LABELS root TIMEOUT 600)
ct_integration_test(reader_priority "${I}/test_reader_priority.py" LABELS root)
ct_integration_test(cli_errors "${I}/test_cli_errors.py")
ct_integration_test(cudart_modes "${I}/test_cudart_modes.py" LABELS root)
ct_integration_test(explain "${I}/test_explain.py")
ct_integration_test(cli_outputs "${I}/test_cli_outputs.py" LABELS root)
ct_integration_test(cudart_system_static "${I}/test_cudart_system_static.py" LABELS root)
