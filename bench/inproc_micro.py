#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What --engine inproc adds to a call: bench/ct-inproc-micro's tight loops
against a stand-in runtime whose functions return at once (no runtime's own
work, no other tracer's uprobes on it), untraced and under
`cudatracer --engine inproc --profile full -o jsonl:FILE`, in rotating
order; with --old BUILD, a second tree's tracer too (its own libraries,
the same program), for a before and after. Prints the median ns per call
of each mode over the rounds, what each adds to the untraced call, the
records lost (none, in a ring large enough: --ring), and what the hook
path's pieces cost alone on this machine.
No root needed.

    python3 bench/inproc_micro.py [-n 300000] [--rounds 7] [--ring 256M] [--old ../old/build] [--out /dev/null] [--json out.json]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
B = os.environ.get("CT_BUILD", os.path.join(HERE, "..", "build"))


def ring_key(build):
    """The key of the in-process ring's size in that tree (older ones used the BPF ring's)."""
    keys = subprocess.run([os.path.join(build, "cudatracer"), "--config-help"], capture_output=True, text=True).stdout
    return "tracer.inproc_ring_size" if "inproc_ring_size" in keys else "tracer.ringbuf_size"


def run(mode, build, prog, n, out, ring):
    cmd = [prog, str(n)]
    if mode != "untraced":
        cmd = [os.path.join(build, "cudatracer"), "--no-config", "-v", "--engine", "inproc", "--plugin", "cudart",
               "--profile", "full", "-C", "%s=%s" % (ring_key(build), ring), "-o", "jsonl:" + out, "--"] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    res = json.loads(p.stdout.strip().splitlines()[-1])
    m = re.search(r"(\d+) events, (\d+) records lost", p.stderr)
    return res, (int(m.group(2)) if m else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=300000, help="calls per loop per run")
    ap.add_argument("--ring", default="256M", help="the in-process ring: large enough that no round loses a "
                    "record (a lost one costs less than a recorded one, and would flatter the figures)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--old", help="a second build tree, measured beside this one")
    ap.add_argument("--out", help="the jsonl sink's file (default: a temporary file): /dev/null leaves the reader "
                    "less to do, and the rounds' spread smaller on a shared machine")
    ap.add_argument("--json", help="write every figure here")
    a = ap.parse_args()
    prog = os.path.join(B, "bench", "ct-inproc-micro")
    modes = {"untraced": B, "inproc": B}
    if a.old:
        modes["inproc_old"] = a.old
    names = list(modes)
    figs = {m: {} for m in names}
    lost = {m: [] for m in names}
    tmp = tempfile.mkdtemp(prefix="ctmicro.")
    for r in range(a.rounds):
        for k in range(len(names)):
            m = names[(k + r) % len(names)]
            res, nlost = run(m, modes[m], prog, a.n, a.out or os.path.join(tmp, "events.jsonl"), a.ring)
            for api, ns in res.items():
                figs[m].setdefault(api, []).append(ns)
            lost[m].append(nlost)
            print("round %d %-10s %s lost %d" % (r + 1, m, res, nlost), file=sys.stderr)
    subprocess.run(["rm", "-rf", tmp])
    parts = json.loads(subprocess.run([prog, "parts"], capture_output=True, text=True).stdout)
    apis = list(figs["untraced"])
    med = {m: {api: statistics.median(figs[m][api]) for api in apis} for m in names}
    print("\nns per call, median of %d rounds of %d calls per loop (stand-in runtime)\n" % (a.rounds, a.n))
    print("| loop | " + " | ".join(names) + " | " + " | ".join("added (%s)" % m for m in names[1:]) + " |")
    print("|---" * (2 * len(names)) + "|")
    for api in apis:
        print("| %s | " % api + " | ".join("%.1f" % med[m][api] for m in names) + " | " +
              " | ".join("%.1f" % (med[m][api] - med["untraced"][api]) for m in names[1:]) + " |")
    print("\nrecords lost: " + ", ".join("%s %s" % (m, lost[m]) for m in names[1:]))
    print("pieces alone (ns): " + ", ".join("%s %.1f" % kv for kv in parts.items()))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"n": a.n, "rounds": a.rounds, "ns": figs, "lost": lost, "parts": parts}, f, indent=1)


if __name__ == "__main__":
    main()
