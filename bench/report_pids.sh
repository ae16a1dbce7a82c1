#!/bin/sh
# SPDX-License-Identifier: MIT
# `cudatracer report` and `merge` on a trace of many short processes: PIDS
# processes of two calls each (cudaMalloc, cudaFree), the pids in order.
# Prints each command's wall time and peak RSS.
# Usage: bench/report_pids.sh BUILD [PIDS] [SINKS]   (SINKS default: summary)
#
# Figures (2-core VM, RelWithDebInfo), before and after the per-pid lookups
# became hashed (memory sink's exit: every space sorted at each exit; merge:
# each line's process searched among all, each process checked against all;
# gpustats: every row walked for each process printed):
#   bench/report_pids.sh build 10000 memory   report 15.86 s -> 0.49 s (44 MB)
#   bench/report_pids.sh build 40000 memory   report 1.38 s, 142 MB
#   bench/report_pids.sh build 10000 summary  report 3.22 s -> 1.30 s
#   bench/report_pids.sh build 40000 summary  report 6.19 s, 668 MB (each
#       process's tables until its end: a report's processes end at its end)
#   merge: 10,000 pids 0.61 s, 20,000 2.07 s, 40,000 5.65 s -> 40,000 0.68 s (37 MB)
set -eu
build=${1:?usage: report_pids.sh BUILD [PIDS] [SINKS]}
n=${2:-40000}
sinks=${3:-summary}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" "$n" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
meta = {"kind": "meta", "format": "cudatracer-jsonl", "version": 1, "host": "bench", "boot_id": "b",
        "tracer_pid": 1, "wall_ns": 10**12, "mono_ns": 5 * 10**8, "wall_offset_ns": 10**12 - 5 * 10**8}
# all in one trace for report; two halves (two hosts) for merge
for name, part, step in (("t", 0, 1), ("t0", 0, 2), ("t1", 1, 2)):
    with open("%s/%s.jsonl" % (d, name), "w") as f:
        f.write(json.dumps(dict(meta, host="bench%d" % part, boot_id="b%d" % part)) + "\n")
        for i in range(part, n, step):
            pid, ts = 1000 + i, 10**12 + i * 10000
            for api, off, args in (("cudaMalloc", 0, {"size": 4096}), ("cudaFree", 5000, {})):
                f.write(json.dumps({"ts_ns": ts + off, "plugin": "cudart", "api": api, "pid": pid, "tid": pid,
                                    "comm": "app", "depth": 0, "dur_ns": 500, "result": 0, "error": False,
                                    "args": args}) + "\n")
PY
outs=""
for s in $(echo "$sinks" | tr ',' ' '); do outs="$outs -o $s:/dev/null"; done
/usr/bin/time -f "report ($n pids, $sinks): %e s, peak RSS %M KB" "$build/cudatracer" report -q "$dir/t.jsonl" $outs || true
/usr/bin/time -f "merge ($n pids): %e s, peak RSS %M KB" "$build/cudatracer" merge -q "$dir/t0.jsonl" "$dir/t1.jsonl" -o chrome:/dev/null -o summary:/dev/null || true
