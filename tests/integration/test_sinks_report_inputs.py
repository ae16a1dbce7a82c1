#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What `cudatracer report` and `cudatracer merge` do with the traces they
are given, on hand-written jsonl traces (no tracing, no root): an output
that is one of the inputs is refused before anything is opened for
writing, by device and inode, whatever name it is given by."""
import json
import os
import subprocess
import tempfile

import cttest

META = {"kind": "meta", "format": "cudatracer-jsonl", "version": 1, "host": "vm",
        "boot_id": "af2bd1c3-9c89-47a2-99e8-e2a757b2d888", "tracer_pid": 1, "wall_ns": 1000000000000,
        "mono_ns": 500000000, "wall_offset_ns": 999500000000}


def call(i, pid=4242, api="cudaMalloc"):
    return {"ts_ns": 1000000000000 + 1000 * i, "plugin": "cudart", "api": api, "pid": pid, "tid": pid,
            "comm": "app", "depth": 0, "device": None, "cgroup": "/", "dur_ns": 500, "result": 0,
            "result_name": "cudaSuccess", "error": False, "args": {"devPtr": "0x%x" % (0x7f5000000000 + 4096 * i),
                                                                   "size": 4096}}


def write_trace(path, calls):
    text = "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in [META] + calls)
    with open(path, "w") as f:
        f.write(text)
    return text


def tracer(args, stdout=subprocess.PIPE):
    return subprocess.run([cttest.TRACER] + args, stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120)


def unchanged(path, text, what):
    with open(path) as f:
        cttest.check(f.read() == text, "%s: the trace %s was changed" % (what, path))


def same_file(tmp):
    t = os.path.join(tmp, "t.jsonl")
    text = write_trace(t, [call(i) for i in range(3)])
    os.symlink("t.jsonl", os.path.join(tmp, "link.jsonl"))
    cases = [  # (what, args, the name the error gives the output)
        ("report -o jsonl:T", ["report", t, "-o", "jsonl:" + t], t),
        ("report -o summary:LINK", ["report", t, "-o", "summary:" + os.path.join(tmp, "link.jsonl")],
         os.path.join(tmp, "link.jsonl")),
        ("report -o text:DIR/./T beside another sink", ["report", t, "-o", "summary:" + os.path.join(tmp, "s.txt"),
                                                        "-o", "text:" + os.path.join(tmp, ".", "t.jsonl")],
         os.path.join(tmp, ".", "t.jsonl")),
        ("merge -o chrome:T", ["merge", t, "-o", "chrome:" + t], t),
        ("merge -o summary:LINK", ["merge", t, "-o", "summary:" + os.path.join(tmp, "link.jsonl")],
         os.path.join(tmp, "link.jsonl")),
    ]
    for what, args, shown in cases:
        p = tracer(args)
        cmd = args[0]
        want = "%s: the output %s is the trace %s (the same file)" % (cmd, shown, t)
        cttest.check(p.returncode == 2 and want in p.stderr, "%s: exited %d, not 2 with %r:\n%s" %
                     (what, p.returncode, want, p.stderr))
        unchanged(t, text, what)
    cttest.check(not os.path.exists(os.path.join(tmp, "s.txt")),
                 "report: a sink's file was opened before the refusal")
    # standard output appended to the trace itself
    for cmd, args in (("report", ["report", t]), ("merge", ["merge", t, "-o", "summary"])):
        with open(t, "a") as out:
            p = tracer(args, stdout=out)
        want = "%s: standard output is the trace %s" % (cmd, t)
        cttest.check(p.returncode == 2 and want in p.stderr, "%s >> T: exited %d:\n%s" % (cmd, p.returncode, p.stderr))
        unchanged(t, text, cmd + " >> T")
    # an output not there yet, and /dev/null, are not the trace
    p = tracer(["report", t, "-o", "summary:" + os.path.join(tmp, "new.txt"), "-o", "csv:/dev/null"])
    cttest.check(p.returncode == 0, "report to a new file: exited %d:\n%s" % (p.returncode, p.stderr))


def main():
    tmp = tempfile.mkdtemp(prefix="ct-report-inputs.")
    try:
        same_file(tmp)
    finally:
        subprocess.run(["rm", "-rf", tmp])
    print("ok")


if __name__ == "__main__":
    main()
