#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 32 on a machine with an NVIDIA GPU, from the repository root, with a
# tracer in $CT (a folder holding cudatracer, plugins/ and the injection
# library, tests/gpu/pack.sh): for each workload of torch_planted.py,
#  1. a traced run (--gpu-activity --stacks, NVTX on), `report --answer`
#     of it (text and json, steps from the `step *` ranges);
#  2. a run of the same program under torch.profiler, and an untraced one;
#  3. compare_profiler.py: GPU busy time and GPU time per kernel name
#     against the profiler's (2%), step times against the program's own (5%),
#     the planted causes named with their functions;
#  4. fixtures for tests/fixtures/ (3 steps each, gzip -9) with their answers;
#  5. CUDA graphs: torch_graphs.py replayed 20 times, check_graphs.py.
# Results under $OUT.
#   CT=.carry/ct STEPS=20 tests/gpu/run_analysis.sh
set -uo pipefail
CT=${CT:-build}
OUT=${OUT:-/tmp/ct-analysis}
STEPS=${STEPS:-20}
mkdir -p "$OUT/fixtures"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
TRACE=("$CT/cudatracer" -q --plugin cudart,cuda --gpu-activity --stacks -C stacks.apis=launch,copy,set,sync,errors)
for w in ${WORKLOADS:-planted gpt}; do
	echo "== $w"
	python3 tests/gpu/torch_planted.py "$w" "$STEPS" "$OUT/$w.plain.json"
	"${TRACE[@]}" -o "jsonl:$OUT/$w.jsonl" -- python3 tests/gpu/torch_planted.py "$w" "$STEPS" "$OUT/$w.own.json"
	echo "traced exit $?"
	"$CT/cudatracer" report "$OUT/$w.jsonl" --answer json --step-range 'step*' >"$OUT/$w.answer.json"
	"$CT/cudatracer" report "$OUT/$w.jsonl" --answer text --step-range 'step*' | tee "$OUT/$w.answer.txt"
	"$CT/cudatracer" report "$OUT/$w.jsonl" --answer text | tee "$OUT/$w.answer-period.txt"
	python3 tests/gpu/torch_planted.py "$w" "$STEPS" "$OUT/$w.ownprof.json" "$OUT/$w.prof.json"
	python3 tests/gpu/compare_profiler.py "$OUT/$w.answer.json" "$OUT/$w.own.json" "$OUT/$w.prof.json" \
		"$OUT/$w.ownprof.json" | tee "$OUT/$w.compare.txt"
	# The fixture: a short traced run, its answer with the arguments it was made with.
	f="$OUT/fixtures/torch_$w"
	"${TRACE[@]}" -o "jsonl:$f.jsonl" -- python3 tests/gpu/torch_planted.py "$w" 3 "$f.own.json"
	"$CT/cudatracer" report "$f.jsonl" --answer json --step-range 'step*' |
		python3 -c 'import json,sys; a=json.load(sys.stdin); a["args"]=["--step-range","step*"]; print(json.dumps(a))' >"$f.answer.json"
	gzip -9 -f "$f.jsonl"
	ls -l "$f.jsonl.gz"
	gzip -9 -f "$OUT/$w.jsonl" "$OUT/$w.prof.json"
done
# CUDA graphs: each replayed kernel tied to its node and the call captured into it.
echo "== graphs"
"${TRACE[@]}" -o "jsonl:$OUT/graphs.jsonl" -- python3 tests/gpu/torch_graphs.py 20 >"$OUT/graphs.expect.json"
echo "traced exit $?"
python3 tests/gpu/check_graphs.py "$OUT/graphs.jsonl" "$OUT/graphs.expect.json" | tee "$OUT/graphs.check.txt"
"$CT/cudatracer" report "$OUT/graphs.jsonl" --answer text | tail -25
gzip -9 -f "$OUT/graphs.jsonl"
