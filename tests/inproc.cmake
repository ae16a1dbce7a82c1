# SPDX-License-Identifier: MIT
# --engine inproc: the preload library against the eBPF engine, on the real libcudart.
set(I "${CMAKE_CURRENT_SOURCE_DIR}/integration")
ct_integration_test(inproc "${I}/test_inproc.py" LABELS root)
# --engine inproc -p: refused with the reason the process's maps give.
ct_integration_test(inproc_pid "${I}/test_inproc_pid.py")

# A stand-in runtime whose call sleeps a known time, for the records' clock
# (TSC or clock_gettime): sleep/sleep_calls and sleep/lib/libcudart.so.96.
add_library(fake_sleep_cudart SHARED "${CMAKE_CURRENT_SOURCE_DIR}/programs/fake_sleep_cudart.c")
set_target_properties(fake_sleep_cudart PROPERTIES OUTPUT_NAME cudart SUFFIX ".so.96" NO_SONAME OFF
	LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/programs/sleep/lib")
# Python loads it too (sync_hang), and Python is not built with AddressSanitizer.
if(CT_SANITIZE)
	target_compile_options(fake_sleep_cudart PRIVATE -fno-sanitize=all)
	target_link_options(fake_sleep_cudart PRIVATE -fno-sanitize=all)
endif()
add_executable(sleep_calls "${CMAKE_CURRENT_SOURCE_DIR}/programs/sleep_calls.c")
target_link_libraries(sleep_calls PRIVATE fake_sleep_cudart)
set_target_properties(sleep_calls PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/programs/sleep"
	BUILD_RPATH "\$ORIGIN/lib")
add_dependencies(sleep_calls fake_sleep_cudart)

# The TSC clock's conversion, on made-up clocks.
ct_unit_test(test_tsc "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_tsc.c")
# The ring's reader against a producer played by hand.
ct_unit_test(test_shmring "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_shmring.c")

# The driver's entry points through cuGetProcAddress, as libcudart gets
# them: a stand-in driver that answers as the real one (getproc/libcuda.so.1)
# and a program that calls it through the real libcudart and by hand.
add_library(fake_getproc_cuda SHARED "${CMAKE_CURRENT_SOURCE_DIR}/programs/fake_getproc_cuda.c")
target_compile_options(fake_getproc_cuda PRIVATE -fvisibility=hidden)
target_link_options(fake_getproc_cuda PRIVATE -Wl,-soname,libcuda.so.1 -Wl,-Bsymbolic)
set_target_properties(fake_getproc_cuda PROPERTIES OUTPUT_NAME cuda SUFFIX ".so.1" NO_SONAME ON
	LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/programs/getproc")
add_executable(getproc_calls "${CMAKE_CURRENT_SOURCE_DIR}/programs/getproc_calls.c")
target_link_libraries(getproc_calls PRIVATE dl pthread)
set_target_properties(getproc_calls PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/programs/getproc")
add_dependencies(getproc_calls fake_getproc_cuda)

# Out-parameters read at return in every kind of place, written by a
# stand-in runtime whose calls succeed: outparams/outparam_calls and
# outparams/lib/libcudart.so.95.
add_library(fake_out_cudart SHARED "${CMAKE_CURRENT_SOURCE_DIR}/programs/fake_out_cudart.c")
set_target_properties(fake_out_cudart PROPERTIES OUTPUT_NAME cudart SUFFIX ".so.95" NO_SONAME OFF
	LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/programs/outparams/lib")
add_executable(outparam_calls "${CMAKE_CURRENT_SOURCE_DIR}/programs/outparam_calls.c")
target_link_libraries(outparam_calls PRIVATE fake_out_cudart)
set_target_properties(outparam_calls PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/programs/outparams"
	BUILD_RPATH "\$ORIGIN/lib")
add_dependencies(outparam_calls fake_out_cudart)

# A command that writes records under another process's pid into the ring:
# sleep/inproc_forge (test_inproc_trust.py).
add_executable(inproc_forge "${CMAKE_CURRENT_SOURCE_DIR}/programs/inproc_forge.c")
target_include_directories(inproc_forge PRIVATE "${CMAKE_SOURCE_DIR}/inproc" "${CMAKE_SOURCE_DIR}/bpf")
target_link_libraries(inproc_forge PRIVATE fake_sleep_cudart)
set_target_properties(inproc_forge PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/programs/sleep"
	BUILD_RPATH "\$ORIGIN/lib")
add_dependencies(inproc_forge fake_sleep_cudart)
ct_integration_test(inproc_trust "${I}/test_inproc_trust.py" LABELS root)
