#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build and run the whole test suite: unit tests, and the integration tests
# that load real BPF programs (these need root, as in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"

# Again under AddressSanitizer and UndefinedBehaviorSanitizer, built with clang
# so that the libFuzzer targets come along: every unit and integration test,
# and each fuzz target for CT_FUZZ_SECONDS (docs/reliability.md). Not the soak
# test (label soak, ten minutes of process churn under the daemon): it runs
# once, in the pass above.
cmake -S . -B build-asan -DCMAKE_C_COMPILER=clang -DCT_SANITIZE=ON -DCT_FUZZ=ON \
	-DCT_FUZZ_SECONDS="${CT_FUZZ_SECONDS:-60}" >/dev/null
cmake --build build-asan -j"$(nproc)"
LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0" \
	ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -LE soak "$@"
