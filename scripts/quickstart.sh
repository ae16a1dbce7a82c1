#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# From a fresh Debian 12 machine, as root: install what cudatracer needs,
# build it, and trace the bundled sample CUDA program.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
./scripts/build.sh

nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
if [ ! -x "$nvcc" ]; then
	echo "quickstart: $nvcc not found: install the CUDA toolkit (or set CUDA_HOME) to build the sample" >&2
	exit 1
fi
"$nvcc" -cudart shared -o build/sample samples/sample.cu
echo "== cudatracer --plugin cudart -- build/sample"
# Command mode passes the command's exit status through: without a GPU the
# sample's calls fail (cudaErrorInsufficientDriver) and it exits 1.
status=0
./build/cudatracer --plugin cudart -- build/sample || status=$?
if [ "$status" -ne 0 ] && ! nvidia-smi >/dev/null 2>&1; then
	echo "(no GPU here: every call failed with error 35, as traced above; the sample exited $status)"
	status=0
fi
exit "$status"
