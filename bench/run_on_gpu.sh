#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The benchmarks on a machine with an NVIDIA GPU, from the repository root,
# with a built tree in $CT_BUILD: per-call overhead on real calls, the BPF
# programs' own time, what a running tracer costs other processes' syscalls,
# loss in a 64-thread burst, the user-space replay, the attach time, and a
# PyTorch eager loop traced with the default profile against untraced.
# Results under $OUT.
set -uo pipefail
B=${CT_BUILD:-build}
OUT=${OUT:-/tmp/ct-bench}
ROUNDS=${ROUNDS:-5}
mkdir -p "$OUT" "$B/bench"
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; uname -r
nvcc -O2 -cudart shared -o "$B/bench/workload" bench/workload.cu
CT_BUILD=$B python3 bench/run_bench.py -n 100000 --rounds "$ROUNDS" --modes "${MODES:-untraced,floor,jsonl,jsonl_2m,aggregate,entry_only,floor_eo}" --json "$OUT/bench.json" 2>"$OUT/bench.log"
echo "== BPF programs' own time"
CT_BUILD=$B python3 bench/run_bench.py -n 100000 --rounds 2 --modes floor,floor_clock,floor_record,jsonl,aggregate,entry_only,floor_eo --bpf-stats --json "$OUT/bpf.json" 2>"$OUT/bpf.log"
echo "== syscall cost beside a running tracer (ns per getppid)"
CT_BUILD=$B ROUNDS=3 bench/syscall_tax.sh
echo "== burst"
mkdir -p "$B/tests/programs"
nvcc -O1 -cudart shared -o "$B/tests/programs/cudart_threads_shared" tests/programs/cudart_threads.cu -lpthread
CT_BUILD=$B THREADS=64 CALLS=10000 RING=16M ROUNDS=1 bench/burst.sh
CT_BUILD=$B THREADS=64 CALLS=10000 RING=2M ROUNDS=1 bench/burst.sh
echo "== replay (events/s per core)"
for s in none jsonl jsonl jsonl jsonl jsonl jsonl text; do "$B/bench/ct-replay" "$B/plugins/libct-cudart.so" 5000000 $s; done
echo "== attach"
"$B/bench/ct-attach-bench" "$B/plugins/libct-cudart.so" "$B/bench/libct_many_funcs.so"
echo "== torch eager loop (us per iteration)"
for r in $(seq "$ROUNDS"); do
	echo "untraced $(python3 bench/torch_eager.py 20000)"
	echo "traced-jsonl $("$B/cudatracer" -q -o jsonl:"$OUT/torch.jsonl" -- python3 bench/torch_eager.py 20000 2>>"$OUT/torch.log")"
	echo "traced-aggregate $("$B/cudatracer" -q -C tracer.mode=aggregate -C tracer.aggregate_path="$OUT/torch_agg.txt" -- python3 bench/torch_eager.py 20000 2>>"$OUT/torch.log")"
done
tail -3 "$OUT/torch.log"
head -12 "$OUT/torch_agg.txt"
echo "== PyTorch MLP training step, each mode against its own floor (issue 15)"
CT_BUILD=$B ROUNDS=$ROUNDS OUT="$OUT/torch-train" bench/torch_train_bench.sh
