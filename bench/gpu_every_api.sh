#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 30 on a machine with an NVIDIA GPU, from the repository root, with
# two builds' tracers (OLD, NEW: folders holding cudatracer and plugins/):
# PyTorch's expandable segments in NEW's memory report (cuMemCreate by
# handle, against what PyTorch says it holds), and a PyTorch eager loop in
# the default profile, untraced and traced by each build, in alternating
# order (VMM=0 leaves the first part out). Results under $OUT.
#   OLD=.carry/old NEW=.carry/new ROUNDS=3 bench/gpu_every_api.sh
set -uo pipefail
OLD=${OLD:?the old build folder} NEW=${NEW:?the new build folder}
OUT=${OUT:-/tmp/ct-every-api}
ROUNDS=${ROUNDS:-3}
ITERS=${ITERS:-20000}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name --format=csv,noheader
tracer() { local b=$1; shift; "$b/cudatracer" --no-config -C tracer.plugin_path="$b/plugins" "$@"; }

if [ "${VMM:-1}" = 1 ]; then
echo "== expandable segments: the memory report's VMM allocations"
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True tracer "$NEW" -P cudart,cuda -o memory:"$OUT/vmm_memory.txt" \
	-o jsonl:"$OUT/vmm.jsonl" -- python3 bench/torch_vmm.py > "$OUT/vmm_torch.json" 2> "$OUT/vmm.log"
cat "$OUT/vmm_torch.json"; tail -3 "$OUT/vmm.log"
grep -c '"api":"cuMemCreate"' "$OUT/vmm.jsonl"; grep -c '"api":"cuMemRelease"' "$OUT/vmm.jsonl"
grep -c '"api":"cuMemMap"' "$OUT/vmm.jsonl"; grep -c '"api":"cuMemAddressReserve"' "$OUT/vmm.jsonl"
grep -B2 -A12 "runtime cuda," "$OUT/vmm_memory.txt" | head -40
fi

echo "== PyTorch eager loop, default profile (us per iteration)"
for r in $(seq "$ROUNDS"); do
	order="old new"; [ $((r % 2)) -eq 0 ] && order="new old"
	echo "untraced $(python3 bench/torch_eager.py "$ITERS")"
	for b in $order; do
		dir=$OLD; [ "$b" = new ] && dir=$NEW
		echo "$b $(tracer "$dir" -P cudart -q -o jsonl:/tmp/eager-$b.jsonl -- python3 bench/torch_eager.py "$ITERS" 2>>"$OUT/eager.log")"
	done
done
tail -4 "$OUT/eager.log"

wc -l /tmp/eager-*.jsonl
