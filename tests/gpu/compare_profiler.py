# SPDX-License-Identifier: MIT
"""Compare `cudatracer report --answer json` of a traced run of
torch_planted.py with torch.profiler's Chrome trace of a second run of the
same program, and with the program's own step times:

    compare_profiler.py ANSWER.json OWN.json PROFILE.json OWN_PROFILED.json

- GPU busy time a step: the union of the GPU's kernels, copies and sets
  inside each `step N` range, as docs/analysis.md defines it, computed here
  from the profiler's trace (its record_function ranges of the same names);
- GPU time a step of each kernel name (counted in the step it starts in);
- the step's wall time against the program's own (perf_counter, same run);
- for the planted workload, each planted cause named with its function.
Prints one line per figure and a JSON summary last; exits 1 if a figure is
outside its bound (busy and kernels 2%, steps 5%) or a cause is not named.
"""
import json
import re
import sys

answer, own, prof, own_prof = (json.load(open(p)) for p in sys.argv[1:5])
fails = []


def check(what, ours, theirs, bound):
    rel = abs(ours - theirs) / theirs if theirs else float("inf")
    ok = rel <= bound
    print("%-58s ours %12.3f  ref %12.3f  %+6.2f%%  %s" % (what, ours, theirs,
          100 * (ours - theirs) / theirs if theirs else 0, "ok" if ok else "OUT"))
    if not ok:
        fails.append(what)
    return rel


proc = max(answer["processes"], key=lambda p: p["steps"])
steps = proc["steps"]
print("traced run: %d steps (%s), profiled run: %d steps" % (steps, proc["steps_by"], own_prof["steps"]))

# The profiler's steps and GPU records.
ev = prof["traceEvents"]
windows = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev
                 if e.get("cat") == "user_annotation" and e.get("name", "").startswith("step "))
gpu = sorted((e["ts"], e["ts"] + e["dur"], e.get("cat"), e.get("name", "")) for e in ev
             if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and "dur" in e)
busy = 0.0
kernels = {}
for s, t in windows:
    cur0 = cur1 = None
    for a, b, cat, name in gpu:
        if b <= s or a >= t:
            continue
        if cat == "kernel" and s <= a < t:
            kernels[name] = kernels.get(name, 0.0) + (b - a)
        a, b = max(a, s), min(b, t)
        if cur1 is None or a > cur1:
            if cur1 is not None:
                busy += cur1 - cur0
            cur0, cur1 = a, b
        else:
            cur1 = max(cur1, b)
    if cur1 is not None:
        busy += cur1 - cur0
n_prof = len(windows)

rel = {}
rel["busy"] = check("GPU busy a step (ms)", proc["busy_ns"] / 1e6 / steps, busy / 1e3 / n_prof, 0.02)


def key(name):
    return re.sub(r"\s+", "", name)


ours_k = {key(k["name"]): k["ns"] / 1e6 / steps for k in proc["kernels"]}
theirs_k = {key(k): v / 1e3 / n_prof for k, v in kernels.items()}
top = sorted(theirs_k, key=theirs_k.get, reverse=True)[:10]
worst = 0.0
for k in top:
    if k in ours_k:
        worst = max(worst, check("kernel %s (ms a step)" % k[:40], ours_k[k], theirs_k[k], 0.02))
    else:
        print("kernel %s: not in the answer's list" % k[:80])
        fails.append("kernel " + k[:40])
rel["kernels_worst"] = worst
own_mean = sum(own["step_s"]) / len(own["step_s"]) * 1e3
rel["step"] = check("step wall time (ms), the program's own", proc["wall_ns"] / 1e6 / steps, own_mean, 0.05)

if own["workload"] == "planted":
    marks = own["marks"]
    want = {"sync": ("log_loss", marks["SYNC"]), "launch_bound": ("tiny_ops", marks["TINY"]),
            "host_work": ("host_pause", marks["PAUSE"]), "pageable_copy": ("load_batch", marks["PAGEABLE"])}
    for cause, (fn, line) in want.items():
        sites = proc["causes"][cause]["sites"]
        site = "%s (%s:%d)" % (fn, own["file"], line)
        hit = [s for s in sites if s["site"].endswith(site) or s["site"] == site]
        print("cause %-14s %-40s %s" % (cause, "%s:%d" % (fn, line),
              ("named, %.3f ms in %d" % (hit[0]["ns"] / 1e6, hit[0]["n"])) if hit else
              "NOT named (sites: %s)" % [s["site"] for s in sites[:3]]))
        if not hit:
            fails.append("cause " + cause)
print(json.dumps({"steps": steps, "rel": rel, "fails": fails}))
sys.exit(1 if fails else 0)
