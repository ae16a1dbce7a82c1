#!/bin/sh
# SPDX-License-Identifier: MIT
# `cudatracer report --answer` on a large synthetic training loop
# (tests/fixtures/gen_trace.py: 15 lines a step, about 500 bytes a line):
# events read and analysed a second, on one core, and peak RSS, for each way
# of finding steps. docs/performance.md has the figures.
# Usage: bench/analysis_bench.sh BUILD [STEPS]   (STEPS 100000: 1.5 M events)
set -eu
build=${1:?usage: analysis_bench.sh BUILD [STEPS]}
steps=${2:-100000}
src=$(dirname "$0")/..
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 "$src/tests/fixtures/gen_trace.py" -n "$steps" -o "$dir/loop.jsonl"
lines=$(($(wc -l < "$dir/loop.jsonl") - 1))
echo "trace: $lines events, $(($(stat -c %s "$dir/loop.jsonl") / 1048576)) MiB"
for how in "--step-range step" "--step-function train_step" ""; do
	# shellcheck disable=SC2086 # $how is two words or none
	/usr/bin/time -f "%e %U %S %M" -o "$dir/time" taskset -c 0 "$build/cudatracer" report "$dir/loop.jsonl" \
		--answer json $how > "$dir/answer.json"
	read -r secs user sys rss < "$dir/time"
	python3 - "$dir/answer.json" "$lines" "$secs" "$user" "$sys" "$rss" "${how:-period}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["processes"][0]
lines, secs, cpu, rss = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]) + float(sys.argv[5]), int(sys.argv[6])
# CPU time as well as wall time: on a shared machine the wall clock counts others' work.
print("%-28s %d steps, %.2f s wall, %.2f s CPU, %.2f M events/s of CPU, peak RSS %d MB"
      % (sys.argv[7], p["steps"], secs, cpu, lines / cpu / 1e6 if cpu else 0, rss // 1024))
PY
done
