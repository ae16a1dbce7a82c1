#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`cudatracer report`'s answer (docs/analysis.md) on a synthetic training
loop with planted causes of idle GPU time (tests/fixtures/gen_trace.py says
each one and its exact cost): a sync in train_step (a .item()), a pageable
copy, a launch-bound stretch, host pauses. Steps are found three ways (NVTX
ranges, the Python function, the launch sequence's period) and each must
give the exact step count, busy and idle sums in ns, each cause with its
function and line, and the verdict's order. Then: older traces (no meta line,
no GPU lines, no Python frames, no ranges) say what they lack; a damaged
line is said and skipped; a hostile kernel name is escaped; bad options are
refused. Recorded fixtures (tests/fixtures/*.jsonl.gz with their
*.answer.json) must give their recorded answer."""
import glob
import json
import os
import subprocess
import sys
import tempfile

import cttest

GEN = os.path.join(cttest.SOURCE, "tests", "fixtures", "gen_trace.py")
FIXTURES = os.path.join(cttest.SOURCE, "tests", "fixtures")
tmp = tempfile.mkdtemp(prefix="ct_analysis_")

# One step of the generated loop (gen_trace.py's docstring).
STEP = {"wall": 1_000_000, "busy": 608_000, "idle": 392_000, "sync": 220_000, "host": 120_000,
        "launch": 52_000, "pageable": 40_000}


def gen(name, *flags, steps=10):
    path = os.path.join(tmp, name)
    subprocess.run([sys.executable, GEN, "-n", str(steps), "-o", path, *flags], check=True)
    return path


def report(trace, *args, ok=True):
    p = subprocess.run([cttest.TRACER, "report", trace, *args], capture_output=True, text=True, timeout=60)
    if ok:
        assert p.returncode == 0, "report %s failed (%d): %s" % (args, p.returncode, p.stderr)
    return p


def answer(trace, *args):
    d = json.loads(report(trace, "--answer", "json", *args).stdout)
    assert len(d["processes"]) == 1, d
    return d, d["processes"][0]


def sites(p, cause):
    return [(s["api"], s["site"], s["ns"], s["n"]) for s in p["causes"][cause]["sites"]]


def check_loop(p, n, how):
    assert p["steps_by"] == how, p
    assert p["steps"] == n, (how, p["steps"])
    assert (p["wall_ns"], p["busy_ns"], p["idle_ns"]) == (n * STEP["wall"], n * STEP["busy"], n * STEP["idle"]), p
    c = p["causes"]
    assert c["sync"]["ns"] == n * STEP["sync"] and c["sync"]["n"] == n, c["sync"]
    assert sites(p, "sync") == [("cudaStreamSynchronize", "train_step (/app/train.py:42)", n * 220_000, n)], p
    assert c["host_work"]["ns"] == n * STEP["host"] and c["host_work"]["n"] == 2 * n, c["host_work"]
    assert sites(p, "host_work") == [("cudaLaunchKernel", "backward (/app/model.py:50)", n * 110_000, n),
                                     ("cudaLaunchKernel", "forward (/app/model.py:10)", n * 10_000, n)], p
    assert c["launch_bound"]["ns"] == n * STEP["launch"] and c["launch_bound"]["n"] == 3 * n, c["launch_bound"]
    assert sites(p, "launch_bound") == [("cudaLaunchKernel", "layer_norm (/app/model.py:30)", n * 52_000, 3 * n)]
    assert c["pageable_copy"]["ns"] == n * STEP["pageable"] and c["pageable_copy"]["n"] == n, c["pageable_copy"]
    assert sites(p, "pageable_copy") == [(None, "to_device (/app/data.py:7)", n * 40_000, n)], p
    assert c["collective"]["ns"] == 0 and c["gpu_wait"]["ns"] == 0, c
    # Every idle ns has one cause.
    assert sum(c[k]["ns"] for k in ("sync", "collective", "launch_bound", "host_work", "gpu_wait")) == p["idle_ns"]
    assert [v["cause"] for v in p["verdict"]] == ["sync", "host_work", "launch_bound", "pageable_copy"], p
    assert p["copies"] == {"bytes": n * 1_000_000, "pageable_bytes": n * 1_000_000, "pageable_ns": n * 80_000}
    assert [(k["name"], k["ns"], k["n"]) for k in p["kernels"]] == [
        ("fwd", n * 290_000, n), ("bwd", n * 230_000, n), ("tiny", n * 8_000, 4 * n)], p["kernels"]


def main():
    full = gen("loop.jsonl")
    d, p = answer(full, "--step-range", "st?p*")
    assert d["version"] == 1 and d["lacks"] == [] and d["bad_lines"] == 0 and d["late"] == 0, d
    check_loop(p, 10, "nvtx")
    # From one entry into train_step to the next: 10 entries, 9 steps.
    check_loop(answer(full, "--step-function", "train_step")[1], 9, "function")
    # fwd tiny tiny tiny tiny bwd: period 6, steps from each fwd launch.
    _, p = answer(full)
    assert p["period"] == 6, p
    check_loop(p, 9, "period")
    # A pause of 104 us is launch-bound when host work starts at 200 us; the
    # 215 us pauses before fwd stay host work.
    _, p = answer(full, "--step-range", "step", "--host-gap-us", "200")
    assert p["causes"]["host_work"]["ns"] == 10 * 10_000 and p["causes"]["launch_bound"]["ns"] == 10 * 162_000, p
    # At a 12.5 GB/s link the 12.5 GB/s pageable copy costs nothing past the link.
    _, p = answer(full, "--step-range", "step", "--link-gbps", "12.5")
    assert p["causes"]["pageable_copy"]["ns"] == 0 and [v["cause"] for v in p["verdict"]][-1] == "launch_bound", p

    # The default report: the summary, then the answer in text.
    out = report(full, "--step-function", "train_step").stdout
    assert out.startswith("cudatracer summary"), out[:200]
    text = out[out.index("Why the GPU was idle"):]
    for want in ("pid 100: 9 steps (entries into Python function train_step)",
                 "wall 9.000 ms, GPU busy 5.472 ms (60.8%), idle 3.528 ms",
                 "1.980 ms      9x cudaStreamSynchronize from train_step (/app/train.py:42)",
                 "0.990 ms      9x cudaLaunchKernel from backward (/app/model.py:50)",
                 "0.468 ms     27x cudaLaunchKernel from layer_norm (/app/model.py:30)",
                 "0.360 ms      9x from to_device (/app/data.py:7)",
                 "pageable copies: 9000000 bytes in 0.720 ms, 12.50 GB/s against the link's 25.00 GB/s",
                 "verdict: 1. host sync (1.980 ms) 2. host work (1.080 ms) 3. launch-bound (0.468 ms) "
                 "4. pageable copies (0.360 ms)"):
        assert want in text, (want, text)
    # The sinks get the GPU lines and analyse with report's options: the
    # summary's answer is report's own, the chrome trace marks the 10 steps
    # and their 60 gaps; its json format and the csv carry none.
    want = report(full, "--answer", "text", "--step-range", "step").stdout
    assert report(full, "-o", "summary:-", "--step-range", "step").stdout.endswith(want), want
    assert "Why the GPU" not in report(full, "-o", "summary:-", "-C", "sink.summary.format=json").stdout
    chrome = os.path.join(tmp, "trace.json")
    report(full, "-o", "chrome:" + chrome, "--step-range", "step")
    ev = json.load(open(chrome))["traceEvents"]
    marks = [e for e in ev if e.get("cat") == "analysis"]
    steps = [e for e in marks if e["name"] == "step"]
    assert len(steps) == 10 and all(e["args"] == {"busy_ns": 608000, "idle_ns": 392000} for e in steps), steps
    gaps = [(e["name"], e["args"]["site"], round(e["dur"] * 1000)) for e in marks if e["name"] != "step"]
    assert gaps[:6] == [("host work", "forward (/app/model.py:10)", 10000),
                        ("launch-bound", "layer_norm (/app/model.py:30)", 16000),
                        ("launch-bound", "layer_norm (/app/model.py:30)", 18000),
                        ("launch-bound", "layer_norm (/app/model.py:30)", 18000),
                        ("host work", "backward (/app/model.py:50)", 110000),
                        ("host sync", "train_step (/app/train.py:42)", 220000)] and len(gaps) == 60, gaps[:8]
    assert len([e for e in ev if e.get("cat") == "gpu"]) == 70

    # A gzip-compressed trace reads the same.
    subprocess.run(["gzip", "-k", full], check=True)
    check_loop(answer(full + ".gz", "--step-range", "step")[1], 10, "nvtx")

    # Older recordings: what is missing is said, the rest analysed.
    old = gen("old.jsonl", "--no-meta", "--no-gpu", "--no-py", "--no-nvtx")
    d, p = answer(old)
    assert d["version"] == 0 and d["lacks"] == ["gpu_activity", "py_stack", "meta"], d
    assert (p["steps_by"], p["steps"], p["wall_ns"], p["busy_ns"]) == ("period", 9, 9_000_000, None), p
    d = json.loads(report(old, "--answer", "json", "--step-range", "step").stdout)
    assert d["lacks"] == ["gpu_activity", "nvtx", "py_stack", "meta"] and d["processes"] == [], d
    text = report(old, "--answer", "text").stdout
    assert "note: no GPU activity lines" in text and "note: no meta line" in text, text
    assert "pid 100: 9 steps (the launch sequence repeats every 6 launches)" in text, text
    assert "wall 9.000 ms (GPU time not recorded)" in text, text
    # GPU lines without Python frames: causes by API, the site unknown.
    _, p = answer(gen("nopy.jsonl", "--no-py"))
    check_sync = p["causes"]["sync"]
    assert check_sync["ns"] == 9 * 220_000 and sites(p, "sync") == [("cudaStreamSynchronize", None, 9 * 220_000, 9)], p

    # A damaged line: said with its file and line, skipped, the rest read.
    lines = open(full).read().split("\n")
    lines.insert(40, '{"ts_ns":12,"api":"cudaLaunchKernel",')
    bad = os.path.join(tmp, "bad.jsonl")
    open(bad, "w").write("\n".join(lines))
    r = report(bad, "--answer", "json", "--step-range", "step")
    d = json.loads(r.stdout)
    assert d["bad_lines"] == 1 and "bad.jsonl:41: not a trace line" in r.stderr, (d["bad_lines"], r.stderr)
    check_loop(d["processes"][0], 10, "nvtx")

    # A kernel name with ESC and a C1 control is escaped for the terminal.
    evil = os.path.join(tmp, "evil.jsonl")
    open(evil, "w").write(open(full).read().replace('"name":"fwd"', '"name":"fwd\\u001b[2J\\u009b"'))
    text = report(evil, "--answer", "text", "--step-range", "step").stdout
    assert "\x1b" not in text and "\x9b" not in text and "fwd\\x1b[2J\\x9b" in text, text
    json.loads(report(evil, "--answer", "json", "--step-range", "step").stdout)

    # Bad options.
    for args, msg in ((("--answer", "xml"), "--answer xml: not text, json or none"),
                      (("--step-range", "a", "--step-function", "b"), "--step-range or --step-function, not both"),
                      (("--link-gbps", "0"), "--link-gbps 0: not a positive number"),
                      (("--host-gap-us", "x"), "--host-gap-us x: not a positive number")):
        r = report(full, *args, ok=False)
        assert r.returncode == 2 and msg in r.stderr, (args, r.returncode, r.stderr)

    # Recorded fixtures (tests/fixtures/README.md): their answer as recorded.
    for trace in sorted(glob.glob(os.path.join(FIXTURES, "*.jsonl.gz"))):
        base = trace[:-len(".jsonl.gz")]
        with open(base + ".answer.json") as f:
            want = json.load(f)
        args = want.pop("args", [])
        got = json.loads(report(trace, "--answer", "json", *args).stdout)
        assert got == want, (trace, got)
    print("ok")


if __name__ == "__main__":
    main()
