# SPDX-License-Identifier: MIT
# --engine inproc: the preload library against the eBPF engine, on the real libcudart.
set(I "${CMAKE_CURRENT_SOURCE_DIR}/integration")
ct_integration_test(inproc "${I}/test_inproc.py" LABELS root)
