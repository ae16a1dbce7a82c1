#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Launches and their kernel names in a cudatracer jsonl trace:
    kernel_names_stats.py TRACE.jsonl [STDERR_FILE]
A launch is a cudaLaunchKernel* or cuLaunchKernel* call; it is named when
its kernel argument (func, or f for the driver) is a name rather than a hex
address. Prints launches, named, unnamed, the tracer's closing "launches:"
line from STDERR_FILE, and the top 5 kernel names."""
import collections
import json
import re
import sys

KERNEL_ARGS = ("func", "f", "kernel")


def is_launch(e):
    api = e.get("api") or ""
    return api.startswith("cudaLaunchKernel") or api.startswith("cuLaunchKernel")


def kernel_of(e):
    args = e.get("args") or {}
    for k in KERNEL_ARGS:
        if k in args:
            return args[k]
    return None


def is_name(v):
    # The tracer writes an address as 0x...; a kernel may well be called "add".
    return isinstance(v, str) and v != "" and re.fullmatch(r"0x[0-9a-fA-F]+", v) is None


def stats(path):
    launches, names = 0, collections.Counter()
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            e = json.loads(line)
            if not is_launch(e):
                continue
            launches += 1
            k = kernel_of(e)
            if is_name(k):
                names[k] += 1
    return launches, names


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: kernel_names_stats.py TRACE.jsonl [STDERR_FILE]")
    launches, names = stats(sys.argv[1])
    named = sum(names.values())
    print("launches %d, named %d, unnamed %d (%.1f%% named)"
          % (launches, named, launches - named, 100.0 * named / launches if launches else 0.0))
    if len(sys.argv) > 2:
        closing = [l.strip() for l in open(sys.argv[2], errors="replace") if "launches:" in l]
        print("closing: " + (closing[-1] if closing else "(no launches: line)"))
    for name, n in names.most_common(5):
        print("  %6d  %s" % (n, name[:120]))


if __name__ == "__main__":
    main()
