#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The answer (why the GPU was idle) in a live run's sinks with the steps the
user names: --step-range (config analysis.step_range) takes the run's NVTX
ranges as steps, as `cudatracer report --step-range` does for a trace.

tests/programs/gpu_activity's `steps` phase makes 4 NVTX ranges "step", each
a launch whose kernel runs 2 ms on the GPU (through the stand-in libcupti)
and 5 ms of sleep; the summary must find exactly those 4 steps and their
busy time; without --step-range the same run's steps come from elsewhere
(the launch sequence's period), never from the ranges.
"""
import json
import os
import re

import cttest as t

FAKE_CUPTI = os.path.join(t.PROGRAMS, "libfake_cupti.so")
FAKE_DIR = os.path.join(t.PROGRAMS, "fakegpu")


def run(extra):
    args = ["--plugin", "cudart,cuda", "--gpu-activity", "-C", "tracer.cupti_path=" + FAKE_CUPTI] + extra
    tr = t.run(args, command=[t.program("gpu_activity"), FAKE_DIR, "gpu", "steps"],
               extra_sinks=t.SUMMARY_AND_CHROME_SINKS)
    t.check(tr.rc == 0, "exit %d" % tr.rc, tr)
    return tr, open(os.path.join(tr.files, "summary.txt")).read()


def main():
    t.need_root()
    tr, summary = run(["--step-range", "step"])
    m = re.search(r'pid (\d+): (\d+) steps \(NVTX ranges matching "step"\)', summary)
    t.check(m and m.group(2) == "4", "4 steps from the NVTX ranges:\n" + summary, tr)
    step = re.search(r"a step: wall ([\d.]+) ms, busy ([\d.]+) ms,", summary)
    t.check(step, "a step's line:\n" + summary, tr)
    wall, busy = (round(float(step.group(i)) * 1e6) for i in (1, 2))
    # Each step: one 2 ms kernel wholly inside it, 5 ms of sleep at least.
    t.check(busy == 2000000, "busy a step %d ns, expected 2000000\n%s" % (busy, summary), tr)
    t.check(wall >= 5000000, "wall a step %d ns, expected 5 ms or more\n%s" % (wall, summary), tr)
    t.check(re.search(r"8\.000 ms\s+4x step\(\)", summary), "top kernels: 4x step() 8 ms\n" + summary, tr)
    t.check("no meta line" not in summary, "a live run has no trace to lack a meta line:\n" + summary, tr)
    # The chrome trace marks those steps, on the process's steps track.
    ev = json.load(open(os.path.join(tr.files, "trace.json")))
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    track = [e["tid"] for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name" and
             e["args"].get("name") == "steps (analysis)" and e["pid"] == int(m.group(1))]
    steps = [e for e in ev if track and e.get("tid") == track[0] and e.get("ph") == "X" and e.get("name") == "step"]
    t.check(len(steps) == 4, "chrome: %d step slices on the steps track, expected 4" % len(steps), tr)

    _, summary = run([])
    t.check("NVTX ranges matching" not in summary, "steps from ranges without --step-range:\n" + summary)
    # The config key, as a file sets it; a bad link speed is refused with its key.
    tr, summary = run(["-C", "analysis.step_range=ste?", "-C", "analysis.host_gap=20us"])
    t.check('4 steps (NVTX ranges matching "ste?")' in summary, "analysis.step_range:\n" + summary, tr)
    bad = t.run(["--plugin", "cudart", "-C", "analysis.link_gbps=-1"], command=["true"])
    t.check(bad.rc != 0 and "analysis.link_gbps" in bad.stderr, "a bad link_gbps refused", bad)
    print("ok: live steps from NVTX ranges (4, 2 ms busy each), by config key, none without")


if __name__ == "__main__":
    main()
