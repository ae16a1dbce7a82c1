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
./build/cudatracer --plugin cudart -- build/sample
