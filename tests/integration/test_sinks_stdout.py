#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A summary on standard output redirected to a file keeps what is in the
file: the line the shell wrote before, the traced program's output, the
text sink's lines, then the summary. The summary sink rewrites only a file
it opened itself; it once truncated fd 1, and `cudatracer -o text -o
summary -- ./app > log` left only the summary. Each command runs as
`{ echo before; COMMAND; } > log` (and one with >>)."""
import json
import os
import subprocess

import cttest
import test_sinks_common as common

ITERS = 5
CALLS = 24  # the stand-in program's calls with ITERS iterations


def shell(cmd, log, redirect=">"):
    """Run `{ echo before; cmd; } > log`; return (exit code, log's text)."""
    q = " ".join("'%s'" % a for a in cmd)
    p = subprocess.run("{ echo before; %s; } %s '%s'" % (q, redirect, log), shell=True,
                       stderr=subprocess.PIPE, text=True, timeout=120)
    with open(log) as f:
        return p.returncode, f.read(), p.stderr


def check_live(what, rc, text, err, pid_line=True):
    lines = text.splitlines()
    t = cttest.Trace(rc, "", err, [], None)
    cttest.check(rc == 0, "%s: exited %d" % (what, rc), t)
    cttest.check(lines[:1] == ["before"], "%s: the line written before is gone:\n%s" % (what, text[:2000]), t)
    if pid_line:
        cttest.check(any(l.startswith("pid ") for l in lines) and "done" in lines,
                     "%s: the program's own output is gone:\n%s" % (what, text[:2000]), t)
    return lines, t


def main():
    cttest.need_root()
    tmp = common.tmpdir()
    prog = common.build_fake(tmp)
    tracer = [cttest.TRACER, "--plugin", "cudart"]
    run = [prog, str(ITERS)]

    # 1. the text sink and the summary, both on stdout
    log = os.path.join(tmp, "text.log")
    rc, text, err = shell(tracer + ["-o", "text", "-o", "summary", "--"] + run, log)
    lines, t = check_live("-o text -o summary", rc, text, err)
    memcpy = [l for l in lines if "cudaMemcpy(" in l]
    cttest.check(len(memcpy) == 2 * ITERS, "-o text -o summary: %d text lines of cudaMemcpy, not %d:\n%s" %
                 (len(memcpy), 2 * ITERS, text[:3000]), t)
    cttest.check(lines.index("done") < lines.index("cudatracer summary"),
                 "-o text -o summary: the summary is not after the program's output:\n%s" % text[:3000], t)
    rows = cttest.summary_rows(log)
    cttest.check(rows.get("cudaMemcpy", (0,))[0] == 2 * ITERS and rows.get("cudaMalloc", (0,))[0] == 2,
                 "-o text -o summary: summary rows %r" % rows, t)

    # 2. aggregate mode's summary (its default sink), appended to the file
    log = os.path.join(tmp, "aggregate.log")
    with open(log, "w") as f:
        f.write("from an earlier run\n")
    rc, text, err = shell(tracer + ["-C", "tracer.mode=aggregate", "--"] + run, log, ">>")
    lines, t = check_live("aggregate >>", rc, text[len("from an earlier run\n"):], err)
    cttest.check(text.startswith("from an earlier run\nbefore\n"), "aggregate >>: %s" % text[:2000], t)
    rows = cttest.summary_rows(log)
    cttest.check(rows.get("cudaMemcpy", (0,))[0] == 2 * ITERS, "aggregate: summary rows %r" % rows, t)

    # 3. the summary as json: its one line is the last of the file
    log = os.path.join(tmp, "json.log")
    rc, text, err = shell(tracer + ["-o", "summary", "-C", "sink.summary.format=json", "--"] + run, log)
    lines, t = check_live("summary json", rc, text, err)
    doc = json.loads(lines[-1])
    cttest.check(doc["final"] is True and doc["calls"] == CALLS, "summary json: %s" % lines[-1][:500], t)

    # 4. report: the file holds the line before and the summary, exactly
    jsonl = os.path.join(tmp, "t.jsonl")
    p = subprocess.run(tracer + ["-o", "jsonl:" + jsonl, "--"] + run, capture_output=True, text=True,
                       timeout=120)
    cttest.check(p.returncode == 0, "recording: exited %d\n%s" % (p.returncode, p.stderr))
    alone = os.path.join(tmp, "alone.txt")
    p = subprocess.run([cttest.TRACER, "report", jsonl, "-o", "summary:" + alone], capture_output=True,
                       text=True, timeout=120)
    cttest.check(p.returncode == 0, "report to a file: exited %d\n%s" % (p.returncode, p.stderr))
    with open(alone) as f:
        summary = f.read()
    log = os.path.join(tmp, "ci.log")
    rc, text, err = shell([cttest.TRACER, "report", jsonl], log)
    t = cttest.Trace(rc, "", err, [], None)
    cttest.check(rc == 0 and text == "before\n" + summary,
                 "report > ci.log: exited %d; the file is not the line before and the summary:\n%s" %
                 (rc, text[:3000]), t)
    print("ok: the line before, the program's output, the trace and the summary all kept")


if __name__ == "__main__":
    main()
