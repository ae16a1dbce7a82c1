#!/bin/sh
# SPDX-License-Identifier: MIT
# `cudatracer report` on a gzip bomb: a meta line, one call, then SIZE_MB
# of 'A' with no line break (a few hundred KB compressed). Prints the
# report's wall time and peak RSS. Usage: bench/report_bomb.sh BUILD [SIZE_MB]
set -eu
build=${1:?usage: report_bomb.sh BUILD [SIZE_MB]}
mb=${2:-600}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir/bomb.jsonl.gz" "$mb" <<'PY'
import gzip, json, sys
meta = {"kind": "meta", "format": "cudatracer-jsonl", "version": 1, "host": "bench", "boot_id": "b",
        "tracer_pid": 1, "wall_ns": 10**12, "mono_ns": 5 * 10**8, "wall_offset_ns": 10**12 - 5 * 10**8}
call = {"ts_ns": 10**12, "plugin": "cudart", "api": "cudaMalloc", "pid": 1, "tid": 1, "comm": "app",
        "depth": 0, "dur_ns": 500, "result": 0, "error": False, "args": {"size": 4096}}
with gzip.open(sys.argv[1], "wb", 9) as g:
    g.write((json.dumps(meta) + "\n" + json.dumps(call) + "\n").encode())
    for _ in range(int(sys.argv[2])):
        g.write(b"A" * (1 << 20))
PY
ls -l "$dir/bomb.jsonl.gz" | awk '{print "compressed: " $5 " bytes"}'
/usr/bin/time -f "report: %e s, peak RSS %M KB" "$build/cudatracer" report -q "$dir/bomb.jsonl.gz" \
	-o summary:/dev/null || true
