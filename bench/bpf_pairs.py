#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""BPF time per probe run of two builds, side by side: in each round the
floors (empty, clock, record; ct-floor of the new build), then jsonl and
aggregate of the old and the new build alternating (which goes first
swaps every round), so that both see the same machine. Prints per round
each build's jsonl per call above the empty programs as a multiple of the
record floor's, and aggregate's as a multiple of the clock floor's, and
the medians. A shared machine's noise moves whole rounds; the ratios
within a round are what compares.

    sudo python3 bench/bpf_pairs.py OLD_BUILD NEW_BUILD [--rounds 6] [-n 30000]
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("run_bench", os.path.join(here, "run_bench.py"))
rb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rb)


def ratio(row, mode, floor):
    return (row[mode] - row["floor"]) / (row[floor] - row["floor"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("-n", type=int, default=30000, help="calls per API per run")
    ap.add_argument("--json", help="write every figure here")
    a = ap.parse_args()
    builds = {"old": a.old, "new": a.new}
    workload = os.path.join(a.new, "bench", "workload")
    cudart = rb.find_cudart(argparse.Namespace(cudart=None, workload=workload))
    with open("/proc/sys/kernel/bpf_stats_enabled") as f:
        was = f.read().strip()
    with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
        f.write("1")
    rows = []
    try:
        for r in range(a.rounds):
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            seq = [("new", m) for m in ("floor", "floor_clock", "floor_record")]
            seq += [(b, m) for m in ("jsonl", "aggregate") for b in order]
            row = {}
            for b, m in seq:
                rb.B = builds[b]
                x = rb.run_mode(m, workload, a.n, os.path.join(builds[b], "plugins", "libct-cudart.so"), cudart,
                                bpf_stats=True)["bpf"]
                row[m if m.startswith("floor") else b + "_" + m] = x["ns_per_probe_run"]
            rows.append(row)
            print("round %d %s" % (r + 1, {k: round(v) for k, v in row.items()}), file=sys.stderr)
    finally:
        with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
            f.write(was)
    for b in ("old", "new"):
        for mode, floor in (("jsonl", "floor_record"), ("aggregate", "floor_clock")):
            v = [ratio(row, b + "_" + mode, floor) for row in rows]
            print("%s %s per call above empty / %s's: %s, median %.2f"
                  % (b, mode, floor, " ".join("%.2f" % x for x in v), statistics.median(v)))
    print("medians, ns per probe run:", {k: round(statistics.median(row[k] for row in rows)) for k in rows[0]})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    if os.geteuid() != 0:
        sys.exit("bpf_pairs: needs root")
    main()
