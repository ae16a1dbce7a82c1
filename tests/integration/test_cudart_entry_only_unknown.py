# SPDX-License-Identifier: MIT
"""An out-parameter that was not read is unknown, never a value. cudaMalloc
made entry-only by tracer.entry_only is recorded at entry, before the call
writes *devPtr: its devPtr is null in jsonl, csv and chrome and "?" in text,
and `cudatracer report` of the jsonl file shows it unknown too, while its
size is known; with the entry and return programs, with session programs and
in-process. Traced in full, the same call shows the pointer it read after
the call (NULL: without a GPU cudaMalloc fails and leaves it as it was)."""
import csv
import json
import os
import subprocess
import cttest as t

SINKS = """
[sink.text]
type = text
path = @TMP@/out.txt
[sink.csv]
type = csv
path = @TMP@/out.csv
[sink.chrome]
type = chrome
path = @TMP@/out.json
"""


def text_lines(path):
    with open(path) as f:
        return [l for l in f if "cudaMalloc(" in l]


def check_unknown(tr, what):
    t.check(tr.rc == 0, "%s: rc %d" % (what, tr.rc), tr)
    ev = tr.calls("cudaMalloc")
    t.check(len(ev) == 1 and ev[0].get("entry_only") and ev[0]["args"] == {"devPtr": None, "size": 4096},
            "%s: entry-only cudaMalloc: %s" % (what, ev), tr)
    # Other out-parameters of the same run are still read after their calls.
    host = tr.calls("cudaMallocHost")
    t.check(len(host) == 1 and host[0]["args"]["ptr"] == "0x0", "%s: cudaMallocHost: %s" % (what, host), tr)
    lines = text_lines(os.path.join(tr.files, "out.txt"))
    t.check(len(lines) == 1 and "devPtr=?" in lines[0] and "size=4096" in lines[0],
            "%s: text line: %s" % (what, lines), tr)
    with open(os.path.join(tr.files, "out.csv"), newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["api"] == "cudaMalloc"]
    t.check(len(rows) == 1 and json.loads(rows[0]["args"]) == {"devPtr": None, "size": 4096}
            and rows[0]["dur_ns"] == "" and rows[0]["result"] == "", "%s: csv row: %s" % (what, rows), tr)
    with open(os.path.join(tr.files, "out.json")) as f:
        chrome = [e for e in json.load(f)["traceEvents"] if e.get("name") == "cudaMalloc"]
    t.check(len(chrome) == 1 and chrome[0]["ph"] == "i" and chrome[0]["args"]["call"] == {"devPtr": None, "size": 4096},
            "%s: chrome event: %s" % (what, chrome), tr)
    # Read back from the jsonl file: still unknown, not NULL.
    out = os.path.join(tr.files, "report.txt")
    p = subprocess.run([t.TRACER, "report", os.path.join(tr.files, "events.jsonl"), "-o", "text:" + out],
                       capture_output=True, text=True, timeout=60)
    t.check(p.returncode == 0, "%s: report: %s" % (what, p.stderr), tr)
    lines = text_lines(out)
    t.check(len(lines) == 1 and "devPtr=?" in lines[0] and "size=4096" in lines[0],
            "%s: report's text line: %s" % (what, lines), tr)


def main():
    t.need_root()
    prog = t.program("cudart_calls_shared")
    full = t.run(["--plugin", "cudart"], command=[prog])
    ev = full.calls("cudaMalloc")
    t.check(len(ev) == 1 and ev[0]["args"] == {"devPtr": "0x0", "size": 4096}, "full: %s" % ev, full)

    for what, extra in (("entry and return programs", []), ("session programs", ["--attach", "session"]),
                        ("in-process", ["--engine", "inproc"])):
        tr = t.run(["--plugin", "cudart", "-C", "tracer.entry_only=cudaMalloc"] + extra, command=[prog],
                   extra_sinks=SINKS)
        check_unknown(tr, what)
    print("ok")


main()
