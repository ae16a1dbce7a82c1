# SPDX-License-Identifier: MIT
# Capture windows (docs/daemon.md): --duration stops tracing after a time in
# every mode, the target going on untraced; the daemon's capture requests.
ct_integration_test(duration "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_duration.py" LABELS root)
# A capture request to the daemon: the window of one process in a new file; refusals and malformed requests.
ct_integration_test(daemon_capture "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_daemon_capture.py" LABELS root)
