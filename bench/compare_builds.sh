#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two builds side by side in one run, in alternating order, from the
# repository root: the BPF programs' own time per call (run_bench.py
# --bpf-stats: floors, jsonl, aggregate) and a PyTorch eager loop (untraced,
# jsonl and aggregate with each build). For before/after figures where the
# machine's own drift between runs is larger than the change.
#   OLD=/path/to/old/build NEW=build ROUNDS=4 bench/compare_builds.sh
# Results under $OUT: bpf-<build>-<round>.json, torch.txt, and a table on stdout.
set -uo pipefail
OLD=${OLD:?the old build folder}
NEW=${NEW:-build}
OUT=${OUT:-/tmp/ct-compare}
ROUNDS=${ROUNDS:-4}
N=${N:-100000}
TORCH_ITERS=${TORCH_ITERS:-20000}
mkdir -p "$OUT"
workload="$OUT/workload"
if [ ! -x "$workload" ]; then
	nvcc -O2 -cudart shared -o "$workload" bench/workload.cu || exit 1
fi

echo "== BPF programs' own time, $ROUNDS rounds, builds alternating"
for r in $(seq "$ROUNDS"); do
	order="OLD NEW"
	[ $((r % 2)) -eq 0 ] && order="NEW OLD"
	for b in $order; do
		CT_BUILD=${!b} python3 bench/run_bench.py -n "$N" --rounds 1 --workload "$workload" \
			--modes floor,floor_clock,floor_record,jsonl,aggregate --bpf-stats \
			--json "$OUT/bpf-$b-$r.json" >/dev/null 2>>"$OUT/bpf.log" || echo "round $r $b failed"
	done
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def figures(b):
    per = {}
    for r in range(1, rounds + 1):
        p = os.path.join(out, "bpf-%s-%d.json" % (b, r))
        if not os.path.exists(p):
            continue
        for mode, runs in json.load(open(p))["bpf"].items():
            per.setdefault(mode, []).extend(x["ns_per_probe_run"] for x in runs if x.get("ns_per_probe_run"))
    return {m: statistics.median(v) for m, v in per.items() if v}
print("| build | empty | clock | record | jsonl | aggregate | jsonl/record | aggregate/clock |")
print("|---|---|---|---|---|---|---|---|")
for b in ("OLD", "NEW"):
    f = figures(b)
    if not all(k in f for k in ("floor", "floor_clock", "floor_record", "jsonl", "aggregate")):
        print("| %s | missing figures: %s |" % (b, sorted(f)))
        continue
    # Per call (an entry and a return) above the empty programs.
    above = {k: 2 * (f[k] - f["floor"]) for k in f}
    print("| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f |" % (
        b, f["floor"], f["floor_clock"], f["floor_record"], f["jsonl"], f["aggregate"],
        above["jsonl"] / above["floor_record"], above["aggregate"] / above["floor_clock"]))
print("\n(ns per probe run, medians over rounds; the ratios are per call above the empty programs)")
PY

if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
	echo "== PyTorch eager loop, us per iteration, $ROUNDS rounds, rotating"
	: >"$OUT/torch.txt"
	modes="untraced OLD-jsonl NEW-jsonl OLD-aggregate NEW-aggregate"
	for r in $(seq "$ROUNDS"); do
		for m in $modes; do
			case $m in
			untraced) v=$(python3 bench/torch_eager.py "$TORCH_ITERS") ;;
			*-jsonl) b=${m%%-*}; v=$("${!b}/cudatracer" -q -o jsonl:"$OUT/t.jsonl" -- python3 bench/torch_eager.py "$TORCH_ITERS" 2>>"$OUT/torch.log") ;;
			*-aggregate) b=${m%%-*}; v=$("${!b}/cudatracer" -q -C tracer.mode=aggregate -C tracer.aggregate_path="$OUT/agg.txt" -- python3 bench/torch_eager.py "$TORCH_ITERS" 2>>"$OUT/torch.log") ;;
			esac
			echo "$m $v" >>"$OUT/torch.txt"
		done
		modes="$(echo "$modes" | cut -d' ' -f2-) $(echo "$modes" | cut -d' ' -f1)"
	done
	python3 - "$OUT/torch.txt" <<'PY'
import json, statistics, sys
by = {}
for line in open(sys.argv[1]):
    m, _, js = line.partition(" ")
    try:
        by.setdefault(m, []).append(json.loads(js)["us_per_iter"])
    except ValueError:
        pass
base = statistics.median(by.get("untraced", [float("nan")]))
for m in ("untraced", "OLD-jsonl", "NEW-jsonl", "OLD-aggregate", "NEW-aggregate"):
    v = by.get(m)
    if v:
        med = statistics.median(v)
        print("%-14s median %6.1f us/iter (%+.0f%%)  runs %s" % (m, med, (med / base - 1) * 100, " ".join("%.1f" % x for x in v)))
PY
fi
