#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Attaching every plugin, two builds side by side (issue 30's attach budget).

A program loads the five runtimes the plugins trace (libcudart, the driver,
libamdhip64, libOpenCL, libnccl) and exits; each build's tracer runs it with
all five plugins, in the full profile (every row probed), in alternating
order. For each build: the probes it attached (from -v), the time from the
tracer's start to its "Ctrl-C to end" line (loading the plugins and the BPF
object), the whole run's wall time (the libraries are probed as the program
opens them, so attaching is inside it), the plugins' sizes and --list-apis's
time. Medians of --rounds.

    sudo python3 bench/attach_plugins.py --old OLD_BUILD --new NEW_BUILD [--rounds 5]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

PLUGINS = "cudart,cuda,hip,opencl,nccl"
LIBS = ["libcudart.so.13", "libcuda.so", "libamdhip64.so", "libOpenCL.so.1", "libnccl.so.2"]
LOADER = ("import ctypes, sys\n"
          "for name in sys.argv[1:]:\n"
          "    ctypes.CDLL(name)\n")


def lib_paths():
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    where = {"libcudart.so.13": os.path.join(cuda, "lib64", "libcudart.so.13"),
             "libcuda.so": os.path.join(cuda, "lib64", "stubs", "libcuda.so"),
             "libnccl.so.2": os.path.join(cuda, "lib64", "libnccl.so.2")}
    return [where.get(n, n) for n in LIBS]


def one_run(build, libs):
    t0 = time.monotonic()
    p = subprocess.Popen([os.path.join(build, "cudatracer"), "--no-config", "-C",
                          "tracer.plugin_path=" + os.path.join(build, "plugins"), "-P", PLUGINS, "--profile", "full",
                          "-v", "-o", "jsonl:/dev/null", "--", sys.executable, "-c", LOADER] + libs,
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    ready, probes, lines = None, 0, []
    for line in p.stderr:
        lines.append(line)
        if ready is None and "Ctrl-C to end." in line:
            ready = time.monotonic() - t0
        m = re.search(r"plugin \w+: (\d+) probes on ", line)
        if m:
            probes += int(m.group(1))
    p.wait()
    total = time.monotonic() - t0
    if p.returncode != 0 or ready is None:
        sys.exit("%s: rc %d\n%s" % (build, p.returncode, "".join(lines[-20:])))
    return ready, total, probes


def list_time(build):
    t0 = time.monotonic()
    subprocess.run([os.path.join(build, "cudatracer"), "--no-config", "-C",
                    "tracer.plugin_path=" + os.path.join(build, "plugins"), "-P", PLUGINS, "--list-apis"],
                   check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json")
    a = ap.parse_args()
    libs = lib_paths()
    res = {b: {"ready": [], "total": [], "probes": 0, "list": []} for b in ("old", "new")}
    for r in range(a.rounds):
        for b in (("old", "new") if r % 2 == 0 else ("new", "old")):
            ready, total, probes = one_run(getattr(a, b), libs)
            res[b]["ready"].append(ready)
            res[b]["total"].append(total)
            res[b]["probes"] = probes
            res[b]["list"].append(list_time(getattr(a, b)))
    print("| build | probes | start to tracing (s) | whole run (s) | --list-apis (s) | plugins (bytes) |")
    print("|---|---|---|---|---|---|")
    for b in ("old", "new"):
        d = os.path.join(getattr(a, b), "plugins")
        size = sum(os.path.getsize(os.path.join(d, "libct-%s.so" % p)) for p in PLUGINS.split(","))
        r = res[b]
        r["size"] = size
        print("| %s | %d | %.3f | %.3f | %.3f | %d |" % (b, r["probes"], statistics.median(r["ready"]),
                                                       statistics.median(r["total"]), statistics.median(r["list"]),
                                                       size))
    print("whole run, new - old: %+.3f s (medians of %d rounds)" %
          (statistics.median(res["new"]["total"]) - statistics.median(res["old"]["total"]), a.rounds))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f)


if __name__ == "__main__":
    main()
