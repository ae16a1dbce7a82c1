#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cudatracer merge on a job of 4 ranks traced by 3 tracer instances.

The ranks use the stand-in libnccl (fake_nccl.c: calls succeed, each
collective is a barrier, so every rank leaves it at about the same time).
Tracer A traces ranks 0 and 1 (two processes) as host node-a; B traces
rank 2 as host node-b whose wall clock is 3 s ahead, C rank 3 as node-c,
2 s behind (the test hooks CUDATRACER_TEST_HOST and
CUDATRACER_TEST_CLOCK_SKEW_NS). Before collective k, rank (k-1) % 4 sleeps
40 ms: the straggler of collective k.

The merge must apply -3 s to node-b and +2 s to node-c (within 5 ms), write
one valid Chrome trace with a process per rank whose collectives end
together, and name each collective's straggler. Bad inputs (a missing file,
a truncated one, a rank twice, another job, a run that does not overlap)
must fail with exit 1, say why, and leave no output file.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

import cttest

N, LATE_MS = 6, 40
JOB = "31337"
SKEW = {"node-a": 0, "node-b": 3000000000, "node-c": -2000000000}



def ns_of(cell):
    """A duration cell of a summary table ("12.345ms") in ns."""
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", cell)
    assert m, "not a duration: %r" % cell
    return float(m.group(1)) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[m.group(2)]

def tracer(tmp, host, ranks, meet):
    prog = cttest.program(os.path.join("fakenccl", "nccl_ranks"))
    out = os.path.join(tmp, host + ".jsonl")
    cmd = " ".join("RANK=%d WORLD_SIZE=4 LOCAL_RANK=%d SLURM_JOB_ID=%s %s %s %d %d &"
                   % (r, i, JOB, prog, meet, N, LATE_MS) for i, r in enumerate(ranks)) + " wait"
    env = dict(os.environ, CUDATRACER_TEST_HOST=host, CUDATRACER_TEST_CLOCK_SKEW_NS=str(SKEW[host]))
    p = subprocess.Popen([cttest.TRACER, "--plugin", "nccl", "-q", "-o", "jsonl:" + out, "--", "sh", "-c", cmd],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p, out


def merge(args):
    p = subprocess.run([cttest.TRACER, "merge"] + args, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def main():
    cttest.need_root()
    tmp = tempfile.mkdtemp(prefix="ctmerge.")
    meet = os.path.join(tmp, "meet")
    os.mkdir(meet)
    runs = [tracer(tmp, "node-a", [0, 1], meet), tracer(tmp, "node-b", [2], meet),
            tracer(tmp, "node-c", [3], meet)]
    files = []
    for p, out in runs:
        _, err = p.communicate(timeout=120)
        cttest.check(p.returncode == 0, "tracer for %s: exit %d\n%s" % (out, p.returncode, err))
        files.append(out)
    # each trace starts with its meta line: the fake host, its skewed clock
    for host, f in zip(("node-a", "node-b", "node-c"), files):
        meta, ev = cttest.read_jsonl(f, meta=True)
        cttest.check(meta["host"] == host and meta.get("test_clock_skew_ns", 0) == SKEW[host],
                     "%s: meta %r" % (f, meta))
        ar = [e for e in ev if e["api"] == "ncclAllReduce"]
        cttest.check(len(ar) == N * (2 if host == "node-a" else 1), "%s: %d allreduces" % (f, len(ar)))
        for e in ar:
            c = e["communicator"]
            cttest.check(c["nranks"] == 4 and c["rank"] == e["rank"] and c["id"] == "0xfeedfacecafe0001"
                         and e["bytes"] == 4096 and e["job_id"] == JOB and e["host"] == host,
                         "%s: %r" % (f, e))

    chrome = os.path.join(tmp, "job.json")
    rc, out, err = merge(files + ["-o", "chrome:" + chrome, "-o", "summary"])
    cttest.check(rc == 0, "merge: exit %d\n%s" % (rc, err))
    # the offsets applied, said on stderr and in the summary
    for host, skew in SKEW.items():
        if host == "node-a":
            continue
        m = re.search(r"host %s: clock offset ([+-]\d+) ns applied \((\d+) collectives" % host, err)
        cttest.check(m and abs(int(m.group(1)) + skew) < 5000000 and int(m.group(2)) == N + N // 3,
                     "%s: offset %s, expected about %d\n%s" % (host, m and m.group(1), -skew, err))
        cttest.check(re.search(r"^  %s\s+[+-]\d+ ns  \(from the ends of %d collectives\)$" % (host, N + N // 3),
                               out, re.M), "summary offsets:\n" + out)
    # the straggler of each allreduce k is rank (k-1) % 4, about LATE_MS late
    rows = re.findall(r"^  0xfeedfacecafe0001\s+(\d+)\s+(\S+)\s+(\d+)\s+(\S+)\s+host (\S+) rank (\d+)", out, re.M)
    cttest.check(len(rows) == N + N // 3, "straggler rows:\n" + out)
    k = 0
    for seq, api, ranks, late, host, rank in rows:
        cttest.check(int(ranks) == 4, "seq %s: %s ranks" % (seq, ranks))
        if api == "ncclAllReduce":
            k += 1
            cttest.check(int(rank) == (k - 1) % 4 and LATE_MS * 0.7e6 < ns_of(late) < LATE_MS * 3e6,
                         "allreduce %d: last rank %s, late %s, expected rank %d, about %d ms\n%s"
                         % (k, rank, late, (k - 1) % 4, LATE_MS, out))
    # one valid trace: a process per rank, named by host and rank; aligned ends
    with open(chrome) as f:
        d = json.load(f)
    names = {e["pid"]: e["args"]["name"] for e in d["traceEvents"] if e.get("name") == "process_name"}
    labels = sorted(re.sub(r" \(pid \d+\)", "", n) for n in names.values())
    cttest.check(labels == ["host node-a rank 0", "host node-a rank 1", "host node-b rank 2", "host node-c rank 3"],
                 "processes: %r" % labels)
    ends = {}
    for e in d["traceEvents"]:
        if e.get("ph") == "X" and "seq" in e["args"]:
            ends.setdefault(e["args"]["seq"], []).append(e["ts"] + e["dur"])
    cttest.check(len(ends) == N + N // 3 and all(len(v) == 4 for v in ends.values()), "collectives: %r" % ends)
    # The ranks' ends are as simultaneous as the stand-in's barrier and the
    # scheduler make them (a few ms on a loaded 2-core machine), against
    # skews of seconds: the typical collective lines up within 5 ms, none
    # is off by more than 25.
    spreads = sorted(max(v) - min(v) for v in ends.values())
    median = spreads[len(spreads) // 2]
    cttest.check(median < 5000 and spreads[-1] < 25000,
                 "collective ends apart after alignment: median %d us, worst %d us" % (median, spreads[-1]))

    # bad inputs: exit 1, a clear message, no output left behind
    bad_dir = os.path.join(tmp, "bad")
    os.mkdir(bad_dir)
    trunc = os.path.join(bad_dir, "trunc.jsonl")
    with open(files[1]) as f:
        text = f.read()
    with open(trunc, "w") as f:  # a line cut inside the trace (a killed tracer's last line is read)
        f.write(text[:len(text) // 2] + "\n" + text[len(text) // 2:])
    other_job = os.path.join(bad_dir, "job.jsonl")
    with open(other_job, "w") as f:
        f.write(open(files[2]).read().replace('"job_id":"%s"' % JOB, '"job_id":"999"'))
    early = cttest.run(["--plugin", "nccl"], command=[cttest.program("nccl_calls")],
                       env={"RANK": "9", "SLURM_JOB_ID": JOB})
    cttest.check(early.rc == 0, "nccl_calls run: %d" % early.rc, early)
    early_path = os.path.join(early.files, "events.jsonl")
    cases = [
        ([files[0], os.path.join(tmp, "missing.jsonl")], r"cannot read .*missing\.jsonl: No such file or directory"),
        ([files[0], trunc], r"trunc\.jsonl:\d+: not a whole JSON object: the trace is damaged"),
        ([files[0], files[1], files[1]], r"rank 2 is in two inputs"),
        ([files[0], files[1], other_job], r"the inputs are from different jobs: job %s .* and job 999" % JOB),
        ([early_path] + files, r"events\.jsonl does not overlap in time with any other input"),
    ]
    for inputs, want in cases:
        outp = os.path.join(bad_dir, "out.json")
        rc, _, err = merge(inputs + ["-o", "chrome:" + outp])
        cttest.check(rc == 1 and re.search(want, err), "merge %s: exit %d, stderr\n%s\nexpected /%s/"
                     % (inputs, rc, err, want))
        left = [n for n in os.listdir(bad_dir) if n.startswith("out.json")]
        cttest.check(not left, "merge %s left %s" % (inputs, left))
    shutil.rmtree(tmp)
    print("ok: 4 ranks, 3 tracers, offsets and stragglers as injected; 5 bad inputs refused")


if __name__ == "__main__":
    main()
