# SPDX-License-Identifier: MIT
# The plugin tables' one validator (core/plugin/validate.c) and the loader's
# view of variants; plugins it must refuse, and the tracer refusing them.
ct_unit_test(test_validate "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_validate.c")
target_compile_options(test_validate PRIVATE -Wno-override-init)

# Test plugins for the loader: built for another ABI, too small, not a
# plugin, a broken row, a non-zero unknown tail, a wild pointer.
foreach(bad abi size none row tail wild)
	add_library(badplugin_${bad} MODULE "${CMAKE_CURRENT_SOURCE_DIR}/unit/bad_plugin.c")
	string(TOUPPER ${bad} BAD)
	target_compile_definitions(badplugin_${bad} PRIVATE BAD_${BAD})
	target_include_directories(badplugin_${bad} PRIVATE "${CT_PUBLIC_INCLUDE}")
	target_compile_options(badplugin_${bad} PRIVATE -Wno-override-init)
	set_target_properties(badplugin_${bad} PROPERTIES PREFIX "lib" OUTPUT_NAME "ct-bad${bad}"
		LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/badplugins")
endforeach()
ct_integration_test(test_plugin_refused "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_plugin_refused.py"
	LABELS plugin)
ct_integration_test(test_plugin_listing "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_plugin_listing.py"
	LABELS plugin)
ct_integration_test(test_plugin_twice "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_plugin_twice.py"
	LABELS plugin root)
