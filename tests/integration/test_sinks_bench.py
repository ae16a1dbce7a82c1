#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Benchmark, not a test (not run by ctest): the tracer's peak RSS and wall time
on about 1,000,000 calls (3 per iteration), with jsonl alone and with every sink on.
The figures in docs/sinks.md come from this script.

    CT_BUILD=build PYTHONPATH=tests/lib python3 tests/integration/test_sinks_bench.py [ITERATIONS]
"""
import os
import subprocess
import sys
import time

import cttest
import test_sinks_common as common


def measure(tmp, prog, iters, sinks):
    conf = os.path.join(tmp, "bench.ini")
    with open(conf, "w") as f:
        f.write("[sink.test]\ntype = jsonl\npath = %s\n" % os.path.join(tmp, "events.jsonl"))
        if sinks:
            f.write(common.ALL_SINKS.replace("@TMP@", tmp))
            f.write("[sink.text]\ntype = text\npath = %s\n" % os.path.join(tmp, "text.log"))
    with open(os.path.join(tmp, "stderr"), "w") as err:
        t0 = time.time()
        p = subprocess.Popen([cttest.TRACER, "-c", conf, "--plugin", "cudart", "--", prog, str(iters)],
                             stdout=subprocess.DEVNULL, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.time() - t0
    with open(os.path.join(tmp, "stderr")) as f:
        last = f.read().strip().splitlines()[-1]
    sizes = {n: os.path.getsize(os.path.join(tmp, n)) for n in os.listdir(tmp)
             if n.endswith((".json", ".jsonl", ".csv", ".html", ".txt", ".log"))}
    return status, wall, ru.ru_maxrss, last, sizes


def main():
    cttest.need_root()
    iters = int(sys.argv[1]) if len(sys.argv) > 1 else 333331
    tmp = common.tmpdir()
    prog = common.build_fake(tmp)
    for sinks in (False, True):
        status, wall, rss, last, sizes = measure(tmp, prog, iters, sinks)
        print("%-10s status %d, %.1f s, peak RSS %d KiB; %s" %
              ("all sinks" if sinks else "jsonl only", status, wall, rss, last))
        for n in sorted(sizes):
            print("    %-14s %12d bytes" % (n, sizes[n]))


if __name__ == "__main__":
    sys.exit(main())
