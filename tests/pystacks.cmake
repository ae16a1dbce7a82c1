# SPDX-License-Identifier: MIT
# Python frames (--stacks, docs/stacks-python.md).
set(I "${CMAKE_CURRENT_SOURCE_DIR}/integration")
ct_integration_test(py_stacks "${I}/test_py_stacks.py" LABELS root)
ct_integration_test(pyoffsets_current "${I}/test_pyoffsets_current.py")
