#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every sink at once on real traced programs: each file parses, agrees with the
jsonl events call for call, and holds the exact figures the program implies."""
import collections
import os
import subprocess
import sys

import cttest
import test_sinks_common as common


def run(tmp, command, extra=""):
    conf = common.write_config(tmp, extra)
    p = subprocess.run([cttest.TRACER, "-c", conf, "--plugin", "cudart", "--"] + command,
                       capture_output=True, text=True, timeout=120)
    trace = cttest.Trace(p.returncode, p.stdout, p.stderr, [], tmp)
    cttest.check(p.returncode == 0, "tracer exited %d" % p.returncode, trace)
    return common.files(tmp), trace


def fake_runtime():
    """The stand-in runtime succeeds, so bytes, allocations and frees are real."""
    tmp = common.tmpdir()
    prog = common.build_fake(tmp)
    d, trace = run(tmp, [prog, "3"])
    common.check_consistent(d, trace)
    pid = d["events"][0]["pid"]
    apis = collections.Counter(e["api"] for e in d["events"])
    cttest.check(apis == {"cudaGetDeviceCount": 1, "cudaMalloc": 2, "cudaMallocHost": 1,
                          "cudaMemcpy": 6, "cudaMemset": 3, "cudaFree": 3, "cudaFreeHost": 1,
                          "cudaDeviceSynchronize": 1}, "calls: %r" % apis, trace)

    # summary: calls, errors (cudaFree(NULL) is not an error here), bytes by kind
    procs = d["summary"]["processes"]
    cttest.check([p["pid"] for p in procs] == [pid], "one process", trace)
    s = {a["api"]: a for a in procs[0]["apis"]}
    cttest.check(s["cudaMemcpy"]["calls"] == 6 and s["cudaMemcpy"]["bytes"] == 4500, "memcpy", trace)
    cttest.check(s["cudaMemcpy"]["bytes_by_kind"] ==
                 {"cudaMemcpyHostToDevice": {"calls": 3, "bytes": 3000},
                  "cudaMemcpyDeviceToHost": {"calls": 3, "bytes": 1500}}, "kinds", trace)
    cttest.check(s["cudaMalloc"]["bytes"] == 12288 and s["cudaMallocHost"]["bytes"] == 1000,
                 "alloc bytes", trace)
    cttest.check(s["cudaMemset"]["bytes"] == 192, "memset bytes", trace)
    total = sum(e["dur_ns"] for e in d["events"])
    cttest.check(procs[0]["total_ns"] == total, "total time %d != %d" % (procs[0]["total_ns"], total),
                 trace)
    for a in procs[0]["apis"]:
        durs = [e["dur_ns"] for e in d["events"] if e["api"] == a["api"]]
        cttest.check(a["min_ns"] == min(durs) and a["max_ns"] == max(durs), a["api"] + " min/max", trace)
        cttest.check(min(durs) <= a["p50_ns"] <= max(durs), a["api"] + " p50", trace)
    cttest.check("cudaMemcpy  cudaMemcpyHostToDevice      3   3000" in d["summary_txt"],
                 "table:\n" + d["summary_txt"], trace)

    # memory: b (8192 bytes) never freed, 0xbad000 freed but never allocated
    m = d["memory"]["processes"]
    cttest.check(len(m) == 1 and m[0]["runtime"] == "cudart", "memory spaces %r" % m, trace)
    m = m[0]
    b = [e for e in d["events"] if e["api"] == "cudaMalloc"][1]["args"]["devPtr"]
    cttest.check([(u["ptr"], u["size"], u["api"]) for u in m["unfreed"]] == [(b, 8192, "cudaMalloc")],
                 "unfreed %r" % m["unfreed"], trace)
    cttest.check(m["peak"] == {"device": 12288, "host": 1000, "managed": 0}, "peak %r" % m["peak"], trace)
    cttest.check(m["unknown_frees"] == 1 and m["unknown_free_list"][0]["ptr"] == "0xbad000",
                 "unknown frees", trace)
    cttest.check("never freed: 1 allocations, 8192 bytes" in d["memory_txt"], d["memory_txt"], trace)
    cttest.check("0xbad000  cudaFree" in d["memory_txt"], d["memory_txt"], trace)

    # chrome: one thread track, counters that follow the program
    ev = d["chrome"]["traceEvents"]
    threads = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "X"}
    cttest.check(threads == {(pid, pid)}, "tracks %r" % threads, trace)
    names = [e["args"]["name"] for e in ev if e["name"] == "thread_name"]
    cttest.check(names == ["sinks_user"], "thread names %r" % names, trace)
    dev = [e["args"]["bytes"] for e in ev if e["name"] == "device memory in use (cudart)"]
    cttest.check(dev == [4096, 12288, 8192], "device counter %r" % dev, trace)
    host = [e["args"]["bytes"] for e in ev if e["name"] == "host memory in use (cudart)"]
    cttest.check(host == [1000, 0], "host counter %r" % host, trace)
    cp = [e["args"] for e in ev if e["name"] == "bytes copied (cudart)"]
    cttest.check(len(cp) == 6 and cp[-1] == {"cudaMemcpyHostToDevice": 3000,
                                            "cudaMemcpyDeviceToHost": 1500}, "copy counter %r" % cp,
                 trace)
    x = [e for e in ev if e["ph"] == "X"]
    for e, j in zip(x, d["events"]):
        cttest.check(e["dur"] == j["dur_ns"] / 1000 and e["args"]["result"] == j["result_name"] and
                     e["args"]["api"] == j["api"] and e["args"].get("call", {}) == j["args"],
                     "chrome event %r vs %r" % (e, j), trace)

    # csv: the same values as jsonl
    for r, j in zip(d["csv"], d["events"]):
        cttest.check(int(r["pid"]) == j["pid"] and int(r["dur_ns"]) == j["dur_ns"] and
                     r["result"] == j["result_name"], "csv row %r vs %r" % (r, j), trace)


def several_processes():
    """A shell runs the program twice: the summary and memory report each process."""
    tmp = common.tmpdir()
    prog = common.build_fake(tmp)
    d, trace = run(tmp, ["/bin/sh", "-c", "%s 1 && %s 2" % (prog, prog)])
    common.check_consistent(d, trace)
    pids = sorted({e["pid"] for e in d["events"]})
    cttest.check(len(pids) == 2, "two traced processes: %r" % pids, trace)
    procs = d["summary"]["processes"]
    cttest.check([p["pid"] for p in procs] == pids, "summary per process", trace)
    memcpy = [{a["api"]: a for a in p["apis"]}["cudaMemcpy"]["calls"] for p in procs]
    cttest.check(memcpy == [2, 4], "memcpy calls per process %r" % memcpy, trace)
    cttest.check(d["summary_txt"].count("pid ") == 2, d["summary_txt"], trace)
    m = d["memory"]["processes"]
    cttest.check([(x["pid"], x["unfreed_bytes"]) for x in m] == [(pids[0], 8192), (pids[1], 8192)],
                 "memory per process %r" % m, trace)
    tracks = {e["pid"] for e in d["chrome"]["traceEvents"] if e["name"] == "process_name"}
    cttest.check(tracks == set(pids), "a chrome process track each", trace)


def real_runtime():
    """The real libcudart without a GPU: every call fails; bytes and memory stay 0."""
    prog = cttest.program("cudart_calls_shared")
    tmp = common.tmpdir()
    d, trace = run(tmp, [prog])
    common.check_consistent(d, trace)
    procs = d["summary"]["processes"]
    apis = collections.Counter(e["api"] for e in d["events"])
    # Every call fails but the entry-only ones (cudaEventRecord, cudaStreamWaitEvent), which have no result.
    entry = {e["api"] for e in d["events"] if e.get("entry_only")}
    cttest.check(entry == {"cudaEventRecord", "cudaStreamWaitEvent"}, "entry-only %r" % entry, trace)
    got = {a["api"]: (a["calls"], a["errors"], a.get("bytes", 0)) for a in procs[0]["apis"]}
    cttest.check(got == {k: (v, 0 if k in entry else v, 0) for k, v in apis.items()}, "summary %r" % got, trace)
    m = d["memory"]["processes"][0]
    cttest.check(m["allocs"] == 0 and m["unknown_frees"] == 0 and m["unfreed"] == [],
                 "failed calls allocate and free nothing: %r" % m, trace)
    x = [e for e in d["chrome"]["traceEvents"] if e["ph"] == "X"]
    cttest.check(all(e["args"]["error"] for e in x), "every call an error", trace)
    cttest.check(not [e for e in d["chrome"]["traceEvents"] if e["ph"] == "C"], "no counters", trace)
    cttest.check(all(r["result"] == ("" if r["api"] in entry else "cudaErrorInsufficientDriver") for r in d["csv"]),
                 "csv", trace)


def main():
    cttest.need_root()
    fake_runtime()
    several_processes()
    real_runtime()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
