#!/bin/bash
# SPDX-License-Identifier: MIT
# What GPU activity costs on the tracer's side, per CUPTI record, without a
# GPU: tests/programs/gpu_activity's flood phase hands the injection library
# full buffers of a launch's records (its API record and its kernel) through
# the stand-in libcupti, as CUPTI's worker thread does, and prints the CPU
# time of that thread per record (docs/performance.md, "GPU activity's own
# cost"). Modes: `library` (the library alone: CUDA_INJECTION64_PATH set by
# hand, no tracer, ct_gpu_batch unprobed) and `traced` (cudatracer
# --gpu-activity, the batch probe and the reader on; -o jsonl:/dev/null).
#   bench/gpu_records.sh [BUILD] [ROUNDS] [BUFFERS]      (as root)
set -euo pipefail
B=$(realpath "${1:-build}")
ROUNDS=${2:-5}
export FLOOD_BUFFERS=${3:-2000}
T=$(mktemp -d /tmp/ct-gpu-records.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/rotate.sh"
P=$B/tests/programs
one() {
	case $1 in
	library) CUDA_INJECTION64_PATH=$B/libcudatracer-inject.so CUDATRACER_CUPTI=$P/libfake_cupti.so \
		"$P/gpu_activity" "$P/fakegpu" gpu flood ;;
	traced) "$B/cudatracer" -q --plugin cudart,cuda --gpu-activity -C tracer.cupti_path="$P/libfake_cupti.so" \
		-o jsonl:/dev/null -- "$P/gpu_activity" "$P/fakegpu" gpu flood 2>/dev/null ;;
	esac | grep -o '"flood":{[^}]*}'
}
rotate "$ROUNDS" "library traced" one "$T/runs"
cat "$T/runs"
python3 - "$T/runs" <<'PY'
import json, statistics, sys
by = {}
for line in open(sys.argv[1]):
    mode, rest = line.split(" ", 1)
    by.setdefault(mode, []).append(json.loads("{" + rest.strip() + "}")["flood"]["ns_per_record"])
for mode, v in by.items():
    print("%-8s ns of CPU per record: median %.1f (%s)" % (mode, statistics.median(v), ", ".join("%.1f" % x for x in v)))
if "library" in by and "traced" in by:
    print("the tracer's part: %.1f ns per record" % (statistics.median(by["traced"]) - statistics.median(by["library"])))
PY
