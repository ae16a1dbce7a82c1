# SPDX-License-Identifier: MIT
# The metric sinks (prometheus, remote_write, otlp): the model and the
# exposition text on hand-built events; real servers in the integration
# tests (Debian's Prometheus, OpenTelemetry's own decoder under Node.js).
ct_unit_test(test_sink_metrics "${CMAKE_CURRENT_SOURCE_DIR}/unit/test_sink_metrics.c")
target_include_directories(test_sink_metrics PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/unit")

set(I "${CMAKE_CURRENT_SOURCE_DIR}/integration")
foreach(t prometheus remote_write otlp bad_input push_stop slow_clients)
	ct_integration_test(metrics_${t} "${I}/test_metrics_${t}.py" LABELS root)
endforeach()
# -o TYPE:WHERE: a metric sink's address or URL, never a file of that name.
ct_integration_test(cli_sink_where "${I}/test_cli_sink_where.py" LABELS root)
# The network sinks' libraries are opened only for such a sink (sinks/netlibs.c).
ct_integration_test(sink_libs "${I}/test_sink_libs.py" LABELS root)
# A process whose exit was never heard is found gone by the tracer's look at /proc.
ct_integration_test(exits_unheard "${I}/test_exits_unheard.py" LABELS root)
