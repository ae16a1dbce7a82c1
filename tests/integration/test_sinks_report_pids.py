# SPDX-License-Identifier: MIT
"""report and merge on a trace of 5,000 short processes (two calls each):
the exact figures every process and the ended row get, each process's exit
in the memory report in the order they ended, and merge's processes and its
refusal of a process that is in two inputs. Processes are looked up by a
hash; bench/report_pids.sh has the timing (once quadratic in pids)."""
import json
import os
import subprocess
import tempfile

import cttest

N = 5000
KEEP = 1000  # the summary's keep_exited default
META = {"kind": "meta", "format": "cudatracer-jsonl", "version": 1, "host": "vm", "boot_id": "b0",
        "tracer_pid": 1, "wall_ns": 10**12, "mono_ns": 5 * 10**8, "wall_offset_ns": 10**12 - 5 * 10**8}


def calls(i):
    pid, ts, ptr = 1000 + i, 10**12 + 10000 * i, "0x%x" % (0x7f5000000000 + 4096 * i)
    return [{"ts_ns": ts + off, "plugin": "cudart", "api": api, "pid": pid, "tid": pid, "comm": "app", "depth": 0,
             "dur_ns": 500, "result": 0, "result_name": "cudaSuccess", "error": False, "args": args}
            for api, off, args in (("cudaMalloc", 0, {"devPtr": ptr, "size": 4096}), ("cudaFree", 5000, {"devPtr": ptr}))]


def write_trace(path, procs, host="vm"):
    with open(path, "w") as f:
        f.write(json.dumps(dict(META, host=host)) + "\n")
        for i in procs:
            for c in calls(i):
                f.write(json.dumps(c) + "\n")


def tracer(args):
    return subprocess.run([cttest.TRACER] + args, capture_output=True, text=True, timeout=120)


def main():
    tmp = tempfile.mkdtemp(prefix="cttest.")
    trace = os.path.join(tmp, "t.jsonl")
    write_trace(trace, range(N))
    conf = os.path.join(tmp, "report.ini")
    with open(conf, "w") as f:
        f.write("[sink.s]\ntype = summary\nformat = json\npath = %s/s.json\n"
                "[sink.m]\ntype = memory\npath = %s/m.txt\n" % (tmp, tmp))
    r = tracer(["report", "-q", "-c", conf, trace])
    cttest.check(r.returncode == 0, "report: exit %d: %s" % (r.returncode, r.stderr))

    with open(os.path.join(tmp, "s.json")) as f:
        s = json.load(f)
    # Processes end in the order of their last call: the last KEEP are kept apart.
    kept = [(p["pid"], p["calls"], [(a["api"], a["calls"]) for a in p["apis"]]) for p in s["processes"]]
    # APIs of equal time and calls by name
    want = [(1000 + i, 2, [("cudaFree", 1), ("cudaMalloc", 1)]) for i in range(N - KEEP, N)]
    cttest.check(kept == want, "summary: processes kept apart %r ..." % kept[:3])
    e = s["ended"]
    cttest.check(s["calls"] == 2 * N and e["processes"] == N - KEEP and e["calls"] == 2 * (N - KEEP) and
                 [(a["api"], a["calls"], a.get("bytes")) for a in e["apis"]] ==
                 [("cudaFree", N - KEEP, None), ("cudaMalloc", N - KEEP, 4096 * (N - KEEP))],
                 "summary: ended %r" % {k: v for k, v in e.items() if k != "apis"})

    with open(os.path.join(tmp, "m.txt")) as f:
        exits = [line.strip() for line in f if line.startswith("  (pid ")]
    cttest.check(exits == ["(pid %d exited)" % (1000 + i) for i in range(N)],
                 "memory: %d exits named, first %r" % (len(exits), exits[:3]))

    # Two hosts' halves on one timeline: every process once.
    halves = [os.path.join(tmp, "h%d.jsonl" % k) for k in range(2)]
    for k in range(2):
        write_trace(halves[k], range(k, N, 2), host="h%d" % k)
    chrome = os.path.join(tmp, "m.json")
    r = tracer(["merge", "-q", halves[0], halves[1], "-o", "chrome:" + chrome, "-o", "summary:" + tmp + "/ms.txt"])
    cttest.check(r.returncode == 0, "merge: exit %d: %s" % (r.returncode, r.stderr))
    with open(chrome) as f:
        ev = json.load(f)
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    names = {(x["pid"], x["args"]["name"]) for x in ev if x.get("ph") == "M" and x.get("name") == "process_name"}
    want = {"host h%d pid %d (app)" % (i % 2, 1000 + i) for i in range(N)}
    cttest.check({n for _, n in names} == want and len(names) == N,
                 "merge: %d processes named, e.g. %r" % (len(names), sorted(names)[:3]))
    calls_seen = sum(1 for x in ev if x.get("ph") == "X")
    cttest.check(calls_seen == 2 * N, "merge: %d calls on the timeline" % calls_seen)

    # A process in two inputs (a trace given twice, as a copy) is refused, named.
    copy = os.path.join(tmp, "h0copy.jsonl")
    write_trace(copy, range(0, N, 2), host="h0")
    r = tracer(["merge", "-q", halves[0], copy, "-o", "chrome:" + tmp + "/x.json"])
    cttest.check(r.returncode != 0 and "merge: process 1000 of host h0 is in two inputs: %s and %s" % (halves[0], copy)
                 in r.stderr, "merge of a copy: exit %d: %s" % (r.returncode, r.stderr))
    subprocess.run(["rm", "-rf", tmp])
    print("ok: report and merge of %d processes" % N)


if __name__ == "__main__":
    main()
