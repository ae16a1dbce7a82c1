#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On a machine with an NVIDIA GPU: a PyTorch workload (elementwise ops and
# cuBLAS matmuls) traced with the cudart and cuda plugins, compared with what
# torch.profiler counts in the same run; and the sample with both layers.
set -uo pipefail
B=${CT_BUILD:-build}
OUT=${OUT:-/tmp/ct-gpu}
mkdir -p "$OUT"
"$B/cudatracer" --plugin cudart,cuda -o "jsonl:$OUT/torch2.jsonl" -- python3 tests/gpu/torch_launches.py "$OUT/profiler.json"
echo "exit $?"
nvcc -cudart shared -o "$OUT/sample" samples/sample.cu
"$B/cudatracer" --plugin cudart,cuda -o "jsonl:$OUT/sample2.jsonl" -o text:- -- "$OUT/sample" | tail -40
python3 tests/gpu/compare_launches.py "$OUT/torch2.jsonl" "$OUT/profiler.json" "$OUT/sample2.jsonl"
