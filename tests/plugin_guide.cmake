# SPDX-License-Identifier: MIT
# docs/plugins.md's promise: a plugin built out of tree against an installed
# cudatracer loads and traces. The test stages `cmake --install` in a temporary
# folder, builds plugins/example there with its own Makefile, and traces the
# small library it comes with.
ct_integration_test(test_example_plugin "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_example_plugin.py" LABELS plugin_guide)
