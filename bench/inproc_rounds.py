#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What --engine inproc adds to a call of the real runtime, measured on one
process: bench/workload's tight loops run 2 x PAIRS rounds in one process
under `cudatracer --engine inproc -C tracer.start_paused=true`, and between
rounds the tracer is resumed (SIGUSR2) or paused (SIGUSR1), each pair of
rounds one of each, in alternating order. An API's figure is the median
over the pairs of (recording - paused). Separate processes of the same
loops differ by more than the engine adds (on the H200 cudaMemcpyAsync ran
1,243 to 2,186 ns untraced from one process to the next), which one
process's rounds do not. Paused keeps the interposer's pass-through (its
stub, the trampoline and the load and branch of the ring's `on`: 5-8 ns a
call on the 2-core VM), so the figure leaves that much out.

    python3 bench/inproc_rounds.py [--build build] [-n 100000] [--pairs 6] [--profile full] [--json out.json]
"""
import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
B = os.environ.get("CT_BUILD", os.path.join(HERE, "..", "build"))


def reader(stream, sink):
    for line in stream:
        sink.append(line)


def wait_note(lines, needle, count, proc, timeout=30):
    """Until the tracer's stderr holds `count` lines with needle."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if sum(needle in l for l in lines) >= count:
            return
        if proc.poll() is not None:
            break
        time.sleep(0.005)
    sys.exit("inproc_rounds: no %r from the tracer:\n%s" % (needle, "".join(lines[-20:])))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=B)
    ap.add_argument("-n", type=int, default=100000, help="calls per API per round")
    ap.add_argument("--pairs", type=int, default=6)
    ap.add_argument("--profile", default="full")
    ap.add_argument("--workload", default=None, help="default: BUILD/bench/workload")
    ap.add_argument("--json")
    a = ap.parse_args()
    workload = a.workload or os.path.join(a.build, "bench", "workload")
    rounds = 2 * a.pairs
    cmd = [os.path.join(a.build, "cudatracer"), "-v", "--no-config", "--engine", "inproc", "--plugin", "cudart",
           "--profile", a.profile, "-o", "jsonl:/dev/null", "-C", "tracer.start_paused=true",
           "--", workload, str(a.n), "all", "rounds", str(rounds)]
    tr = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = []
    threading.Thread(target=reader, args=(tr.stderr, err), daemon=True).start()
    figs = {"paused": [], "recording": []}
    paused, pauses, resumes = True, 0, 0
    for r in range(rounds):
        pair = r // 2
        # Each pair one round of each, the pair's order alternating.
        want = "recording" if (r % 2 == 0) == (pair % 2 == 1) else "paused"
        if want == "recording" and paused:
            tr.send_signal(signal.SIGUSR2)
            resumes += 1
            wait_note(err, "resumed (SIGUSR2)", resumes, tr)
            paused = False
        elif want == "paused" and not paused:
            tr.send_signal(signal.SIGUSR1)
            pauses += 1
            wait_note(err, "paused (SIGUSR1)", pauses, tr)
            paused = True
        line = tr.stdout.readline()
        if not line.startswith("ready"):
            sys.exit("inproc_rounds: the workload did not start round %d: %r\n%s" % (r, line, "".join(err[-20:])))
        tr.stdin.write("go\n")
        tr.stdin.flush()
        res = json.loads(tr.stdout.readline())
        figs[want].append(res)
        print("round %d %-9s %s" % (r + 1, want, res), file=sys.stderr)
    tr.stdin.close()
    tr.wait(timeout=120)
    time.sleep(0.2)
    m = re.search(r"(\d+) events, (\d+) records lost", "".join(err))
    events, lost = (int(m.group(1)), int(m.group(2))) if m else (None, None)
    apis = list(figs["paused"][0])
    print("\nns per call, %d rounds of %d calls per loop in one process (--engine inproc --profile %s), "
          "paused and recording in turn\n" % (rounds, a.n, a.profile))
    print("| API | paused (median) | recording (median) | added, median of pairs | added per pair |")
    print("|---|---|---|---|---|")
    out = {}
    for api in apis:
        p = [x[api] for x in figs["paused"]]
        q = [x[api] for x in figs["recording"]]
        added = [y - x for x, y in zip(p, q)]
        out[api] = {"paused": p, "recording": q, "added": added}
        print("| %s | %.1f | %.1f | %.1f | %s |" % (api, statistics.median(p), statistics.median(q),
                                                 statistics.median(added), " ".join("%.0f" % d for d in added)))
    print("\nevents %s, records lost %s (recording rounds: %d x %d calls per loop)" % (events, lost, a.pairs, a.n))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"n": a.n, "pairs": a.pairs, "profile": a.profile, "apis": out, "events": events,
                       "lost": lost}, f, indent=1)
    return 0 if tr.returncode == 0 and lost == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
