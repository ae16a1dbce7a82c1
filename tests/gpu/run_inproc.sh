#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --engine inproc on a machine with an NVIDIA GPU (the H200), from the
# repository root, with a built tree in $CT_BUILD (default build/). About 6
# minutes; compact results last, full outputs under $OUT.
#
#  1. The driver side, which needs a driver: tests/programs/cudart_gpu.cu
#     (-cudart shared) under --plugin cudart,cuda with each engine. libcudart
#     gets every driver function from cuGetProcAddress (found with dlsym):
#     the in-process engine must see the driver calls it makes, each with
#     its cudart parent, as the eBPF engine does. Prints the driver APIs
#     each engine saw, with counts, and the calls that differ.
#  2. The workload's tight loops (bench/run_bench.py): ns per call,
#     untraced, jsonl (eBPF) and inproc, ROUNDS rounds.
#  3. The PyTorch training loop (tests/gpu/torch_mlp_train.py), in rotating
#     order: untraced, --engine ebpf and --engine inproc, both with
#     --plugin cudart,cuda to a jsonl file: ms per step and events, lost.
#  4. What the hook path adds against a stand-in runtime of two functions
#     (bench/inproc_micro.py: no driver, the engine alone), and what its
#     pieces cost alone on this machine (rdtsc, a CAS, process_vm_readv);
#     with OLD_BUILD=dir, an older tree's tracer beside this one's.
set -uo pipefail
B=${CT_BUILD:-build}
OUT=${OUT:-/tmp/ct-inproc}
ROUNDS=${ROUNDS:-3}
STEPS=${STEPS:-400}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
uname -r
if [ ! -x "$B/cudatracer" ] || [ ! -f "$B/libcudatracer-inproc.so" ]; then
	echo "no built tree in $B (cudatracer and libcudatracer-inproc.so): build it first (scripts/build.sh)"
	exit 1
fi

echo "== 1. driver calls through cuGetProcAddress, both engines"
P=$OUT/cudart_gpu # valid on a GPU (cudart_calls passes made-up handles)
nvcc -cudart shared -o "$P" tests/programs/cudart_gpu.cu || exit 1
for e in ebpf inproc; do
	"$B/cudatracer" --no-config --engine $e --plugin cudart,cuda -o "jsonl:$OUT/calls_$e.jsonl" -- "$P" \
		>"$OUT/calls_$e.out" 2>"$OUT/calls_$e.err"
	echo "$e: exit $? $(grep -E 'events,' "$OUT/calls_$e.err")"
done
$PY - "$OUT" <<'PY'
import collections, json, sys
out = sys.argv[1]
def load(e):
    ev = [json.loads(l) for l in open("%s/calls_%s.jsonl" % (out, e)) if '"api"' in l]
    return ev
for e in ("ebpf", "inproc"):
    ev = load(e)
    drv = collections.Counter((x["api"], (x.get("parent") or {}).get("api", "-")) for x in ev if x["plugin"] == "cuda")
    print("%s: %d cudart calls, %d driver calls in %d kinds" % (e, sum(x["plugin"] == "cudart" for x in ev),
          sum(drv.values()), len(drv)))
    for (api, parent), n in sorted(drv.items(), key=lambda kv: -kv[1])[:12]:
        print("   %5d %-32s in %s" % (n, api, parent))
key = lambda x: (x["plugin"], x["api"], (x.get("parent") or {}).get("api"), x.get("result"), bool(x.get("entry_only")))
a, b = collections.Counter(map(key, load("ebpf"))), collections.Counter(map(key, load("inproc")))
print("only ebpf:", dict(a - b))
print("only inproc:", dict(b - a))
PY

echo "== 2. tight loops (ns per call)"
$PY bench/run_bench.py -n 200000 --rounds "$ROUNDS" --modes untraced,jsonl,inproc --json "$OUT/bench.json" \
	2>"$OUT/bench.err" | tee "$OUT/bench.md"

echo "== 3. PyTorch training loop, $STEPS steps"
T=tests/gpu/torch_mlp_train.py
modes=(untraced ebpf inproc)
for r in $(seq 1 "$ROUNDS"); do
	for k in 0 1 2; do
		m=${modes[$(((k + r) % 3))]}
		if [ "$m" = untraced ]; then
			$PY $T plain "$STEPS" >"$OUT/torch_${m}_$r.json" 2>/dev/null
		else
			"$B/cudatracer" --no-config --engine "$m" --plugin cudart,cuda -o "jsonl:$OUT/torch_${m}_$r.jsonl" -- \
				$PY $T plain "$STEPS" >"$OUT/torch_${m}_$r.json" 2>"$OUT/torch_${m}_$r.err"
		fi
		echo "round $r $m: $(cat "$OUT/torch_${m}_$r.json" | tail -1) $(grep -E 'events,' "$OUT/torch_${m}_$r.err" 2>/dev/null)"
	done
done
$PY - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
ms = {m: statistics.median(json.loads(open("%s/torch_%s_%d.json" % (out, m, r)).read().splitlines()[-1])["ms_per_step"]
                           for r in range(1, rounds + 1)) for m in ("untraced", "ebpf", "inproc")}
for m in ("ebpf", "inproc"):
    print("torch: %s %.3f ms/step, untraced %.3f: %+.1f%%" % (m, ms[m], ms["untraced"],
          (ms[m] / ms["untraced"] - 1) * 100))
PY

echo "== 4. the hook path against a stand-in runtime (ns per call)"
CT_BUILD="$B" $PY bench/inproc_micro.py -n 300000 --rounds "$((ROUNDS * 3))" --out /dev/null ${OLD_BUILD:+--old "$OLD_BUILD"} \
	--json "$OUT/micro.json" 2>"$OUT/micro.err" | tee "$OUT/micro.md"
