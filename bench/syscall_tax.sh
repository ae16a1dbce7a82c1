#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a running cudatracer costs processes it does not trace: ns per
# syscall (getppid) in another process, alternately with no tracer and with
# `cudatracer -- sleep` running (its watcher attached), ROUNDS times.
# Usage: CT_BUILD=build [ROUNDS=5] bench/syscall_tax.sh
set -euo pipefail
B=${CT_BUILD:-build}
ROUNDS=${ROUNDS:-5}
echo "round no_tracer_ns with_tracer_ns"
for r in $(seq "$ROUNDS"); do
	base=$("$B/bench/ct-syscalls")
	"$B/cudatracer" -q -o jsonl:/dev/null -- sleep 3 2>/dev/null &
	t=$!
	sleep 1.5
	with=$("$B/bench/ct-syscalls")
	wait "$t"
	echo "$r $base $with"
done
