#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build and run the whole test suite: unit tests, and the integration tests
# that load real BPF programs (these need root, as in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
