#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What one attach's jsonl trace holds of a running job (issue 31's
figures): launches with their kernel named, calls with their device, and,
with --gpu-activity, launches whose kernel came back from the GPU tied to
them. A launch is a runtime launch (cudaLaunch*) or a driver launch
(cuLaunch*) made outside any runtime call (no "parent"); its kernel record
is the gpu event whose correlation names that call: CUPTI's record of the
launch, on the same thread, begins inside the traced call (between its entry
and its return, 2 us either side). Prints one JSON line.

    python3 bench/live_coverage.py TRACE.jsonl
"""
import bisect
import json
import re
import sys

HEX = re.compile(r"0x[0-9a-f]+$")
NAME_ARGS = ("func", "f", "kernel", "hfunc")


def main():
    calls = launches = named = with_device = with_uuid = kernels = tied = 0
    first_ts = last_ts = None
    spans = {}  # tid -> [(entry, return)] of its launches
    kernel_keys = []
    with open(sys.argv[1]) as f:
        for line in f:
            e = json.loads(line)
            if e.get("kind") == "gpu":
                if e.get("op") == "kernel":
                    kernels += 1
                    c = e.get("correlation") or {}
                    if c.get("api") and c.get("ts_ns") is not None:
                        tied += 1
                        kernel_keys.append((c.get("tid"), c["ts_ns"]))
                continue
            if "api" not in e:
                continue
            calls += 1
            first_ts = e["ts_ns"] if first_ts is None else first_ts
            last_ts = e["ts_ns"]
            if e.get("device") is not None:
                with_device += 1
            if e.get("gpu_uuid"):
                with_uuid += 1
            api = e["api"]
            if api.startswith("cudaLaunch") or (api.startswith("cuLaunch") and "parent" not in e):
                if api.startswith(("cudaLaunchHostFunc", "cuLaunchHostFunc")):
                    continue
                launches += 1
                args = e.get("args", {})
                name = next((args[k] for k in NAME_ARGS if k in args), None)
                if isinstance(name, str) and name and not HEX.match(name):
                    named += 1
                spans.setdefault(e["tid"], []).append((e["ts_ns"], e["ts_ns"] + e.get("dur_ns", 0)))
    found = set()
    starts = {tid: [a for a, _ in sorted(v)] for tid, v in spans.items()}
    for tid in spans:
        spans[tid].sort()
    for tid, ts in kernel_keys:
        i = bisect.bisect_right(starts.get(tid, []), ts + 2000) - 1
        if i >= 0 and spans[tid][i][0] - 2000 <= ts <= spans[tid][i][1] + 2000:
            found.add((tid, i))
    pct = lambda a, b: round(100.0 * a / b, 3) if b else None
    print(json.dumps({
        "trace": sys.argv[1], "seconds": round((last_ts - first_ts) / 1e9, 2) if calls else 0,
        "calls": calls, "launches": launches, "named_pct": pct(named, launches),
        "device_pct": pct(with_device, calls), "gpu_uuid_pct": pct(with_uuid, calls),
        "kernels": kernels, "kernels_tied_pct": pct(tied, kernels),
        "launches_with_kernel_pct": pct(len(found), launches) if kernels else None,
    }))


if __name__ == "__main__":
    main()
