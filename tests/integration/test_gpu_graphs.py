#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CUDA graphs under --gpu-activity, without a GPU (docs/gpu.md, "CUDA graphs").

tests/programs/gpu_activity's graphs phase captures a graph: three
cudaLaunchKernel calls and a cudaMemsetAsync each make a node from inside
the call (the stand-in libcupti's resource callback, as CUPTI's), a fifth
node is made outside any traced call, cudaGraphInstantiate clones every node
from inside itself, and the graph is launched 5 times; every replay's kernel
and set record names its clone. Checked: each record's capture call is the
exact call line that made its node (thread, API, ts_ns, site from its
stack; the launches told apart by their grid), the node made in no traced
call has none, per-node replays and GPU time exact in the summary's table,
`report --answer json` and the chrome trace's args; a trace without the
graph fields reads as before; a libcupti without the callbacks is said.
"""
import json
import os
import re
import subprocess

import cttest as t

FAKE_CUPTI = os.path.join(t.PROGRAMS, "libfake_cupti.so")
FAKE_DIR = os.path.join(t.PROGRAMS, "fakegpu")
NAMES = {0: "fwd()", 1: "bwd()", 2: None, 3: "fwd()", 4: "fwd()"}  # by node index; 2 is the set


def run(env=None):
    args = ["--plugin", "cudart,cuda", "--gpu-activity", "--stacks", "-C", "tracer.cupti_path=" + FAKE_CUPTI]
    tr = t.run(args, command=[t.program("gpu_activity"), FAKE_DIR, "graphs"], env=env,
               extra_sinks=t.SUMMARY_AND_CHROME_SINKS + "[sink.text]\ntype = text\npath = @TMP@/out.txt\n"
               "[sink.sqlite]\ntype = sqlite\npath = @TMP@/run.db\n")
    t.check(tr.rc == 0, "exit %d" % tr.rc, tr)
    out = json.loads(tr.stdout)["graphs"]
    t.check(out is not None, "the graphs phase ran", tr)
    return tr, out


def site(call):
    """The analysis's call site of a call line: its innermost native frame (no Python here)."""
    if not call.get("stack"):
        return None
    f = call["stack"][0]
    if f.get("file") and f.get("line") is not None:
        return "%s (%s:%d)" % (f["function"], f["file"], f["line"])
    return "%s (%s)" % (f["function"], f["module"])


def capture_calls(tr, out):
    """Node index -> the call line that made it: launches by their grid, the set by its value."""
    launch = {c["args"]["grid"][0]: c for c in tr.calls("cudaLaunchKernel")}
    sets = [c for c in tr.calls("cudaMemsetAsync") if c["tid"] == out["tid"]]
    t.check(sorted(launch) == [1, 2, 3] and len(sets) == 1, "the capturing calls: %r %r" % (launch, sets), tr)
    return {0: launch[1], 1: launch[2], 2: sets[0], 3: launch[3]}


def want_capture(call, made):
    return {"node": made, "tid": call["tid"], "api": call["api"], "ts_ns": call["ts_ns"], "site": site(call)}


def dur(i, r):
    return 1000 * (i + 1) + 10 * r  # as the program made them


def check_records(tr, out):
    calls = capture_calls(tr, out)
    recs = [e for e in tr.events if e.get("kind") == "gpu"]
    n, replays = out["nodes"], out["replays"]
    t.check(len(recs) == n * replays and all("graph_node" in e for e in recs), "a record per node and replay", tr)
    for e in recs:
        i = e["graph_node"] - out["exec"]
        t.check(0 <= i < n and e["graph_id"] == 6, "the clone's node and graph: %r" % e, tr)
        t.check(e["correlation"]["api"] == "cudaGraphLaunch", "launched by the graph launch: %r" % e, tr)
        want = want_capture(calls[i], out["made"] + i) if i in calls else None
        t.check(e["captured_by"] == want, "node %d captured by\n%r\nwant\n%r" % (i, e["captured_by"], want), tr)
    # The launches' own arguments are those of the call named: the second launch made node 1.
    second = [e for e in recs if e["graph_node"] == out["exec"] + 1][0]["captured_by"]
    line = [c for c in tr.calls("cudaLaunchKernel") if c["ts_ns"] == second["ts_ns"]]
    t.check(len(line) == 1 and line[0]["args"]["func"] == "0x402000" and line[0]["args"]["grid"] == [2, 1, 1],
            "the call line named: %r" % line, tr)
    t.check(site(line[0]) is not None, "the launch has its stack (--stacks): %r" % line, tr)
    t.check("CUDA graphs: 10 graph nodes made or cloned, 25 device records run from graph nodes, "
            "5 without the call that captured their node" in tr.stderr, "closing report", tr)
    return calls


def want_nodes(out, calls):
    rows = []
    for i in range(out["nodes"]):
        c = calls.get(i)
        rows.append({"node": out["exec"] + i, "graph_id": 6, "name": NAMES[i] or "memset",
                     "api": c["api"] if c else None, "site": site(c) if c else None,
                     "ns": sum(dur(i, r) for r in range(out["replays"])), "n": out["replays"]})
    return sorted(rows, key=lambda r: (-r["ns"], r["node"]))


def report_json(path):
    p = subprocess.run([t.TRACER, "report", path, "--answer", "json"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def check_tables(tr, out, calls):
    want = want_nodes(out, calls)
    got = report_json(os.path.join(tr.files, "events.jsonl"))["processes"]
    t.check(len(got) == 1 and got[0]["graph_nodes"] == want,
            "report's graph nodes:\n%r\nwant\n%r" % (got and got[0].get("graph_nodes"), want), tr)
    # The same from the sqlite sink's database of the same run.
    db = report_json(os.path.join(tr.files, "run.db"))["processes"]
    t.check(len(db) == 1 and db[0]["graph_nodes"] == want,
            "report of the database: graph nodes\n%r\nwant\n%r" % (db and db[0].get("graph_nodes"), want), tr)
    with open(os.path.join(tr.files, "summary.txt")) as f:
        summary = f.read()
    t.check("  CUDA graph nodes by GPU time (5 nodes; replays: records run from the node):\n" in summary,
            "the summary's table:\n" + summary, tr)
    for w in want:
        ms = "%d.%03d ms" % (w["ns"] // 1000000, w["ns"] // 1000 % 1000)
        line = "    %s %6dx node %d of graph 6 %s, " % (ms, w["n"], w["node"], w["name"])
        line += ("captured by %s from %s" % (w["api"], w["site"] or "(no stack recorded)") if w["api"]
                 else "capture call not recorded")
        t.check(line + "\n" in summary, "summary lacks %r:\n%s" % (line, summary), tr)
    with open(os.path.join(tr.files, "trace.json")) as f:
        slices = [e for e in json.load(f)["traceEvents"] if e.get("cat") == "gpu"]
    for e in slices:
        i = e["args"]["graph_node"] - out["exec"]
        c = calls.get(i)
        t.check(e["args"].get("captured_by") == (c["api"] if c else None) and
                e["args"].get("captured_at") == (site(c) if c else None), "chrome args: %r" % e["args"], tr)


def check_old_trace(tr):
    """A trace from before graph nodes (its GPU lines without the keys) reads, with no node table."""
    old = os.path.join(tr.files, "old.jsonl")
    with open(os.path.join(tr.files, "events.jsonl")) as f, open(old, "w") as o:
        for line in f:
            e = json.loads(line)
            for k in ("graph_id", "graph_node", "captured_by"):
                e.pop(k, None)
            o.write(json.dumps(e, separators=(",", ":")) + "\n")
    procs = report_json(old)["processes"]
    t.check(all(p["graph_nodes"] == [] for p in procs), "an older trace: %r" % procs, tr)


def main():
    t.need_root()
    tr, out = run()
    calls = check_records(tr, out)
    check_tables(tr, out, calls)
    check_old_trace(tr)
    # The text sink's GPU lines name the graph, the node and the capture call.
    text = open(os.path.join(tr.files, "out.txt")).read()
    by = {}
    for m in re.finditer(r"\[graph (\d+) node (\d+)(?:, captured by (\S+) in tid (\d+))?\]", text):
        by[m.group(3)] = by.get(m.group(3), 0) + 1
        t.check(m.group(4) in (None, str(out["tid"])), "text: capture tid %s" % m.group(4), tr)
    t.check(by == {"cudaLaunchKernel": 15, "cudaMemsetAsync": 5, None: 5}, "text sink graph lines: %r" % by, tr)

    # A libcupti without the graph callbacks: said, and the records keep their node, with no capture call.
    tr, out = run(env={"FAKE_CUPTI_NO_GRAPHS": "1"})
    t.check(re.search(r"GPU activity: cuptiEnableCallback for CUDA graph nodes failed: \S+ \(\d+\); kernels of "
                      r"CUDA graphs are tied to their graph launch only", tr.stderr), "said", tr)
    recs = [e for e in tr.events if e.get("kind") == "gpu"]
    t.check(len(recs) == 25 and all(e["captured_by"] is None and e["graph_node"] for e in recs),
            "no capture calls", tr)
    print("ok: CUDA graph records tied to their nodes' capture calls, per-node replays and GPU time exact")


if __name__ == "__main__":
    main()
