# SPDX-License-Identifier: MIT
# Daemon mode (docs/daemon.md): reload, refusal, stop, systemd's notify
# socket; and the soak test, ten minutes of process churn under the daemon
# (label soak: the normal pass of scripts/test.sh runs it, the ASan pass
# leaves it out; SOAK_SECONDS shortens it).
ct_integration_test(daemon "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_daemon.py" LABELS root)
ct_integration_test(soak "${CMAKE_CURRENT_SOURCE_DIR}/soak/test_soak.py" LABELS "root;soak" TIMEOUT 1200)
# Not beside burst_processes: 1,600 processes in seconds move the soak's RSS and take its pids.
set_tests_properties(soak PROPERTIES RESOURCE_LOCK machine_wide_burst)
# Reloads that must not cost the trace (docs/reliability.md): a bad value refused at its line.
ct_integration_test(daemon_reload_values "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_daemon_reload_values.py" LABELS root)
# A session after another continues what the one before wrote, never empties it.
ct_integration_test(daemon_restart_append "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_daemon_restart_append.py" LABELS root)
# A SIGHUP every millisecond: reloads coalesced, BPF loads not failed by the pending signals.
ct_integration_test(daemon_sighup_storm "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_daemon_sighup_storm.py" LABELS root)
# The metrics port kept across reloads: no one else can bind it in between.
ct_integration_test(daemon_metrics_port "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_daemon_metrics_port.py" LABELS root)
# Thousands of short processes beside a daemon's summary, memory and html sinks.
ct_integration_test(daemon_ended "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_daemon_ended.py" LABELS root)
set_tests_properties(daemon_ended PROPERTIES RESOURCE_LOCK machine_wide_burst)
set_property(TEST daemon_ended APPEND PROPERTY ENVIRONMENT "CT_SANITIZE=${CT_SANITIZE}")
# Rotation by size and age, gzip, the caps, planted links: every call in exactly one whole file.
ct_integration_test(daemon_rotate "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_daemon_rotate.py" LABELS root)
# Its files' sizes and counts are exact: a daemon traces every process, so no other test runs beside it.
set_tests_properties(daemon_rotate PROPERTIES RUN_SERIAL TRUE)
# The Kubernetes DaemonSet: its mounts, annotations and ConfigMap; its config and arguments pass --check-config.
ct_integration_test(kubernetes_manifest "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_kubernetes_manifest.py")
