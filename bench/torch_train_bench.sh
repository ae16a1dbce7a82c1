#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 15's benchmark on a machine with an NVIDIA GPU and PyTorch, from the
# repository root, in one call: a CPU-bound PyTorch MLP training step
# (tests/gpu/torch_mlp_train.py) untraced; under cudatracer --plugin
# cudart,cuda with the default profile and with --profile full; each of
# those with do-nothing programs on the same probes attached the same way
# (CUDATRACER_BENCH_PROGRAMS=empty: the mode's own floor); the default
# profile as it was before the session programs and the entry-only
# defaults ("before": attach = multi, tracer.timed = *) and its floor; and
# under torch.profiler. ROUNDS rounds,
# rotating order. Prints ms per step (medians), % over untraced, and each
# traced mode's added time as a ratio to its own floor's.
#   CT_BUILD=build ROUNDS=6 STEPS=400 OUT=/tmp/ct-torch bench/torch_train_bench.sh
set -uo pipefail
B=${CT_BUILD:-build}
ROUNDS=${ROUNDS:-6}
STEPS=${STEPS:-400}
OUT=${OUT:-/tmp/ct-torch}
mkdir -p "$OUT"
: >"$OUT/runs"
script=tests/gpu/torch_mlp_train.py
python3 -c "import torch; assert torch.cuda.is_available()" || { echo "needs PyTorch with CUDA"; exit 1; }
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; uname -r; "$B/cudatracer" --version

# One run of a mode: its JSON line last.
run_mode() {
	local m=$1 env=() args=(--plugin cudart,cuda -q -o jsonl:"$OUT/t.jsonl")
	case $m in
	untraced) python3 "$script" plain "$STEPS"; return ;;
	profiler) python3 "$script" profiler "$STEPS"; return ;;
	esac
	case $m in *floor*) env=(CUDATRACER_BENCH_PROGRAMS=empty) ;; esac
	case $m in full*) args+=(--profile full) ;; esac
	case $m in before*) args+=(-C tracer.attach=multi -C "tracer.timed=*") ;; esac
	env "${env[@]}" "$B/cudatracer" "${args[@]}" -- python3 "$script" plain "$STEPS" 2>>"$OUT/tracer.log"
}

. "$(dirname "$0")/rotate.sh"
rotate "$ROUNDS" "untraced default default-floor full full-floor before before-floor profiler" \
	run_mode "$OUT/runs"
grep -E "events|lost" "$OUT/tracer.log" | tail -2
python3 "$(dirname "$0")/floor_table.py" "$OUT/runs" ms_per_step untraced default-floor default full-floor full \
	before-floor before profiler
echo "(targets of issue 15: default at most +12%, every traced mode at most 1.2 times its floor)"
