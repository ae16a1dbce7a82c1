# SPDX-License-Identifier: MIT
# docs/config.md is generated from the key tables: fail when it drifts.
add_test(NAME docs_config_current
	COMMAND sh -c "\"$<TARGET_FILE:cudatracer>\" --config-help=markdown | diff -u \"${CMAKE_SOURCE_DIR}/docs/config.md\" - || { echo 'docs/config.md is out of date: build/cudatracer --config-help=markdown > docs/config.md'; exit 1; }")
set_tests_properties(docs_config_current PROPERTIES LABELS unit)
# docs/sinks.md's csv header is the sink's real one (a run's file).
ct_integration_test(docs_csv_header "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_docs_csv_header.py" LABELS root)
