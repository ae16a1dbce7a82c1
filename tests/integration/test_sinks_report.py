#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`cudatracer report`: a recorded jsonl trace replayed into the sinks gives
what the live run gave them, byte for byte. One run of the stand-in runtime
writes jsonl and summary (table and json), csv, memory (text and json), html
and chrome (both clocks); the report of that jsonl, plain and gzip-compressed,
writes the same sinks again. What is run-specific is normalised, and only
that: the chrome trace's otherData start_ns/end_ns (the live run's wall clock
at start and end; a report has the trace's first and last instants), and on
the monotonic clock one constant shift (the jsonl meta line's wall-monotonic
offset is read a moment after the session's, so ts - offset is within a
microsecond of the live CLOCK_MONOTONIC). Then what cannot be replayed is
said: a plugin that is not installed (an error), an API the plugin does not
have (skipped and counted), a trace cut short (read up to its last whole line)."""
import gzip
import json
import os
import shutil
import subprocess
import sys

import cttest
import test_sinks_common as common

SINKS = [  # (section, type, file, extra keys)
    ("sum", "summary", "summary.txt", ""),
    ("sumj", "summary", "summary.json", "format = json\n"),
    ("csv", "csv", "calls.csv", ""),
    ("mem", "memory", "memory.txt", ""),
    ("memj", "memory", "memory.json", "format = json\n"),
    ("html", "html", "report.html", ""),
    ("chrome", "chrome", "trace.json", ""),
    ("wall", "chrome", "wall.json", "clock = wall\n"),
]


def config(folder, jsonl=None):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "ct.ini")
    with open(path, "w") as f:
        if jsonl:
            f.write("[sink.rec]\ntype = jsonl\npath = %s\n" % jsonl)
        for name, typ, file, extra in SINKS:
            f.write("[sink.%s]\ntype = %s\npath = %s\n%s" % (name, typ, os.path.join(folder, file), extra))
    return path


def read(folder, file):
    with open(os.path.join(folder, file), "rb") as f:
        return f.read()


def chrome_norm(data, shift=None):
    """The trace without its run's wall-clock span; ts shifted by `shift` us."""
    d = json.loads(data)
    for k in ("start_ns", "end_ns"):
        d["otherData"].pop(k, None)
    if shift:
        for e in d["traceEvents"]:
            if "ts" in e:
                e["ts"] = round(e["ts"] - shift, 3)
    return d


def report(args):
    return subprocess.run([cttest.TRACER, "report"] + args, capture_output=True, text=True, timeout=120)


def compare(live, rep, trace, what):
    for name, typ, file, extra in SINKS:
        a, b = read(live, file), read(rep, file)
        if typ != "chrome":
            cttest.check(a == b, "%s: %s differs from the live run's:\n--- live\n%s\n--- report\n%s" %
                         (what, file, a[:3000].decode(errors="replace"), b[:3000].decode(errors="replace")),
                         trace)
            continue
        la, lb = chrome_norm(a), chrome_norm(b)
        shift = 0
        # monotonic: one constant shift, of a few microseconds at most (the
        # wall-to-monotonic offset each run measures between two clock
        # reads: 1.08 us once under the sanitizers on a busy machine)
        if extra == "":
            pairs = [(x["ts"], y["ts"]) for x, y in zip(la["traceEvents"], lb["traceEvents"]) if "ts" in x]
            shifts = {round(y - x, 3) for x, y in pairs}
            cttest.check(len(shifts) == 1 and abs(next(iter(shifts))) < 5.0,
                         "%s: %s timestamps shifted by %r" % (what, file, sorted(shifts)[:5]), trace)
            shift = next(iter(shifts))
        cttest.check(la == chrome_norm(b, shift), "%s: %s differs from the live run's" % (what, file), trace)


def main():
    cttest.need_root()
    tmp = common.tmpdir()
    prog = common.build_fake(tmp)
    jsonl = os.path.join(tmp, "events.jsonl")
    live = os.path.join(tmp, "live")
    p = subprocess.run([cttest.TRACER, "-c", config(live, jsonl), "--plugin", "cudart", "--", prog, "5"],
                       capture_output=True, text=True, timeout=120)
    trace = cttest.Trace(p.returncode, p.stdout, p.stderr, [], tmp)
    cttest.check(p.returncode == 0, "tracer exited %d" % p.returncode, trace)
    events = cttest.read_jsonl(jsonl)
    cttest.check(len(events) == 24, "%d events recorded" % len(events), trace)

    # the same sinks from the recording: plain, then gzip-compressed as it is
    rep = os.path.join(tmp, "rep")
    r = report([jsonl, "-c", config(rep)])
    cttest.check(r.returncode == 0 and "24 events from" in r.stderr, "report: %d\n%s" % (r.returncode, r.stderr),
                 trace)
    compare(live, rep, trace, "report")
    gz = jsonl + ".gz"
    with open(jsonl, "rb") as f, gzip.open(gz, "wb") as g:
        shutil.copyfileobj(f, g)
    repz = os.path.join(tmp, "repz")
    r = report([gz, "-c", config(repz), "-q"])
    cttest.check(r.returncode == 0 and r.stderr == "", "report of .gz: %d\n%s" % (r.returncode, r.stderr), trace)
    compare(live, repz, trace, "report of the gzip trace")

    # with no sink: the summary on stdout
    r = report([jsonl])
    cttest.check(r.returncode == 0 and r.stdout == read(live, "summary.txt").decode(), "default summary", trace)

    with open(jsonl) as f:
        lines = f.read().splitlines(True)

    # a plugin that is not installed: an error, with the line
    bad = os.path.join(tmp, "unknown_plugin.jsonl")
    with open(bad, "w") as f:
        f.write(lines[0] + lines[1] + lines[2].replace('"plugin":"cudart"', '"plugin":"nosuch"'))
    r = report([bad, "-o", "summary:" + os.path.join(tmp, "x.txt")])
    cttest.check(r.returncode == 1 and "unknown_plugin.jsonl:3: the trace has calls of plugin 'nosuch', "
                 "which cannot be loaded" in r.stderr, "unknown plugin: %d\n%s" % (r.returncode, r.stderr), trace)

    # an API the plugin does not have: skipped, counted and named
    skip = os.path.join(tmp, "unknown_api.jsonl")
    n_memset = sum(1 for e in events if e["api"] == "cudaMemset")
    with open(skip, "w") as f:
        f.writelines(l.replace('"api":"cudaMemset"', '"api":"cudaMemsetFromTheFuture"') for l in lines)
    out = os.path.join(tmp, "skip.json")
    r = report([skip, "-c", skip_conf(tmp, out)])
    cttest.check(r.returncode == 0 and ("%d calls of %s were skipped" % (n_memset, skip)) in r.stderr and
                 ("cudart cudaMemsetFromTheFuture: %d calls" % n_memset) in r.stderr,
                 "unknown API: %d\n%s" % (r.returncode, r.stderr), trace)
    with open(out) as f:
        s = json.load(f)
    cttest.check(s["calls"] == len(events) - n_memset and
                 "cudaMemset" not in {a["api"] for a in s["processes"][0]["apis"]}, "skipped calls counted", trace)

    # a trace cut short mid-line
    cut = os.path.join(tmp, "cut.jsonl")
    with open(cut, "w") as f:
        f.write("".join(lines)[:-20])
    r = report([cut])
    cttest.check(r.returncode == 0 and "cut.jsonl:%d: the last line is cut short (was the tracer killed?): it is "
                 "skipped" % len(lines) in r.stderr and "%d events from" % (len(lines) - 2) in r.stderr,
                 "cut trace: %d\n%s" % (r.returncode, r.stderr), trace)
    # a FIFO in the trace's place: refused at once, never waited on
    fifo = os.path.join(tmp, "fifo.jsonl")
    os.mkfifo(fifo)
    r = report([fifo])
    cttest.check(r.returncode == 1 and "fifo.jsonl is not a regular file" in r.stderr,
                 "fifo trace: %d\n%s" % (r.returncode, r.stderr), trace)
    print("ok: %d events replayed into %d sinks, byte for byte" % (len(events), len(SINKS)))


def skip_conf(tmp, out):
    path = os.path.join(tmp, "skip.ini")
    with open(path, "w") as f:
        f.write("[sink.s]\ntype = summary\nformat = json\npath = %s\n" % out)
    return path


if __name__ == "__main__":
    sys.exit(main())
