#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Rotation of a daemon's files (docs/daemon.md, "Rotation"), across a reload.
By size (jsonl, csv: rotate_size = 4K), by age (chrome: rotate_interval =
1s): every rotated file whole on its own (a jsonl's meta line first, a csv's
header, a chrome trace that parses), and the loop program's calls across
all the files exactly the calls it made, none lost or written twice. With
rotate_compress = gzip and rotate_keep = 2: the rotated files are .gz that
gzip -t passes and `cudatracer report` reads, two are kept, an older file of
the rotation's names is removed and another user's of the same names is
left. With rotate_keep_bytes: the newest rotated files within the bytes kept,
the older ones removed. A file at a path from before the daemon started is
rotated aside whole. Symbolic links planted at the csv's next rotated names
for the next seconds are neither replaced nor written through: the rotation
takes the next free number."""
import glob
import gzip
import json
import os
import re
import subprocess
import time

import cttest
from daemon_common import Daemon

RUNS, CALLS = 8, 60
CAP = 70000  # bytes of capped.jsonl's rotated files: a few of the eight


BEFORE = '{"kind":"meta","format":"cudatracer-jsonl","version":1,"tracer_pid":1}\n{"pid":1,"api":"cudaMemset"}\n'


def conf(d):
    # A daemon's file from before a restart, at the path: rotated aside whole.
    with open(d.path("calls.jsonl"), "w") as f:
        f.write(BEFORE)
    return ("[sink.calls]\ntype = jsonl\npath = %s\nrotate_size = 4K\n\n"
            "[sink.kept]\ntype = jsonl\npath = %s\nrotate_size = 4K\nrotate_compress = gzip\nrotate_keep = 2\n\n"
            "[sink.trace]\ntype = chrome\npath = %s\nrotate_interval = 1s\n\n"
            "[sink.rows]\ntype = csv\npath = %s\nrotate_size = 4K\n\n"
            "[sink.capped]\ntype = jsonl\npath = %s\nrotate_size = 4K\nrotate_keep_bytes = %d\n"
            % (d.path("calls.jsonl"), d.path("kept.jsonl"), d.path("trace.json"), d.path("rows.csv"),
               d.path("capped.jsonl"), CAP))


def ours(pattern):
    """Files, not the links planted."""
    return sorted(p for p in glob.glob(pattern) if not os.path.islink(p))


def memsets_jsonl(path, pids):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        lines = [json.loads(line) for line in f.read().split("\n") if line]
    cttest.check(lines and lines[0].get("kind") == "meta" and all(e.get("kind") != "meta" for e in lines[1:]),
                 "%s: not one meta line, first" % path)
    return sum(1 for e in lines if e.get("pid") in pids and e.get("api") == "cudaMemset")


def refusals(d):
    """Keys that cannot do what they say: refused at their line, exit 2."""
    cases = [("[sink.s]\ntype = summary\nrotate_size = 1M\n",
              "bad.ini:3: sink 's' (summary) has no rotation: rotate_size is a key of jsonl, csv and chrome sinks"),
             ("[sink.j]\ntype = jsonl\npath = x.jsonl\nrotate_keep = 3\n",
              "bad.ini:4: sink 'j': rotate_keep does nothing without rotate_size or rotate_interval"),
             ("[sink.j]\ntype = jsonl\npath = x.jsonl\nrotate_size = 1M\nrotate_compress = zip\n",
              "bad.ini:5: bad value 'zip' for sink.j.rotate_compress: expected one of: none, gzip")]
    for text, want in cases:
        bad = d.path("bad.ini")
        with open(bad, "w") as f:
            f.write(text)
        p = subprocess.run([cttest.TRACER, "-c", bad, "--list-apis"], capture_output=True, text=True, timeout=60)
        cttest.check(p.returncode == 2 and p.stderr == "cudatracer: error: %s/%s\n" % (d.tmp, want),
                     "%r: rc %d\n%s" % (text, p.returncode, p.stderr))
    p = subprocess.run([cttest.TRACER, "-o", "jsonl:-", "-C", "sink.jsonl.rotate_size=1M", "-p", str(os.getpid()),
                        "--duration", "1s"], capture_output=True, text=True, timeout=60)
    cttest.check(p.returncode != 0 and "rotate_size and rotate_interval need a path to a file, not standard output"
                 in p.stderr, "rotation of standard output: rc %d\n%s" % (p.returncode, p.stderr))


def main():
    d = Daemon(conf)
    refusals(d)
    victim = d.path("victim.txt")
    with open(victim, "w") as f:
        f.write("not yours\n")
    now = int(time.time())
    planted = []
    for t in range(now, now + 40):
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(t))
        for n in range(3):
            link = d.path("rows.%s-%03d.csv" % (stamp, n))
            os.symlink(victim, link)
            planted.append(link)
    old = d.path("kept.20000101T000000Z-000.jsonl.gz")
    foreign = d.path("kept.20000101T000000Z-001.jsonl.gz")
    for path in (old, foreign):
        with gzip.open(path, "wt") as f:
            f.write('{"kind":"meta"}\n')
    os.chown(foreign, 65534, 65534)

    pids = set()
    for r in range(RUNS):
        pids.add(d.run(CALLS))
        time.sleep(1.3)  # a tick between runs: the size is looked at, the age passes
        if r == RUNS // 2:
            d.reload("reload: the new configuration is valid")
            d.ready()
    d.stop()
    total = RUNS * CALLS
    said = d.said()

    # By size: several files, each with its meta line, the calls summed exactly.
    calls = ours(d.path("calls.*-[0-9][0-9][0-9].jsonl"))
    before = [p for p in calls if open(p).read() == BEFORE]
    cttest.check(len(before) == 1 and "calls.jsonl, from before this daemon, is rotated" in said,
                 "the file from before the daemon: %r\n%s" % (before, said))
    calls.remove(before[0])
    cttest.check(len(calls) >= 3, "jsonl rotated %d times\n%s" % (len(calls), said))
    got = [memsets_jsonl(p, pids) for p in calls + [d.path("calls.jsonl")]]
    cttest.check(sum(got) == total, "jsonl files hold %r calls, %d made\n%s" % (got, total, said))

    # By age: each chrome file parses, the calls summed exactly.
    traces = ours(d.path("trace*.json"))
    cttest.check(len(traces) >= 4, "chrome files %r\n%s" % (traces, said))
    got = []
    for p in traces:
        with open(p) as f:
            doc = json.load(f)
        got.append(sum(1 for e in doc["traceEvents"] if e.get("name") == "cudaMemset" and e.get("ph") == "X"
                       and e.get("pid") in pids))
    cttest.check(sum(got) == total, "chrome files hold %r calls, %d made\n%s" % (got, total, said))

    # The links planted: still links to the untouched file; the csv files whole.
    cttest.check(all(os.path.islink(p) and os.readlink(p) == victim for p in planted),
                 "a planted link was replaced\n" + said)
    with open(victim) as f:
        cttest.check(f.read() == "not yours\n", "written through a planted link")
    rows = ours(d.path("rows*.csv"))
    cttest.check(len(rows) >= 4 and all(os.path.basename(p)[-8:-4] not in ("-000", "-001", "-002")
                                        for p in rows if "Z-" in p),
                 "csv files %r\n%s" % (rows, said))
    got = 0
    for p in rows:
        with open(p, newline="") as f:
            lines = f.read().split("\r\n")
        cttest.check(lines[0].startswith("ts_ns,pid,tid,comm"), "%s: no header" % p)
        got += sum(1 for line in lines[1:] if line and int(line.split(",")[1]) in pids and ",cudaMemset," in line)
    cttest.check(got == total, "csv files hold %d calls, %d made\n%s" % (got, total, said))

    # A reload rotated the finished chrome and csv files aside: no NAME.RANDOM.EXT beside them.
    for name, ext in (("trace", "json"), ("rows", "csv")):
        other = [p for p in ours(d.path("%s*.%s" % (name, ext)))
                 if p != d.path("%s.%s" % (name, ext)) and not re.search(r"\.\d{8}T\d{6}Z-\d{3}\.%s$" % ext, p)]
        cttest.check(not other, "files beside the rotated ones: %r\n%s" % (other, said))
        cttest.check("sink '%s': the finished %s.%s is rotated" % ("trace" if name == "trace" else "rows",
                                                                   d.path(name), ext) in said, "no rotation at the reload")

    # Capped by bytes: the newest rotated files that fit, the older ones removed.
    made = re.findall(r"sink 'capped': \S+ rotated to (\S+) \(", said)
    kept = [os.path.basename(p) for p in ours(d.path("capped.*-[0-9][0-9][0-9].jsonl"))]
    sizes = [os.path.getsize(d.path(n)) for n in kept]
    cttest.check(len(made) > len(kept) > 0 and kept == sorted(made)[-len(kept):] and sum(sizes) <= CAP,
                 "capped: made %r, kept %r of %r bytes\n%s" % (made, kept, sizes, said))

    # Compressed and capped: two of ours kept, the older one removed, the foreign one left.
    kept = ours(d.path("kept.*.jsonl.gz"))
    cttest.check(not os.path.exists(old) and os.path.exists(foreign),
                 "the cap: old %s, foreign %s\n%s" % (os.path.exists(old), os.path.exists(foreign), said))
    mine = [p for p in kept if p != foreign]
    cttest.check(len(mine) == 2 and not glob.glob(d.path("kept.*-[0-9][0-9][0-9].jsonl")),
                 "rotated kept files %r\n%s" % (kept, said))
    for p in mine:
        cttest.check(subprocess.run(["gzip", "-t", p]).returncode == 0, "gzip -t %s" % p)
        out = d.path(os.path.basename(p) + ".report.jsonl")
        r = subprocess.run([cttest.TRACER, "report", p, "-o", "jsonl:" + out], capture_output=True, text=True)
        cttest.check(r.returncode == 0, "report %s: %s" % (p, r.stderr))
        n = memsets_jsonl(p, pids)
        cttest.check(n > 0 and memsets_jsonl(out, pids) == n, "report of %s: %d calls" % (p, n))
    print("ok: %d jsonl, %d chrome, %d csv files; %d calls in each format; 2 .gz kept" %
          (len(calls) + 1, len(traces), len(rows), total))


if __name__ == "__main__":
    main()
