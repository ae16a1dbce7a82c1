# SPDX-License-Identifier: MIT
"""Compare the tracer's launches in the marked region with torch.profiler's count."""
import collections
import json
import sys

ev = [e for e in map(json.loads, open(sys.argv[1])) if e.get("kind") != "meta"]  # the first line is the meta line
prof = json.load(open(sys.argv[2]))
marks = [e for e in ev if e["api"] == "cudaMemGetInfo"]
print("events %d, cudaMemGetInfo markers %d" % (len(ev), len(marks)))
lo, hi = marks[-2]["ts_ns"], marks[-1]["ts_ns"]
region = [e for e in ev if lo < e["ts_ns"] < hi]
by_api = collections.Counter((e["plugin"], e["api"]) for e in region)
print("region: %d calls; per API: %s" % (len(region), dict(by_api.most_common(25))))
launch = [e for e in region if "Launch" in e["api"] and "Graph" not in e["api"]]
rt = [e for e in launch if e["plugin"] == "cudart"]
drv = [e for e in launch if e["plugin"] == "cuda"]
print("tracer launches in region: runtime %d, driver %d; results %s" % (
    len(rt), len(drv), dict(collections.Counter(e.get("result_name") for e in launch))))
nested = [e for e in drv if any(r["tid"] == e["tid"] and r["ts_ns"] <= e["ts_ns"] and
                                e["ts_ns"] + e["dur_ns"] <= r["ts_ns"] + r["dur_ns"] for r in rt)]
print("driver launches nested in a runtime launch: %d; driver launches on their own: %d" % (len(nested), len(drv) - len(nested)))
parents = collections.Counter(str(e.get("parent")) for e in drv)
print("driver launches by the parent they name: %s" % dict(parents))
names = collections.Counter(e["args"].get("func") or e["args"].get("f") or e["args"].get("kernel") for e in launch)
print("kernel names (tracer): %s" % dict(names.most_common(12)))
print("torch.profiler: %d GPU kernels; launch API events %s" % (prof["gpu_kernels"], prof["profiler_launch_api_events"]))
print("profiler kernel names: %s" % dict(collections.Counter(prof["gpu_kernel_names"]).most_common(8)))
s = [e for e in map(json.loads, open(sys.argv[3])) if e.get("kind") != "meta"]
print("sample with cudart,cuda: %d events, %s" % (len(s), dict(collections.Counter((e["plugin"], e["api"]) for e in s).most_common(30))))
