# SPDX-License-Identifier: MIT
# The analysis layer (core/analysis/, docs/analysis.md): unit tests of its
# parts, and `cudatracer report`'s answer on synthetic traces with planted
# causes (tests/fixtures/gen_trace.py) and on the recorded fixtures.
ct_unit_test(test_analysis "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_analysis.c")
ct_integration_test(analysis_report "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_analysis_report.py")
ct_unit_test(test_analysis_sinks "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_analysis_sinks.c")
target_include_directories(test_analysis_sinks PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/unit")
ct_integration_test(analysis_live "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_analysis_live.py")
