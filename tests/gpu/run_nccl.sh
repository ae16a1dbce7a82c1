#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On a machine with an NVIDIA GPU: torch.distributed with the nccl backend,
# one rank (MASTER_ADDR=127.0.0.1), traced with the cudart and nccl plugins
# from whatever libnccl the process maps (pip's nvidia-nccl wheel in torch's
# site-packages); then `cudatracer merge` of that one trace. Prints what
# appeared: the libnccl probed, each NCCL API with its calls, results,
# bytes and communicator, the summary's collectives table and the merge's.
set -uo pipefail
B=${CT_BUILD:-build}
OUT=${OUT:-/tmp/ct-nccl}
mkdir -p "$OUT"
cat > "$OUT/allreduce.py" <<'PY'
import os, torch, torch.distributed as dist
dist.init_process_group("nccl", rank=0, world_size=1)
x = torch.ones(1 << 20, device="cuda")
for _ in range(5):
    dist.all_reduce(x)
y = [torch.empty(1 << 16, device="cuda", dtype=torch.float16)]
dist.all_gather(y, torch.ones(1 << 16, device="cuda", dtype=torch.float16))
dist.broadcast(x, src=0)
torch.cuda.synchronize()
print("allreduce result", x[0].item())
dist.destroy_process_group()
PY
export MASTER_ADDR=127.0.0.1 MASTER_PORT=${MASTER_PORT:-29533} RANK=0 LOCAL_RANK=0 WORLD_SIZE=1
"$B/cudatracer" -v --plugin cudart,nccl -o "jsonl:$OUT/rank0.jsonl" -o "summary:$OUT/summary.txt" \
	-- python3 "$OUT/allreduce.py" 2> "$OUT/tracer.log"
echo "exit $?"
grep -E "plugin nccl: .* probes on|nccl:" "$OUT/tracer.log" | head -5
tail -1 "$OUT/tracer.log"
python3 - "$OUT/rank0.jsonl" <<'PY'
import collections, json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
meta, ev = lines[0], [e for e in lines[1:] if e.get("plugin") == "nccl"]
print("meta:", {k: meta[k] for k in ("host", "wall_offset_ns")})
by = collections.OrderedDict()
for e in ev:
    s = by.setdefault(e["api"], {"calls": 0, "results": collections.Counter(), "bytes": 0, "comm": None})
    s["calls"] += 1
    s["results"][e.get("result_name")] += 1
    s["bytes"] += e.get("bytes", 0)
    s["comm"] = e.get("communicator") or s["comm"]
for api, s in by.items():
    print("%-28s calls %-4d bytes %-10d results %s comm %s" % (api, s["calls"], s["bytes"], dict(s["results"]), s["comm"]))
first = next((e for e in ev if e["api"].endswith("AllReduce")), None)
print("first allreduce:", json.dumps(first))
PY
sed -n '/Collectives/,$p' "$OUT/summary.txt"
"$B/cudatracer" merge "$OUT/rank0.jsonl" -o "chrome:$OUT/merged.json" -o summary
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('merged trace:', len(d['traceEvents']), 'events, valid JSON')" "$OUT/merged.json"
