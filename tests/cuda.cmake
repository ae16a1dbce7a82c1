# SPDX-License-Identifier: MIT
# The CUDA driver plugin and kernel names: unit tests for the symbolizer and names,
# driver-API programs linked with the toolkit's stub libcuda, nvcc programs
# whose kernels live in the executable and in shared libraries.

# ---- unit tests ------------------------------------------------------------
# A library with known symbols, and a stripped copy of it.
add_library(test_symbolizer_fixture MODULE "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_symbolizer_fixture.c")
set_target_properties(test_symbolizer_fixture PROPERTIES PREFIX "lib"
	LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/unit")
set(sym_stripped "${CMAKE_BINARY_DIR}/tests/unit/libtest_symbolizer_fixture_stripped.so")
add_custom_command(OUTPUT "${sym_stripped}"
	COMMAND ${CMAKE_STRIP} --strip-all -o "${sym_stripped}" $<TARGET_FILE:test_symbolizer_fixture>
	DEPENDS test_symbolizer_fixture COMMENT "strip test_symbolizer_fixture")
add_custom_target(test_symbolizer_fixture_stripped ALL DEPENDS "${sym_stripped}")

ct_unit_test(test_symbolizer "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_symbolizer.c")
target_compile_definitions(test_symbolizer PRIVATE
	SYM_FIXTURE="$<TARGET_FILE:test_symbolizer_fixture>" SYM_FIXTURE_STRIPPED="${sym_stripped}")
target_link_libraries(test_symbolizer PRIVATE dl)
add_dependencies(test_symbolizer test_symbolizer_fixture test_symbolizer_fixture_stripped)

# The ELF reader's rules (core/symbols/elf.h): a library with an IFUNC, versioned and
# zero-size functions, its stripped copy (.dynsym only) and a separate debug file.
set(elf_fx_map "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_elf_fixture.map")
add_library(test_elf_fixture MODULE "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_elf_fixture.c")
target_compile_options(test_elf_fixture PRIVATE -O1 -g)
target_link_options(test_elf_fixture PRIVATE "-Wl,--version-script=${elf_fx_map}")
set_target_properties(test_elf_fixture PROPERTIES PREFIX "lib" LINK_DEPENDS "${elf_fx_map}"
	LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/unit")
set(elf_stripped "${CMAKE_BINARY_DIR}/tests/unit/libtest_elf_fixture_stripped.so")
set(elf_debug "${CMAKE_BINARY_DIR}/tests/unit/libtest_elf_fixture.debug")
add_custom_command(OUTPUT "${elf_stripped}" "${elf_debug}"
	COMMAND ${CMAKE_STRIP} --strip-all -o "${elf_stripped}" $<TARGET_FILE:test_elf_fixture>
	COMMAND ${CMAKE_OBJCOPY} --only-keep-debug $<TARGET_FILE:test_elf_fixture> "${elf_debug}"
	DEPENDS test_elf_fixture COMMENT "strip test_elf_fixture")
add_custom_target(test_elf_fixture_stripped ALL DEPENDS "${elf_stripped}" "${elf_debug}")

ct_unit_test(test_elf "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_elf.c")
target_compile_definitions(test_elf PRIVATE ELF_FIXTURE="$<TARGET_FILE:test_elf_fixture>"
	ELF_FIXTURE_STRIPPED="${elf_stripped}" ELF_FIXTURE_DEBUG="${elf_debug}")
target_link_libraries(test_elf PRIVATE dl)
add_dependencies(test_elf test_elf_fixture test_elf_fixture_stripped)

ct_unit_test(test_names "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_names.c")
ct_unit_test(test_demangle "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_demangle.c")

# The plugin's table against the symbols libcuda exports.
ct_unit_test(test_cuda_table "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_cuda_table.c")
target_compile_definitions(test_cuda_table PRIVATE CUDA_PLUGIN="$<TARGET_FILE:ct-cuda>"
	CUDA_STUB="${CUDA_HOME}/lib64/stubs/libcuda.so")
target_link_libraries(test_cuda_table PRIVATE dl)
add_dependencies(test_cuda_table ct-cuda)

# ---- driver-API programs -----------------------------------------------------
# Linked with the toolkit's stub libcuda, whose soname is libcuda.so.1 but
# which the stubs folder ships only as libcuda.so: tests/stubs holds the
# link that the loader looks for. Tests run the programs with
# LD_LIBRARY_PATH=tests/stubs; a libcudart started that way loads the stub
# as its driver too.
set(ct_cuda_stubs "${CMAKE_BINARY_DIR}/tests/stubs")
file(MAKE_DIRECTORY "${ct_cuda_stubs}")
file(CREATE_LINK "${CUDA_HOME}/lib64/stubs/libcuda.so" "${ct_cuda_stubs}/libcuda.so.1" SYMBOLIC)

function(ct_driver_program name src)
	add_executable(${name} "${CMAKE_CURRENT_SOURCE_DIR}/programs/${src}")
	target_include_directories(${name} PRIVATE "${CUDA_HOME}/include")
	target_link_directories(${name} PRIVATE "${CUDA_HOME}/lib64/stubs")
	target_link_libraries(${name} PRIVATE cuda dl)
	target_compile_options(${name} PRIVATE -O1 -fno-omit-frame-pointer)
	set_target_properties(${name} PROPERTIES
		RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/programs")
endfunction()

ct_driver_program(driver_calls driver_calls.c)
# The same calls under --default-stream per-thread names (_ptds, _ptsz).
ct_driver_program(driver_calls_ptds driver_calls.c)
target_compile_definitions(driver_calls_ptds PRIVATE CUDA_API_PER_THREAD_DEFAULT_STREAM=1)
ct_driver_program(driver_module driver_module.c)

# ---- programs built with nvcc ---------------------------------------------------
if(NOT NVCC)
	message(STATUS "nvcc not found: kernel-name test programs are not built")
else()
	set(ct_prog_dir "${CMAKE_BINARY_DIR}/tests/programs")
	add_custom_command(OUTPUT "${ct_prog_dir}/driver_kernels.ptx"
		COMMAND ${CMAKE_COMMAND} -E make_directory "${ct_prog_dir}"
		COMMAND ${NVCC} -ptx -o "${ct_prog_dir}/driver_kernels.ptx"
			"${CMAKE_CURRENT_SOURCE_DIR}/programs/driver_kernels.cu"
		DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/programs/driver_kernels.cu" COMMENT "nvcc -ptx driver_kernels")
	add_custom_target(prog_driver_kernels_ptx ALL DEPENDS "${ct_prog_dir}/driver_kernels.ptx")

	# Kernel names: kernels in the executable, with the runtime static (nvcc's default) and shared.
	ct_cuda_program(kname_static "${CMAKE_CURRENT_SOURCE_DIR}/programs/kname.cu")
	ct_cuda_program(kname_shared "${CMAKE_CURRENT_SOURCE_DIR}/programs/kname.cu" SHARED)

	# Kernels in a shared library, with the runtime linked into the library or shared.
	foreach(rt static shared)
		set(lib "${ct_prog_dir}/libkname_lib_${rt}.so")
		set(exe "${ct_prog_dir}/kname_uselib_${rt}")
		add_custom_command(OUTPUT "${lib}"
			COMMAND ${CMAKE_COMMAND} -E make_directory "${ct_prog_dir}"
			COMMAND ${NVCC} -O1 -g -shared -Xcompiler -fPIC -cudart ${rt} -o "${lib}"
				"${CMAKE_CURRENT_SOURCE_DIR}/programs/kname_lib.cu"
			DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/programs/kname_lib.cu" COMMENT "nvcc libkname_lib_${rt}.so")
		add_custom_command(OUTPUT "${exe}"
			COMMAND ${CMAKE_C_COMPILER} -O1 -g -o "${exe}"
				"${CMAKE_CURRENT_SOURCE_DIR}/programs/kname_uselib.c"
				"${lib}" "-Wl,-rpath,${ct_prog_dir}" "-Wl,-rpath,${CUDA_HOME}/lib64"
			DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/programs/kname_uselib.c" "${lib}"
			COMMENT "kname_uselib_${rt}")
		add_custom_target(prog_kname_uselib_${rt} ALL DEPENDS "${exe}")
	endforeach()
	# The shared-runtime library stripped of its symbol table, as PyTorch's wheels ship theirs.
	set(stripped "${ct_prog_dir}/libkname_lib_shared_stripped.so")
	add_custom_command(OUTPUT "${stripped}"
		COMMAND ${CMAKE_STRIP} --strip-all -o "${stripped}" "${ct_prog_dir}/libkname_lib_shared.so"
		DEPENDS "${ct_prog_dir}/libkname_lib_shared.so" COMMENT "strip libkname_lib_shared.so")
	add_custom_target(prog_kname_lib_shared_stripped ALL DEPENDS "${stripped}")
	add_executable(kname_wait "${CMAKE_CURRENT_SOURCE_DIR}/programs/kname_wait.c")
	target_link_libraries(kname_wait PRIVATE dl)
	set_target_properties(kname_wait PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${ct_prog_dir}"
		BUILD_RPATH "${CUDA_HOME}/lib64")
	ct_integration_test(cuda_attach_stripped "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cuda_attach_stripped.py"
		LABELS root)

	# A pip-style layout: the runtime copied into a folder of its own, the way the
	# nvidia-cuda-runtime wheel installs it, and found only through the
	# executable's RPATH.
	set(pip_lib "${ct_prog_dir}/pip/site-packages/nvidia/cuda_runtime/lib")
	file(GLOB ct_cudart_so "${CUDA_HOME}/lib64/libcudart.so.[0-9]*")
	list(FILTER ct_cudart_so EXCLUDE REGEX "libcudart\\.so\\.[0-9]+\\.[0-9]")
	list(GET ct_cudart_so 0 ct_cudart_so)
	get_filename_component(ct_cudart_soname "${ct_cudart_so}" NAME)
	add_custom_command(OUTPUT "${pip_lib}/${ct_cudart_soname}"
		COMMAND ${CMAKE_COMMAND} -E make_directory "${pip_lib}"
		COMMAND ${CMAKE_COMMAND} -E copy "${ct_cudart_so}" "${pip_lib}/${ct_cudart_soname}"
		DEPENDS "${ct_cudart_so}" COMMENT "pip-style copy of ${ct_cudart_soname}")
	add_custom_target(prog_pip_cudart ALL DEPENDS "${pip_lib}/${ct_cudart_soname}")
	ct_cuda_program(kname_pip "${CMAKE_CURRENT_SOURCE_DIR}/programs/kname.cu" SHARED
		NVCC_FLAGS -Xlinker --disable-new-dtags -Xlinker -rpath -Xlinker "${pip_lib}")
	add_dependencies(prog_kname_pip prog_pip_cudart)
endif()

# ---- integration tests (root, real BPF) -----------------------------------------
ct_integration_test(test_cuda_driver "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cuda_driver.py"
	LABELS cuda)
ct_integration_test(test_cuda_names "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cuda_names.py"
	LABELS cuda)
ct_integration_test(test_cuda_knames "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cuda_knames.py"
	LABELS cuda)
ct_integration_test(test_cuda_nesting "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cuda_nesting.py"
	LABELS cuda)
# The symbolizer tests fork; a bug there must fail, not hang the suite.
set_tests_properties(test_symbolizer test_elf test_names test_demangle test_cuda_table PROPERTIES TIMEOUT 60)
