#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --gpu-activity on a machine with an NVIDIA GPU (the H200), from the
# repository root, with a built tree in $CT_BUILD (default build/). About 5
# minutes; compact results last, full outputs under $OUT.
#
#  1. Known device work (tests/gpu/gpu_activity_kernels.cu: a 2 ms spin
#     kernel, saxpy over 256 MiB, 256 MiB copies each way, a 256 MiB set;
#     20 runs each, each timed by its own CUDA events): the device times the
#     tracer recorded against the program's cudaEventElapsedTime, per run.
#  2. A PyTorch MLP training loop (forward, backward, Adam) under
#     --plugin cudart,cuda --gpu-activity: per-kernel GPU time, launches
#     named and unnamed, GPU records named, correlated, lost.
#  3. Overhead on the same loop, in rotating order, ROUNDS rounds: untraced,
#     API tracing, API tracing + GPU activity, torch.profiler.
set -uo pipefail
B=${CT_BUILD:-build}
OUT=${OUT:-/tmp/ct-gpu-activity}
ROUNDS=${ROUNDS:-3}
STEPS=${STEPS:-400}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
uname -r
if [ ! -x "$B/cudatracer" ] || [ ! -f "$B/libcudatracer-inject.so" ]; then
	echo "no built tree in $B (cudatracer and libcudatracer-inject.so): build it first (scripts/build.sh)"
	exit 1
fi
T=("$B/cudatracer" --plugin cudart,cuda)

echo "== 1. known kernels and copies: device time vs cudaEventElapsedTime"
nvcc -O2 -arch=sm_90 -cudart shared -o "$OUT/kernels" tests/gpu/gpu_activity_kernels.cu || exit 1
"${T[@]}" --gpu-activity -o "jsonl:$OUT/kernels.jsonl" -o "summary:$OUT/kernels_summary.txt" -- \
	"$OUT/kernels" >"$OUT/kernels.out" 2>"$OUT/kernels.err"
echo "exit $?"
grep -E "GPU activity|launches:|lost|error" "$OUT/kernels.err" | grep -v "APIs are not in" | head -8
$PY - "$OUT" <<'PY'
import json, statistics, sys
out = sys.argv[1]
ev = json.loads(open(out + "/kernels.out").read())
gpu = sorted((e for e in map(json.loads, open(out + "/kernels.jsonl")) if e.get("kind") == "gpu"),
             key=lambda e: e["ts_ns"])
def name(e):
    if e["op"] == "kernel":
        return (e["name"] or "(unnamed)").split("(")[0].replace("void ", "")
    return "memcpy " + e["copy_kind"] if e["op"] == "memcpy" else "memset"
by = {}
for e in gpu:
    by.setdefault(name(e), []).append(e["dur_ns"] / 1e6)
print("%-14s %5s %10s %10s %9s %9s  %s" % ("op", "runs", "gpu ms", "event ms", "diff %", "max %", "GB/s (gpu)"))
bad = 0
for op in ("spin_kernel", "saxpy_kernel", "memcpy HtoD", "memcpy DtoH", "memset"):
    want = ev[op]
    got = by.get(op, [])[-len(want):]  # the warm-up runs came first
    if len(got) != len(want):
        print("%-14s %d device records for %d runs" % (op, len(got), len(want)))
        bad += 1
        continue
    diffs = [100.0 * (g - w) / w for g, w in zip(got, want)]
    med_g, med_w = statistics.median(got), statistics.median(want)
    gbps = "" if op.endswith("kernel") and op != "saxpy_kernel" else "%.0f" % (
        (ev["bytes"] * (3 if op == "saxpy_kernel" else 1)) / (med_g * 1e6))
    print("%-14s %5d %10.4f %10.4f %+9.2f %9.2f  %s" % (op, len(got), med_g, med_w, statistics.median(diffs),
                                                    max(abs(d) for d in diffs), gbps))
    bad += statistics.median([abs(d) for d in diffs]) > 5.0
corr = sum(1 for e in gpu if e["correlation"]["api"])
print("gpu records: %d, with their launching call: %d, kernels unnamed: %d" % (
    len(gpu), corr, sum(1 for e in gpu if e["op"] == "kernel" and not e["name"])))
print("check: %s (median |diff| within 5%% of the events' time for every op)" % ("FAILED" if bad else "ok"))
PY

echo "== 2. PyTorch MLP training (${STEPS} steps) with --gpu-activity"
"${T[@]}" --gpu-activity -o "jsonl:$OUT/torch.jsonl" -o "summary:$OUT/torch_summary.txt" -- \
	$PY tests/gpu/torch_mlp_train.py plain "$STEPS" >"$OUT/torch.out" 2>"$OUT/torch.err"
echo "exit $? $(cat "$OUT/torch.out")"
grep -E "GPU activity|launches:|lost|dropped" "$OUT/torch.err" | grep -v "APIs are not in" | head -8
$PY - "$OUT" <<'PY'
import collections, json, sys
out = sys.argv[1]
ev = [e for e in map(json.loads, open(out + "/torch.jsonl")) if e.get("kind") != "meta"]
gpu = [e for e in ev if e.get("kind") == "gpu"]
calls = [e for e in ev if "api" in e]
kern = [e for e in gpu if e["op"] == "kernel"]
launch = [e for e in calls if e["api"].startswith(("cudaLaunch", "cuLaunch"))]
unnamed = [e for e in launch if str(e["args"].get("func", e["args"].get("f"))).startswith(("0x", "None"))]
print("calls %d (launches %d, unnamed %d = %.2f%%); devices of calls: %s" % (
    len(calls), len(launch), len(unnamed), 100.0 * len(unnamed) / max(1, len(launch)),
    dict(collections.Counter(e.get("device") for e in calls))))
print("gpu: %d kernels (%d unnamed), %d copies, %d sets; %d with their launching call (by %s)" % (
    len(kern), sum(1 for e in kern if not e["name"]), sum(1 for e in gpu if e["op"] == "memcpy"),
    sum(1 for e in gpu if e["op"] == "memset"), sum(1 for e in gpu if e["correlation"]["api"]),
    dict(collections.Counter(e["correlation"]["api"] for e in gpu).most_common(4))))
t = collections.defaultdict(lambda: [0, 0])
for e in kern:
    k = (e["name"] or "(unnamed)")[:70]
    t[k][0] += 1
    t[k][1] += e["dur_ns"]
total = sum(v[1] for v in t.values()) or 1
print("%6s %8s %9s  %s" % ("count", "total ms", "avg us", "kernel (top 10 by GPU time)"))
for k, (n, ns) in sorted(t.items(), key=lambda kv: -kv[1][1])[:10]:
    print("%6d %8.2f %9.2f  %s" % (n, ns / 1e6, ns / n / 1e3, k))
PY

echo "== 3. overhead: ms per step, ${ROUNDS} rounds in rotating order"
modes=(untraced api api+gpu profiler)
run_mode() {
	case $1 in
	untraced) $PY tests/gpu/torch_mlp_train.py plain "$STEPS" ;;
	api) "${T[@]}" -q -o "jsonl:$OUT/o_api.jsonl" -- $PY tests/gpu/torch_mlp_train.py plain "$STEPS" ;;
	api+gpu) "${T[@]}" -q --gpu-activity -o "jsonl:$OUT/o_gpu.jsonl" -- $PY tests/gpu/torch_mlp_train.py plain "$STEPS" ;;
	profiler) $PY tests/gpu/torch_mlp_train.py profiler "$STEPS" ;;
	esac 2>>"$OUT/overhead.err"
}
: >"$OUT/overhead.txt"
for r in $(seq "$ROUNDS"); do
	for i in 0 1 2 3; do
		m=${modes[$(((i + r - 1) % 4))]}
		echo "$m $(run_mode "$m" | tail -1)" >>"$OUT/overhead.txt"
	done
done
$PY - "$OUT" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1] + "/overhead.txt"):
    mode, _, js = line.partition(" ")
    try:
        rows.setdefault(mode, []).append(json.loads(js)["ms_per_step"])
    except ValueError:
        rows.setdefault(mode, []).append(None)
base = statistics.median([v for v in rows.get("untraced", []) if v]) if rows.get("untraced") else None
print("%-10s %-28s %9s %9s" % ("mode", "ms/step per round", "median", "slowdown"))
for mode in ("untraced", "api", "api+gpu", "profiler"):
    v = [x for x in rows.get(mode, []) if x]
    med = statistics.median(v) if v else float("nan")
    print("%-10s %-28s %9.3f %8.1f%%" % (mode, " ".join("%.3f" % x for x in v), med,
                                          100.0 * (med / base - 1) if base and v else float("nan")))
PY
tail -3 "$OUT/overhead.err" | grep -v "APIs are not in"
