#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two builds side by side in one run, in alternating order, from the
# repository root: the BPF programs' own time per call (run_bench.py
# --bpf-stats: floors, jsonl, aggregate) and a PyTorch eager loop (untraced,
# jsonl and aggregate with each build). For before/after figures where the
# machine's own drift between runs is larger than the change.
#   OLD=/path/to/old/build NEW=build ROUNDS=4 [PIN=W,T] bench/compare_builds.sh
# PIN: the workload on CPU W, the tracer on CPU T (run_bench.py --pin);
# TORCH_ITERS=0 leaves the PyTorch loop out; PAIRED=0 the paired pass (each
# mode and its floor on the same probes at once: run_bench.py's A+B modes).
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

# One run of run_bench.py --bpf-stats with build $1's tracer: modes $3,
# $4 rounds each, its figures in $OUT/$2.json.
bpf_stats() {
	local b=$1
	CT_BUILD=${!b} python3 bench/run_bench.py -n "$N" --rounds "$4" --workload "$workload" \
		--modes "$3" --bpf-stats ${PIN:+--pin "$PIN"} \
		--json "$OUT/$2.json" >/dev/null 2>>"$OUT/bpf.log" || echo "$2 failed"
}

echo "== BPF programs' own time, $ROUNDS rounds, builds alternating"
for r in $(seq "$ROUNDS"); do
	order="OLD NEW"
	[ $((r % 2)) -eq 0 ] && order="NEW OLD"
	for b in $order; do
		modes=floor,floor_clock,floor_record,jsonl,aggregate
		# The new build's own floors as session programs, and its modes on pair programs.
		[ "$b" = NEW ] && modes=$modes,floor_session,floor_clock_session,floor_record_session,jsonl_multi,aggregate_multi
		bpf_stats "$b" "bpf-$b-$r" "$modes" 1
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
print("| build | programs | empty | clock | record | jsonl | aggregate | jsonl/record | aggregate/clock |")
print("|---|---|---|---|---|---|---|---|---|")
# Each build's modes against the floors of the same program kind: the old
# build's default (pair programs) and the new one's (session programs) and
# its pair programs (the _multi modes).
rows = (("OLD", "default", "", ""), ("NEW", "default", "_session", ""), ("NEW", "pairs (attach = multi)", "", "_multi"))
for b, kind, fl, md in rows:
    f = figures(b)
    keys = ("floor" + fl, "floor_clock" + fl, "floor_record" + fl, "jsonl" + md, "aggregate" + md)
    if not all(k in f for k in keys):
        print("| %s | %s | missing figures: %s |" % (b, kind, sorted(f)))
        continue
    e, c, r, j, a = (f[k] for k in keys)
    # Per call (an entry and a return) above the empty programs.
    print("| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f |" % (
        b, kind, e, c, r, j, a, (j - e) / (r - e), (a - e) / (c - e)))
print("\n(ns per probe run, medians over rounds; the ratios are per call above the empty programs"
      " of the same kind; the new build's default is session programs where the kernel has them)")
PY

[ "${PAIRED:-1}" != 0 ] && {
echo "== Paired: each mode and its floor on the same probes at once (run_bench.py A+B), $ROUNDS rounds"
# The kernel times both programs on the same calls: their ratio is free of
# the drift between rounds that the medians above carry.
for r in $(seq "$ROUNDS"); do
	for b in OLD NEW; do
		modes=jsonl+floor_record,aggregate+floor_clock
		[ "$b" = NEW ] && modes=jsonl+floor_record_session,aggregate+floor_clock_session,jsonl_multi+floor_record,aggregate_multi+floor_clock
		bpf_stats "$b" "paired-$b-$r" "$modes" 2
	done
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
print("| build | mode + floor | ns per probe run (medians) | ratio per round | median ratio |")
print("|---|---|---|---|---|")
for b in ("OLD", "NEW"):
    per = {}
    for r in range(1, rounds + 1):
        p = os.path.join(out, "paired-%s-%d.json" % (b, r))
        if os.path.exists(p):
            for mode, runs in json.load(open(p))["bpf"].items():
                per.setdefault(mode, []).extend(x for x in runs if x.get("ratio"))
    for mode, runs in per.items():
        parts = mode.split("+")
        each = " / ".join("%.0f" % statistics.median(x["paired"][q]["ns_per_probe_run"] for x in runs) for q in parts)
        ratios = [x["ratio"] for x in runs]
        print("| %s | %s | %s | %s | %.2f |" % (b, mode, each, " ".join("%.2f" % x for x in ratios),
                                              statistics.median(ratios)))
print("\n(raw ratios of BPF time per probe run: the mode's programs against the floor's on the same hits)")
PY
}

if [ "$TORCH_ITERS" != 0 ] && python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
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
