#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 31 on a machine with an NVIDIA GPU, from the repository root, with a
# tracer in $CT (a folder holding cudatracer, plugins/ and the injection
# library): a running PyTorch training loop (tests/gpu/torch_mlp_train.py)
# attached to with -p in rounds of untraced, default and default-gpu
# (--gpu-activity brought into the process and out again) stretches of
# SECONDS_; each stretch's trace read by bench/live_coverage.py (launches
# named, calls with a device, launches with their GPU kernel record), the
# step times by bench/attach_windows.py. Results under $OUT.
#   CT=.carry/ct ROUNDS=3 SECONDS_=10 tests/gpu/run_attach_live.sh
set -uo pipefail
CT=${CT:-build}
OUT=${OUT:-/tmp/ct-attach-live}
mkdir -p "$OUT/traces"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
TL=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
python3 bench/elf_symtab.py "$TL"/libtorch_cuda.so "$TL"/libtorch_cpu.so "$TL"/libc10_cuda.so
python3 bench/attach_windows.py --build "$CT" --plugins cudart,cuda --modes "${MODES:-default,default-gpu}" \
	--rounds "${ROUNDS:-3}" --seconds "${SECONDS_:-10}" --traces "$OUT/traces" --json "$OUT/windows.json" \
	-- python3 tests/gpu/torch_mlp_train.py windows 50 100000 2>&1 | tee "$OUT/attach_live.txt"
