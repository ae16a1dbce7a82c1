#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A tracer's cost on one long-running process: attach, measure, detach,
measure again. Separate processes of the same loop differ by more than a
tracer adds (a PyTorch step 1.55-1.76 ms untraced from run to run on the
H200), so here every mode is measured on the same process: the command
prints a line per window of work ({"t0", "t1": CLOCK_MONOTONIC seconds,
"ms_per_step"}; tests/gpu/torch_mlp_train.py windows), and this script
attaches cudatracer to it with -p for SECONDS in each mode, in rotating
order, with untraced stretches between them. A mode's figure is the mean of
the windows that lie inside its stretch (the attach's own pause excluded:
the stretch starts once the tracer says it is attached); its cost is read
against the untraced stretches of the same round.

Modes: default (--plugin PLUGINS), full (--profile full), before (attach
= multi, tracer.timed = *: the default profile as it was before session
programs and entry-only defaults), each with -floor (do-nothing programs
on the same probes, CUDATRACER_BENCH_PROGRAMS=empty).

    sudo python3 bench/attach_windows.py [--build build] [--rounds 6] [--seconds 3]
        [--modes default,default-floor,...] -- python3 tests/gpu/torch_mlp_train.py windows 50 600
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time


def reader(stream, sink):
    for line in stream:
        sink.append(line)


def tracer_args(mode, plugins):
    args = ["-v", "--plugin", plugins, "-o", "jsonl:/dev/null"]
    env = dict(os.environ)
    base = mode[:-len("-floor")] if mode.endswith("-floor") else mode
    if mode.endswith("-floor"):
        env["CUDATRACER_BENCH_PROGRAMS"] = "empty"
    if base == "full":
        args += ["--profile", "full"]
    elif base == "before":
        args += ["-C", "tracer.attach=multi", "-C", "tracer.timed=*"]
    elif base != "default":
        sys.exit("attach_windows: unknown mode %s" % mode)
    return args, env


def attached(tr, lines, timeout=60):
    """Wait until the tracer says it is attached; False if it ended first."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any("Ctrl-C" in l for l in lines):
            return True
        if tr.poll() is not None:
            return False
        time.sleep(0.02)
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get("CT_BUILD", "build"))
    ap.add_argument("--plugins", default="cudart,cuda")
    ap.add_argument("--modes", default="default,default-floor,full,full-floor,before,before-floor")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=3.0, help="each stretch, traced or not")
    ap.add_argument("--json", help="write every stretch here")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        sys.exit("attach_windows: no command")
    modes = a.modes.split(",")
    out = []
    prog = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    threading.Thread(target=reader, args=(prog.stdout, out), daemon=True).start()
    while len(out) < 3:  # warm-up windows
        if prog.poll() is not None:
            sys.exit("attach_windows: the command ended before it ran three windows")
        time.sleep(0.05)
    stretches = []
    try:
        for r in range(a.rounds):
            order = modes[r % len(modes):] + modes[:r % len(modes)]
            for m in ["untraced"] + order:
                if m == "untraced":
                    t0 = time.monotonic()
                    time.sleep(a.seconds)
                    stretches.append({"round": r, "mode": m, "t0": t0, "t1": time.monotonic()})
                    continue
                args, env = tracer_args(m, a.plugins)
                lines = []
                tr = subprocess.Popen([os.path.join(a.build, "cudatracer")] + args + ["-p", str(prog.pid)],
                                      stderr=subprocess.PIPE, text=True, env=env)
                threading.Thread(target=reader, args=(tr.stderr, lines), daemon=True).start()
                if not attached(tr, lines):
                    tr.kill()
                    sys.exit("attach_windows: %s did not attach:\n%s" % (m, "".join(lines[-20:])))
                t0 = time.monotonic()
                time.sleep(a.seconds)
                t1 = time.monotonic()
                tr.send_signal(signal.SIGINT)
                tr.wait(timeout=60)
                ev = [l.strip() for l in lines if "events," in l]
                stretches.append({"round": r, "mode": m, "t0": t0, "t1": t1, "tracer": ev[-1] if ev else "",
                                  "rc": tr.returncode})
                time.sleep(0.3)  # the detach's own work settles outside every stretch
                print("round %d %s %s" % (r + 1, m, ev[-1] if ev else "rc %d" % tr.returncode), file=sys.stderr)
    finally:
        prog.send_signal(signal.SIGTERM)
        prog.wait(timeout=60)
    windows = [json.loads(l) for l in out if l.startswith("{")]
    for s in stretches:
        inside = [w["ms_per_step"] for w in windows if w["t0"] >= s["t0"] and w["t1"] <= s["t1"]]
        s["windows"] = len(inside)
        s["ms_per_step"] = statistics.mean(inside) if inside else None
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"command": cmd, "stretches": stretches}, f, indent=1)
    base = {r: s["ms_per_step"] for s in stretches if s["mode"] == "untraced" for r in [s["round"]]}
    print("\nms per step on one process, %d rounds of %.1f s stretches (windows inside each)\n"
          % (a.rounds, a.seconds))
    print("| mode | ms per step (median) | over the round's untraced (median) | per round | windows |")
    print("|---|---|---|---|---|")
    for m in ["untraced"] + modes:
        rows = [s for s in stretches if s["mode"] == m and s["ms_per_step"] is not None]
        if not rows:
            print("| %s | no windows | | | |" % m)
            continue
        over = [s["ms_per_step"] / base[s["round"]] - 1 for s in rows if base.get(s["round"])]
        print("| %s | %.3f | %+.1f%% | %s | %d |" % (
            m, statistics.median(s["ms_per_step"] for s in rows),
            100 * statistics.median(over) if over else float("nan"),
            " ".join("%+.1f%%" % (100 * o) for o in over), sum(s["windows"] for s in rows)))
    for m in modes:
        if m + "-floor" in modes:
            ratio = []
            for r in base:
                mm = [s["ms_per_step"] for s in stretches if s["round"] == r and s["mode"] == m]
                ff = [s["ms_per_step"] for s in stretches if s["round"] == r and s["mode"] == m + "-floor"]
                if mm and ff and mm[0] and ff[0] and ff[0] > base[r]:
                    ratio.append((mm[0] - base[r]) / (ff[0] - base[r]))
            if ratio:
                print("%s: added time / its floor's, per round: %s, median %.2f"
                      % (m, " ".join("%.2f" % x for x in ratio), statistics.median(ratio)))


if __name__ == "__main__":
    if os.geteuid() != 0:
        sys.exit("attach_windows: needs root")
    main()
