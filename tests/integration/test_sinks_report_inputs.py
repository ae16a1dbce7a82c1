#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What `cudatracer report` and `cudatracer merge` do with the traces they
are given, on hand-written jsonl traces (no tracing, no root): an output
that is one of the inputs is refused before anything is opened for
writing, by device and inode, whatever name it is given by; a killed
tracer's trace (its last line cut, a gzip stream without its end) is read
with a warning naming the file and line; a report that fails writes no
summary; merge without an output says what is missing."""
import gzip
import json
import os
import stat
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


def summary_calls(path, api="cudaMalloc"):
    return cttest.summary_rows(path).get(api, (0,))[0]


def cut_traces(tmp):
    t = os.path.join(tmp, "killed.jsonl")
    text = write_trace(t, [call(i) for i in range(6)])
    with open(t, "w") as f:
        f.write(text[:-60])  # the 6th call (line 7) cut mid-JSON, no line break
    out = os.path.join(tmp, "killed.txt")
    p = tracer(["report", t, "-o", "summary:" + out])
    want = "report: %s:7: the last line is cut short (was the tracer killed?): it is skipped, the trace is " \
           "read up to line 6" % t
    cttest.check(p.returncode == 0 and want in p.stderr and "5 events from" in p.stderr,
                 "report of a cut trace: exited %d, not 0 with %r:\n%s" % (p.returncode, want, p.stderr))
    cttest.check(summary_calls(out) == 5, "report of a cut trace: %d cudaMalloc in the summary, not 5" %
                 summary_calls(out))
    p = tracer(["merge", t, "-o", "summary:" + os.path.join(tmp, "merged.txt")])
    cttest.check(p.returncode == 0 and want.replace("report:", "merge:") in p.stderr,
                 "merge of a cut trace: exited %d:\n%s" % (p.returncode, p.stderr))

    # gzip: whole lines, but the stream stops before its end marker (its
    # 8-byte trailer), and one cut inside the deflate data
    data = gzip.compress(write_trace(t, [call(i) for i in range(200)]).encode())
    for what, cut, lines in (("without its trailer", data[:-8], None), ("cut inside", data[:len(data) // 2], 1)):
        z = os.path.join(tmp, "killed.jsonl.gz")
        with open(z, "wb") as f:
            f.write(cut)
        out = os.path.join(tmp, "killed.txt")
        p = tracer(["report", z, "-o", "summary:" + out])
        want = "report: %s: the compressed trace ends before its end marker: it was cut short" % z
        cttest.check(p.returncode == 0 and want in p.stderr,
                     "report of a gzip trace %s: exited %d, not 0 with %r:\n%s" % (what, p.returncode, want, p.stderr))
        if lines is None:
            cttest.check("200 events from" in p.stderr and summary_calls(out) == 200,
                         "gzip %s: not its 200 calls:\n%s" % (what, p.stderr))


def failed_report(tmp):
    t = os.path.join(tmp, "noplugin.jsonl")
    bad = call(2)
    bad["plugin"] = "nosuch"
    write_trace(t, [call(0), call(1), bad])
    p = tracer(["report", t])
    cttest.check(p.returncode == 1 and "noplugin.jsonl:4: the trace has calls of plugin 'nosuch'" in p.stderr
                 and p.stdout == "", "a failed report: exited %d, printed %r:\n%s" %
                 (p.returncode, p.stdout[:500], p.stderr))


def merge_without_output(tmp):
    t = os.path.join(tmp, "m.jsonl")
    write_trace(t, [call(0)])
    p = tracer(["merge", t])
    want = "merge: no output given: add -o chrome:PATH for the merged timeline, -o summary[:PATH] for the " \
           "offsets and stragglers, or both"
    cttest.check(p.returncode == 2 and want in p.stderr, "merge without -o: exited %d:\n%s" % (p.returncode, p.stderr))
    p = tracer(["merge", "-o", "summary"])
    cttest.check(p.returncode == 2 and "merge: no trace given" in p.stderr,
                 "merge without a trace: exited %d:\n%s" % (p.returncode, p.stderr))


def merge_to_dev_null(tmp):
    """merge writes through /dev/null, never renames a file over it (it made
    /dev/null a regular file of root's, mode 0600)."""
    t = os.path.join(tmp, "n.jsonl")
    write_trace(t, [call(0)])
    try:
        for kind in ("chrome", "summary"):
            p = tracer(["merge", t, "-o", kind + ":/dev/null"])
            st = os.stat("/dev/null")
            cttest.check(p.returncode == 0 and stat.S_ISCHR(st.st_mode),
                         "merge -o %s:/dev/null: exited %d, /dev/null mode %o:\n%s"
                         % (kind, p.returncode, st.st_mode, p.stderr))
            cttest.check(not [f for f in os.listdir("/dev") if f.startswith("null.tmp.")],
                         "merge left a temporary file in /dev")
    finally:
        if not stat.S_ISCHR(os.stat("/dev/null").st_mode):  # put the machine back
            os.unlink("/dev/null")
            os.mknod("/dev/null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            os.chmod("/dev/null", 0o666)


def long_lines(tmp):
    """Lines past the 4 MiB cap are skipped and counted; the calls around them are read."""
    big = '{"x":"' + "A" * (5 << 20) + '"}'
    t = os.path.join(tmp, "long.jsonl")
    text = write_trace(t, [call(0)])
    with open(t, "a") as f:
        f.write(big + "\n" + json.dumps(call(1)) + "\n" + big + "\n" + big + "\n" + json.dumps(call(2)) + "\n")
    out = os.path.join(tmp, "long.txt")
    p = tracer(["report", t, "-o", "summary:" + out])
    cttest.check(p.returncode == 0 and
                 "report: %s:3: a line longer than 4194304 bytes is skipped" % t in p.stderr and
                 "report: %s: 3 lines longer than 4194304 bytes were skipped" % t in p.stderr and
                 "3 events from" in p.stderr and summary_calls(out) == 3,
                 "long lines: exited %d:\n%s" % (p.returncode, p.stderr))


def gpus(tmp):
    """device, device_from, gpu_uuid and gpu_bus come back from a trace as
    written; a GPU not of the driver's shape (a terminal escape) is a
    damaged line, named; past 64 distinct GPUs the calls keep no GPU."""
    uuid = "GPU-%08x-0000-1111-2222-333344445555"
    calls = []
    for i in range(66):
        c = call(i)
        c.update(device=i % 3, device_from="only_gpu" if i % 2 else "open_gpu", gpu_uuid=uuid % i,
                 gpu_bus="0000:%02x:00.0" % i)
        calls.append(c)
    t = os.path.join(tmp, "gpus.jsonl")
    write_trace(t, calls)
    out = os.path.join(tmp, "gpus.out.jsonl")
    p = tracer(["report", t, "-o", "jsonl:" + out])
    cttest.check(p.returncode == 0, "gpus: exited %d:\n%s" % (p.returncode, p.stderr))
    got = [(o["device"], o.get("device_from"), o.get("gpu_uuid"), o.get("gpu_bus"))
           for o in cttest.read_jsonl(out)]
    want = [(c["device"], c["device_from"], c["gpu_uuid"] if i < 64 else None, c["gpu_bus"] if i < 64 else None)
            for i, c in enumerate(calls)]
    cttest.check(got == want, "gpus: read back\n%s\nwant\n%s" % (got[:3] + got[-3:], want[:3] + want[-3:]))
    # A kernel on the first call's GPU: one row by device, the call's and the kernel's.
    kernel = {"ts_ns": calls[0]["ts_ns"] + 100, "end_ns": calls[0]["ts_ns"] + 5100, "kind": "gpu", "op": "kernel",
              "pid": 4242, "device": 0, "gpu_uuid": calls[0]["gpu_uuid"], "gpu_bus": calls[0]["gpu_bus"],
              "context": 1, "stream": 7, "name": "k"}
    write_trace(t, [calls[0], kernel])
    summary = os.path.join(tmp, "gpus.txt")
    p = tracer(["report", t, "-o", "jsonl:" + out, "-o", "summary:" + summary])
    with open(summary) as f:
        rows = [line.split() for line in f.read().split("\nBy device")[1].split("\n\n")[0].splitlines()[2:]]
    gpu_lines = [o for o in cttest.read_jsonl(out) if o.get("kind") == "gpu"]
    cttest.check(p.returncode == 0 and rows == [["0", "1", "500ns", "1", "5.000us", "0", "0", "0ns",
                                                 calls[0]["gpu_uuid"], "0000:00:00.0"]] and
                 [(g["gpu_uuid"], g["gpu_bus"]) for g in gpu_lines] == [(calls[0]["gpu_uuid"], "0000:00:00.0")],
                 "gpus: a kernel's GPU: exited %d, by device %s, gpu lines %s\n%s" % (p.returncode, rows, gpu_lines,
                                                                                    p.stderr))
    for key, value in (("gpu_uuid", "GPU-\x1b[31m"), ("gpu_bus", "0000:3b:00.0;rm")):
        bad = dict(calls[0], **{key: value})
        write_trace(t, [call(0), bad])
        p = tracer(["report", t])
        cttest.check(p.returncode == 1 and "gpus.jsonl:3: not a whole JSON object of the jsonl schema" in p.stderr,
                     "a bad %s: exited %d:\n%s" % (key, p.returncode, p.stderr))


def main():
    tmp = tempfile.mkdtemp(prefix="ct-report-inputs.")
    try:
        same_file(tmp)
        cut_traces(tmp)
        failed_report(tmp)
        merge_without_output(tmp)
        merge_to_dev_null(tmp)
        long_lines(tmp)
        gpus(tmp)
    finally:
        subprocess.run(["rm", "-rf", tmp])
    print("ok")


if __name__ == "__main__":
    main()
