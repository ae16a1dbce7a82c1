# SPDX-License-Identifier: MIT
# Install and package (issue 14): the default config and man pages generated
# from the tables, bash completion, the system config, an installed tree that
# works where it lies, and the Debian package installed in a throw-away root.
# `ctest -L package` runs them all; `ctest -L package_deb` the .deb alone.
set(PKT "${CMAKE_CURRENT_SOURCE_DIR}/package")

add_test(NAME package_default_config_current
	COMMAND sh -c "${Python3_EXECUTABLE} \"${CMAKE_SOURCE_DIR}/packaging/gen_config.py\" \"$<TARGET_FILE:cudatracer>\" | diff -u \"${CMAKE_SOURCE_DIR}/conf/cudatracer.ini\" - || { echo 'conf/cudatracer.ini is out of date: cp build/packaging/cudatracer.ini conf/'; exit 1; }")
set_tests_properties(package_default_config_current PROPERTIES LABELS "unit;package")

# The changelog's first entry is the version CPack gives the package.
add_test(NAME package_changelog_version
	COMMAND sh -c "v=$(dpkg-parsechangelog -l \"${CMAKE_SOURCE_DIR}/packaging/debian/changelog\" -S Version) && test \"$v\" = \"${PROJECT_VERSION}-${CT_DEB_RELEASE}\" || { echo \"packaging/debian/changelog is at $v, the project at ${PROJECT_VERSION}-${CT_DEB_RELEASE} (CT_DEB_RELEASE)\"; exit 1; }")
set_tests_properties(package_changelog_version PROPERTIES LABELS "unit;package")

# The sample of the quick start with nvcc's default static runtime: it runs
# in a bare Debian root, where no CUDA toolkit is.
if(NVCC)
	ct_cuda_program(sample_static "${CMAKE_SOURCE_DIR}/samples/sample.cu")
endif()

ct_integration_test(test_man_pages "${PKT}/test_man_pages.py" LABELS package)
ct_integration_test(test_completion "${PKT}/test_completion.py" LABELS package)
ct_integration_test(test_system_config "${PKT}/test_system_config.py" LABELS package)
ct_integration_test(test_install_tree "${PKT}/test_install_tree.py" LABELS package)
# The first run makes the Debian root (debootstrap, about a minute); later
# ones lay an overlay on it and take about 15 s.
ct_integration_test(test_package_deb "${PKT}/test_package_deb.py" LABELS package package_deb TIMEOUT 900)
set_property(TEST test_package_deb APPEND PROPERTY ENVIRONMENT "CT_SANITIZE=${CT_SANITIZE}")
