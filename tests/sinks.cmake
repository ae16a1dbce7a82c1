# SPDX-License-Identifier: MIT
# The output sinks beyond text (jsonl, summary, chrome, csv, memory, html):
# unit tests on hand-built events, integration tests on real traced programs.
foreach(t hist jsonl summary csv memory chrome html sqlite)
	ct_unit_test(test_sink_${t} "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_sink_${t}.c")
	target_include_directories(test_sink_${t} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/unit")
endforeach()

set(I "${CMAKE_CURRENT_SOURCE_DIR}/integration")
foreach(t files signals html report stdout report_inputs report_pids sqlite sqlite_daemon)
	if(EXISTS "${I}/test_sinks_${t}.py")
		ct_integration_test(sinks_${t} "${I}/test_sinks_${t}.py" LABELS root)
	endif()
endforeach()
