#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run on a machine with an NVIDIA GPU, from the repository root, with a built
# tree in $CT_BUILD (default build/): trace the sample program (shared and
# static runtime) and a PyTorch snippet, and summarise what appeared.
# Output goes to $OUT (default /tmp/ct-gpu).
set -uo pipefail
B=${CT_BUILD:-build}
OUT=${OUT:-/tmp/ct-gpu}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
uname -r
nvcc -cudart shared -o "$OUT/sample_shared" samples/sample.cu
nvcc -o "$OUT/sample_static" samples/sample.cu
for v in shared static; do
	echo "== sample_$v"
	"$B/cudatracer" --plugin cudart -o "jsonl:$OUT/sample_$v.jsonl" -o text:- -- "$OUT/sample_$v"
	echo "exit $?"
done
echo "== torch snippet"
"$B/cudatracer" --plugin cudart -o "jsonl:$OUT/torch.jsonl" -- python3 tests/gpu/torch_snippet.py
echo "exit $?"
python3 - "$OUT" <<'PY'
import collections, json, sys
out = sys.argv[1]
for name in ("sample_shared", "sample_static", "torch"):
    ev = [e for e in map(json.loads, open("%s/%s.jsonl" % (out, name))) if e.get("kind") != "meta"]
    by = collections.Counter(e["api"] for e in ev)
    res = collections.Counter(e.get("result_name") for e in ev)
    copied = sum(e["args"].get("count", 0) for e in ev if e["api"].startswith("cudaMemcpy"))
    launches = [e for e in ev if e["api"].startswith("cudaLaunch")]
    print("%s: %d calls, results %s" % (name, len(ev), dict(res)))
    print("  per API: %s" % dict(by.most_common()))
    print("  kernel launches: %d (grids %s), bytes copied by cudaMemcpy*: %d" % (
        len(launches), sorted({tuple(e["args"]["grid"]) for e in launches})[:5], copied))
    print("  first events: %s" % [(e["api"], e.get("result_name")) for e in ev[:6]])
PY
