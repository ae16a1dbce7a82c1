# SPDX-License-Identifier: MIT
# Every allocation family accounted (issue 30): stand-in runtimes whose
# allocation calls succeed, built from the vendors' own headers into
# alloc/lib under the names the plugins look for, and programs that make
# each family's allocations and frees (tests/programs/alloc); the memory
# sink must account each one exactly, and the summary's bytes agree.
set(A "${CMAKE_CURRENT_SOURCE_DIR}/programs/alloc")
set(AB "${CMAKE_BINARY_DIR}/tests/programs/alloc")

# ct_alloc_standin(<target> <source> <output name> <suffix> <include dir>)
function(ct_alloc_standin target src name suffix inc)
	add_library(${target} SHARED "${A}/${src}")
	target_include_directories(${target} PRIVATE "${inc}")
	target_compile_definitions(${target} PRIVATE __HIP_PLATFORM_AMD__)
	target_compile_options(${target} PRIVATE -Wno-unused-parameter -Wno-deprecated-declarations)
	set_target_properties(${target} PROPERTIES OUTPUT_NAME ${name} SUFFIX "${suffix}" NO_SONAME OFF
		LIBRARY_OUTPUT_DIRECTORY "${AB}/lib")
endfunction()

# ct_alloc_program(<name> <include dir> <stand-ins...>)
function(ct_alloc_program name inc)
	add_executable(${name} "${A}/${name}.c")
	target_include_directories(${name} PRIVATE "${inc}")
	target_compile_definitions(${name} PRIVATE __HIP_PLATFORM_AMD__)
	target_compile_options(${name} PRIVATE -O1 -g -fno-omit-frame-pointer -Wno-deprecated-declarations)
	target_link_libraries(${name} PRIVATE ${ARGN})
	set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${AB}"
		BUILD_RPATH "\$ORIGIN/lib" SKIP_BUILD_RPATH OFF)
endfunction()

ct_alloc_standin(alloc_cudart fake_cudart.c cudart .so.97 "${CUDA_HOME}/include")
ct_alloc_standin(alloc_cuda fake_cuda.c cuda .so.1 "${CUDA_HOME}/include")
ct_alloc_standin(alloc_hip fake_hip.c amdhip64 .so.97 "${HIP_INCLUDE_DIR}")
ct_alloc_standin(alloc_opencl fake_opencl.c OpenCL .so.1 "${OPENCL_INCLUDE_DIR}")
ct_alloc_program(alloc_cuda_calls "${CUDA_HOME}/include" alloc_cudart alloc_cuda)
ct_alloc_program(alloc_hip_calls "${HIP_INCLUDE_DIR}" alloc_hip)
ct_alloc_program(alloc_opencl_calls "${OPENCL_INCLUDE_DIR}" alloc_opencl)

ct_integration_test(alloc_families "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_alloc_families.py"
	LABELS root)
