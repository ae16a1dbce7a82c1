#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""NVTX ranges (docs/nvtx.md): tests/programs/nvtx_ranges.c pushes, pops,
starts and ends ranges (one across threads), in the default domain and in
a domain of its own, with ASCII, wide and registered names and one of 300
bytes, and makes marks, around real libcudart calls that fail (no GPU:
error 35). Traced in command mode with either engine, every range and mark
line is checked exactly (names, domains, threads, depths, the one left open
at exit), each call's `nvtx` list, the Chrome slices and the summary's "by
NVTX range" table; tracer.nvtx = false leaves NVTX alone, and so does the
tracer when another tool's injection is set. Kernels: tests/programs/gpu_activity
(the stand-in CUPTI of test_gpu_activity.py) launches inside a range it
leaves open; every kernel and copy whose launching call came gets the
range, through that call's thread and time, and the summary adds their GPU
time to it. `cudatracer report` of a trace gives the same lines, lists and
table; the sqlite sink's `ranges` rows are the range and mark lines."""
import json
import os
import subprocess

import cttest as t

CUT = "x" * 255  # 300 bytes, cut to what a record carries
BELL = "bell\x07\x1b[2J"  # the program's own bytes: escaped before a terminal
# (api, nvtx list) in program order; None: no "nvtx" key.
CALLS = [
    ("cudaMalloc", ["outer"]),
    ("cudaFree", ["outer", "wide-\u00fc"]),
    ("cudaDeviceSynchronize", ["outer", "registered"]),
    ("cudaGetDeviceCount", ["worker"]),
    ("cudaSetDevice", None),
    ("cudaStreamSynchronize", [CUT]),
    ("cudaDeviceReset", ["left-open"]),
]
# (kind, thread, domain, name, depth, open) in the order written; depth
# None: a start/end range or a mark (no key).
NVTX = [
    ("mark", "main", None, "mark-1", None, False),
    ("range", "main", None, "wide-\u00fc", 1, False),
    ("mark", "main", "io", "io-mark", None, False),
    ("range", "main", "io", "registered", 1, False),
    ("range", "main", None, "outer", 0, False),
    ("range", "main", None, "across", None, False),  # started on main, ended on the worker
    ("range", "worker", None, "worker", 0, False),
    ("range", "main", None, CUT, 0, False),
    ("mark", "main", None, BELL, None, False),
    ("range", "main", None, "left-open", 0, True),
]
TEXT = """
[sink.text]
type = text
path = @TMP@/out.txt
[sink.json]
type = summary
format = json
path = @TMP@/summary.json
[sink.db]
type = sqlite
path = @TMP@/trace.db
"""


def check_lines(tr, what, calls, tids):
    lines = [e for e in tr.events if e.get("kind") in ("range", "mark")]
    got = [(e["kind"], e["tid"], e["domain"], e["name"], e.get("depth"), e.get("open", False)) for e in lines]
    want = [(k, tids[th], d, n, dp, o) for k, th, d, n, dp, o in NVTX]
    t.check(got == want, "%s: ranges and marks\n got: %s\nwant: %s" % (what, got, want), tr)
    for e in lines:
        keys = {"ts_ns", "kind", "pid", "tid", "domain", "name"}
        if e["kind"] == "range":
            keys |= {"end_ns", "dur_ns"} | ({"depth"} if "depth" in e else set())
            keys |= {"open"} if e.get("open") else set()
            t.check(e["end_ns"] - e["ts_ns"] == e["dur_ns"] and e["dur_ns"] > 0, "%s: %s" % (what, e), tr)
        t.check(set(e) == keys and e["pid"] == tids["main"], "%s: keys of %s" % (what, e), tr)
    # Each call lies inside every range its list names.
    by_name = {e["name"]: e for e in lines if e["kind"] == "range"}
    for c in calls:
        for name in c.get("nvtx", []):
            r = by_name[name]
            t.check(r["ts_ns"] <= c["ts_ns"] and c["ts_ns"] + c["dur_ns"] <= r["end_ns"],
                    "%s: %s outside range %s" % (what, c["api"], name), tr)
    across = by_name["across"]
    t.check(across["ts_ns"] < calls[3]["ts_ns"] < across["end_ns"], "%s: across %s" % (what, across), tr)


def check_chrome(tr, what, tids):
    with open(os.path.join(tr.files, "trace.json")) as f:
        ev = [e for e in json.load(f)["traceEvents"] if e.get("cat") == "nvtx"]
    slices = sorted((e["name"], e["tid"], e["args"].get("depth")) for e in ev if e["ph"] == "X")
    want = sorted((n, tids[th], dp) for k, th, d, n, dp, o in NVTX if k == "range" and dp is not None)
    t.check(slices == want, "%s: chrome slices\n got: %s\nwant: %s" % (what, slices, want), tr)
    marks = sorted(e["name"] for e in ev if e["ph"] == "i")
    t.check(marks == sorted(["io-mark", "mark-1", BELL]), "%s: chrome marks %s" % (what, marks), tr)
    b = [e for e in ev if e["ph"] == "b"]
    e = [e for e in ev if e["ph"] == "e"]
    t.check(len(b) == 1 and len(e) == 1 and b[0]["name"] == "across" and b[0]["id"] == e[0]["id"] and
            b[0]["ts"] < e[0]["ts"], "%s: chrome async range %s %s" % (what, b, e), tr)
    left = [x for x in ev if x["name"] == "left-open"]
    t.check(left[0]["args"].get("open") is True, "%s: open slice %s" % (what, left), tr)


def check_summary(tr, what):
    with open(os.path.join(tr.files, "summary.txt")) as f:
        text = f.read()
    head = "By NVTX range (calls and kernels inside each range name; nested names count each):"
    t.check(head in text, "%s: no NVTX table in the summary:\n%s" % (what, text), tr)
    rows = {}
    for line in text.split(head, 1)[1].splitlines()[2:]:
        if not line.strip():
            break
        col = line.split()
        rows[col[-1]] = (int(col[0]), int(col[2]), int(col[4]), col[5])
    # ranges, calls inside, kernels, GPU time (no GPU: none)
    want = {"outer": (1, 3, 0, "0ns"), "wide-\u00fc": (1, 1, 0, "0ns"), "registered": (1, 1, 0, "0ns"),
            "across": (1, 0, 0, "0ns"), "worker": (1, 1, 0, "0ns"), CUT: (1, 1, 0, "0ns"),
            "left-open": (1, 1, 0, "0ns")}
    t.check(rows == want, "%s: NVTX table\n got: %s\nwant: %s" % (what, rows, want), tr)
    with open(os.path.join(tr.files, "summary.json")) as f:
        js = json.load(f)["processes"][0]["nvtx"]
    rows = {r["name"]: (r["ranges"], r["calls"], r["kernels"], "%dns" % r["gpu_ns"]) for r in js}
    t.check(rows == want and all(r["range_ns"] > 0 for r in js) and len(js) == len(want),
            "%s: the json summary's nvtx\n got: %s" % (what, js), tr)


def check_sqlite(tr, what):
    """The sqlite sink's `ranges` rows are the jsonl's range and mark lines."""
    import sqlite3
    db = sqlite3.connect(os.path.join(tr.files, "trace.db"))
    rows = db.execute("SELECT ts_ns, end_ns, pid, tid, domain, name, depth, mark, open FROM ranges ORDER BY id")
    got = [tuple(r) for r in rows]
    db.close()
    want = [(e["ts_ns"], e.get("end_ns", e["ts_ns"]), e["pid"], e["tid"], e["domain"], e["name"], e.get("depth", -1),
             int(e["kind"] == "mark"), int(e.get("open", False)))
            for e in tr.events if e.get("kind") in ("range", "mark")]
    t.check(got == want, "%s: sqlite ranges\n got: %s\nwant: %s" % (what, got, want), tr)


def check_report(tr, what):
    """`cudatracer report` of the trace: the same range and mark lines, the same lists, the same table."""
    out = os.path.join(tr.files, "report.jsonl")
    summary = os.path.join(tr.files, "report.txt")
    p = subprocess.run([t.TRACER, "report", os.path.join(tr.files, "events.jsonl"), "-o", "jsonl:" + out,
                        "-o", "summary:" + summary], capture_output=True, text=True, timeout=60)
    t.check(p.returncode == 0, "%s: report: %s" % (what, p.stderr), tr)
    nvtx = [e for e in tr.events if e.get("kind") in ("range", "mark")]
    again = t.read_jsonl(out)
    t.check([e for e in again if e.get("kind") in ("range", "mark")] == nvtx, "%s: report's NVTX lines" % what, tr)
    t.check([(e["api"], e.get("nvtx")) for e in again if "api" in e] == CALLS, "%s: report's lists" % what, tr)
    with open(os.path.join(tr.files, "summary.txt")) as f, open(summary) as g:
        table = [f.read().split("By NVTX range")[1], g.read().split("By NVTX range")[1]]
    t.check(table[0] == table[1], "%s: report's NVTX table:\n%s" % (what, table[1]), tr)


def check_trace(tr, what):
    t.check(tr.rc == 0 and tr.lost() == 0, "%s: tracer rc %d" % (what, tr.rc), tr)
    t.check("levels 0 1 1 0" in tr.stdout, "%s: NVTX did not use the injection: %r" % (what, tr.stdout), tr)
    calls = tr.calls(plugin="cudart")
    got = [(c["api"], c.get("nvtx")) for c in calls]
    t.check(got == CALLS, "%s: calls and their nvtx lists\n got: %s\nwant: %s" % (what, got, CALLS), tr)
    t.check(not tr.calls(plugin="nvtx"), "%s: NVTX events written as calls" % what, tr)
    tids = {"main": calls[0]["pid"], "worker": calls[3]["tid"]}
    t.check(tids["worker"] != tids["main"] and calls[0]["tid"] == tids["main"], "%s: threads %s" % (what, tids), tr)
    check_lines(tr, what, calls, tids)
    t.check("NVTX: 7 ranges (1 still open at the end), 3 marks" in tr.stderr and
            "1 pops without their push, 1 names cut to 255 bytes" in tr.stderr,
            "%s: the closing report" % what, tr)
    check_chrome(tr, what, tids)
    check_summary(tr, what)
    check_report(tr, what)
    check_sqlite(tr, what)
    with open(os.path.join(tr.files, "out.txt"), "rb") as f:
        text = f.read().decode()
    t.check("mark bell\\x07\\x1b[2J\n" in text and "\x1b" not in text and "\x07" not in text and
            "range left-open [depth 0] [open]\n" in text and "range registered [domain io] [depth 1]\n" in text,
            "%s: the text sink's NVTX lines:\n%s" % (what, text), tr)


def check_gpu():
    fakes = os.path.join(t.PROGRAMS, "fakegpu")
    tr = t.run(["--plugin", "cudart,cuda", "--gpu-activity", "-C",
                "tracer.cupti_path=" + os.path.join(t.PROGRAMS, "libfake_cupti.so")],
               command=[t.program("gpu_activity"), fakes, "nvtx", "gpu"], extra_sinks=t.SUMMARY_AND_CHROME_SINKS)
    t.check(tr.rc == 0, "gpu: rc %d" % tr.rc, tr)
    gpu = [(e["op"], e.get("nvtx")) for e in tr.events if e.get("kind") == "gpu"]
    # The set's call never comes (correlation null): its ranges are not known.
    want = [("kernel", ["gpu-phase"]), ("memcpy", ["gpu-phase"]), ("kernel", ["gpu-phase"]),
            ("kernel", ["gpu-phase"]), ("memset", None)]
    t.check(gpu == want, "gpu: kernels' nvtx lists\n got: %s\nwant: %s" % (gpu, want), tr)
    launch = tr.calls(api="cudaLaunchKernel")
    t.check(len(launch) == 1 and launch[0].get("nvtx") == ["gpu-phase"], "gpu: the launch %s" % launch, tr)
    ranges = [e for e in tr.events if e.get("kind") == "range"]
    t.check(len(ranges) == 1 and ranges[0]["name"] == "gpu-phase" and ranges[0]["open"] is True,
            "gpu: the range %s" % ranges, tr)
    with open(os.path.join(tr.files, "summary.txt")) as f:
        text = f.read()
    row = [line.split() for line in text.splitlines() if line.endswith(" gpu-phase")]
    # ranges, calls inside, kernels (3: 3000 + 2000 + 1000 ns of GPU time); the copy is no kernel
    t.check(len(row) == 1 and row[0][0] == "1" and row[0][2] == "1" and row[0][4] == "3" and
            row[0][5] == "6.000us", "gpu: summary row %s" % row, tr)


def main():
    t.need_root()
    prog = t.program("nvtx_ranges")
    for engine in ("inproc", "ebpf"):
        tr = t.run(["--plugin", "cudart", "--engine", engine], command=[prog],
                   extra_sinks=t.SUMMARY_AND_CHROME_SINKS + TEXT)
        check_trace(tr, engine)

    # Off: no injection, no ranges, no lists; NVTX answers as with no tool.
    tr = t.run(["--plugin", "cudart", "-C", "tracer.nvtx=false"], command=[prog])
    t.check(tr.rc == 0 and "levels -2 -2 -2 -2" in tr.stdout, "off: %r" % tr.stdout, tr)
    t.check(not [e for e in tr.events if "nvtx" in e or e.get("kind") in ("range", "mark")],
            "off: NVTX in the trace", tr)
    t.check(len(tr.calls(plugin="cudart")) == len(CALLS), "off: calls", tr)

    check_gpu()

    # Another tool's injection is kept, said, and NVTX left to it.
    other = os.path.join(t.BUILD, "libcudatracer-nvtx.so")
    tr = t.run(["--plugin", "cudart"], command=[prog], env={"NVTX_INJECTION64_PATH": other})
    t.check(tr.rc == 0 and "NVTX_INJECTION64_PATH is already set" in tr.stderr and
            not [e for e in tr.events if e.get("kind") == "range"], "another tool's injection", tr)
    print("ok")


if __name__ == "__main__":
    main()
