# SPDX-License-Identifier: MIT
"""Check a trace of tests/gpu/torch_graphs.py (docs/gpu.md, "CUDA graphs"):

    python3 tests/gpu/check_graphs.py graphs.jsonl expect.json

expect.json is torch_graphs.py's output line. Every kernel run from a graph
node (graph_node in its line) must name the call that captured it
(captured_by, whose api is a launch: cudaLaunchKernel, cuLaunchKernel,
cudaLaunchKernelExC ...), that call must be a call line of the trace (same
pid, tid, ts_ns, api), each node must have run exactly `replays` times, and
when the program could count them, there must be `kernel_nodes` nodes.
Prints what it found; exits 1 on the first broken rule.
"""
import collections
import json
import sys


def main():
    lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    expect = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
    calls = {(e["pid"], e["tid"], e["ts_ns"], e["api"]): e for e in lines if "api" in e and "plugin" in e}
    kernels = [e for e in lines if e.get("kind") == "gpu" and e.get("op") == "kernel" and e.get("graph_node")]
    bad = []
    per_node = collections.Counter()
    sites = collections.Counter()
    for k in kernels:
        per_node[(k["pid"], k["graph_node"])] += 1
        c = k.get("captured_by")
        if not c or not c.get("api") or "Launch" not in c["api"]:
            bad.append("kernel %s of node %d: captured_by %r is not a launch" % (k["name"], k["graph_node"], c))
            continue
        if (k["pid"], c["tid"], c["ts_ns"], c["api"]) not in calls:
            bad.append("kernel %s of node %d: no call line %r" % (k["name"], k["graph_node"], c))
        sites[(c["api"], c.get("site"))] += 1
    counts = collections.Counter(per_node.values())
    print("graph kernels: %d records of %d nodes; replays per node: %s" % (len(kernels), len(per_node), dict(counts)))
    print("capture calls (api, site): %s" % dict(sites.most_common(10)))
    print("expected: %s" % expect)
    if not kernels:
        bad.append("no kernel line has graph_node (was the trace taken with --gpu-activity?)")
    for node, n in sorted(per_node.items()):
        if n != expect["replays"]:
            bad.append("node %d ran %d times, want %d" % (node[1], n, expect["replays"]))
    if expect.get("kernel_nodes") is not None and len(per_node) != expect["kernel_nodes"]:
        bad.append("%d nodes ran kernels, the graph has %d kernel nodes" % (len(per_node), expect["kernel_nodes"]))
    for b in bad[:20]:
        print("FAIL: " + b)
    if bad:
        sys.exit(1)
    print("ok: every graph kernel names its capture call; every node ran %d times" % expect["replays"])


if __name__ == "__main__":
    main()
