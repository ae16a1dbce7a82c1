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
on the same probes, CUDATRACER_BENCH_PROGRAMS=empty), -gpu (--gpu-activity:
the injection library brought into the running process for the stretch and
turned off at its end, so the untraced stretch after it shows whether the
process is back to its untraced step time; -gpunoapi leaves the launch
calls' API records out, -gpukernels keeps kernels alone, to tell what each
kind of record costs) or -agg (tracer.mode
= aggregate: the same probes counted in the kernel, with no ring, no
reader and no sink; what is left of a mode's cost above its floor is then
the programs' own).

inproc and inproc-full (--engine inproc, the default profile or full): the
in-process engine cannot attach to a running process, so each runs the
command again, as its own process, under `cudatracer --engine inproc -C
tracer.start_paused=true ... -- COMMAND` (after the process of the other
modes has ended: never two at once on the GPU), and pauses and resumes
recording by signal (SIGUSR1, SIGUSR2; the stretch starts once the tracer's
-v note says it has), a paused and a recording stretch each round, as the
other modes' rounds begin with their untraced stretch. Its figure is read against its own paused stretches
(the rows MODE-paused), not against the other process's untraced ones.
Paused is not quite untraced: the interposer stays in, and each call of a
traced API still goes through its stub and trampoline (the argument
registers saved and restored around a call into the entry hook) to the
load of the ring's `on` word and its branch, then on to the runtime. That
pass-through was checked on the 2-core machine with bench/ct-inproc-micro
(a stand-in runtime whose calls return at once), run alone and under
`cudatracer --engine inproc --profile full -C tracer.start_paused=true`:
3.5-4.7 ns a call untraced, 7.8-12.9 paused, 92-121 recording (3 rotating
rounds on a shared machine), so a paused stretch is above the untraced
process by about 5-8 ns per traced call (a step's few hundred calls: a few
microseconds against the step's 1.7 ms, 0.2% at most), and the inproc
figure understates its cost by as much. A recording stretch's events are
the counts of the -v notes at its resume and at the pause that ends it.
Without a GPU, bench/windows_standin.py prints the same windows (its calls
into the real libcudart fail, traced all the same): for the logic only.

    sudo python3 bench/attach_windows.py [--build build] [--rounds 6] [--seconds 3]
        [--modes default,default-floor,...,inproc] -- python3 tests/gpu/torch_mlp_train.py windows 50 600
"""
import argparse
import atexit
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time


def reader(stream, sink):
    for line in stream:
        sink.append(line)


PRIVATE = []


def private_dir():
    """A folder of this run's own (mode 0700), never a fixed name in /tmp."""
    if not PRIVATE:
        PRIVATE.append(tempfile.mkdtemp(prefix="attach_windows."))
        atexit.register(shutil.rmtree, PRIVATE[0], True)
    return PRIVATE[0]


def tracer_args(mode, plugins, trace="/dev/null"):
    args = ["-v", "--plugin", plugins, "-o", "jsonl:" + trace]
    env = dict(os.environ)
    base = mode[:-len("-floor")] if mode.endswith("-floor") else mode
    gpu = {"-gpu": "0", "-gpunoapi": "1", "-gpukernels": "3"}
    for tail, flags in gpu.items():
        if base.endswith(tail):
            # GPU activity brought into the running process for the stretch, and out again;
            # -gpunoapi without the launch calls' API records, -gpukernels kernels alone.
            args += ["--gpu-activity"]
            env["CUDATRACER_BENCH_GPU_RECORDS"] = flags
            base = base[:-len(tail)]
    if mode.endswith("-floor"):
        env["CUDATRACER_BENCH_PROGRAMS"] = "empty"
    if base.endswith("-agg"):
        # The same probes counted in the kernel: no ring, no reader, no sink.
        args = ["-v", "--plugin", plugins, "-C", "tracer.mode=aggregate",
                "-C", "tracer.aggregate_path=" + os.path.join(private_dir(), "agg.txt")]
        base = base[:-len("-agg")]
    if base.startswith("inproc"):
        if mode.endswith("-floor"):
            sys.exit("attach_windows: %s: the in-process engine has no BPF floor" % mode)
        args += ["--engine", "inproc", "-C", "tracer.start_paused=true"]
        base = base[len("inproc"):].lstrip("-") or "default"
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


def start_windows(cmd, out):
    """The command, its window lines read into out; it once it has run three (warm-up) windows."""
    prog = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    threading.Thread(target=reader, args=(prog.stdout, out), daemon=True).start()
    warm(prog, out)
    return prog


def warm(proc, out):
    while len(out) < 3:  # warm-up windows
        if proc.poll() is not None:
            sys.exit("attach_windows: the command ended before it ran three windows")
        time.sleep(0.05)


def attach_rounds(a, modes, cmd, out):
    """The -p modes on one process of the command, untraced stretches between."""
    stretches = []
    prog = start_windows(cmd, out)
    try:
        for r in range(a.rounds):
            order = modes[r % len(modes):] + modes[:r % len(modes)]
            for m in ["untraced"] + order:
                if m == "untraced":
                    t0 = time.monotonic()
                    time.sleep(a.seconds)
                    stretches.append({"round": r, "mode": m, "t0": t0, "t1": time.monotonic()})
                    continue
                trace = os.path.join(a.traces, "r%d-%s.jsonl" % (r + 1, m)) if a.traces else "/dev/null"
                args, env = tracer_args(m, a.plugins, trace)
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
                for l in lines:
                    if "GPU activity" in l or "warning" in l or "launches:" in l:
                        print("  " + l.rstrip()[:300], file=sys.stderr)
                if a.traces:
                    # What the stretch's trace holds (bench/live_coverage.py), then the trace goes.
                    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "live_coverage.py"),
                                    trace], check=False)
                    if not a.keep_traces:
                        os.unlink(trace)
    finally:
        prog.send_signal(signal.SIGTERM)
        prog.wait(timeout=60)
    return stretches


NOTE = {True: re.compile(r"paused \(SIGUSR1\).* (\d+) events so far"),
        False: re.compile(r"resumed \(SIGUSR2\).* (\d+) events so far")}


def note_count(lines, paused):
    return sum(1 for l in lines if NOTE[paused].search(l))


def inproc_rounds(a, mode, cmd, out):
    """One inproc mode: the command under the tracer, started paused; a
    paused and a recording stretch each round, switched by signal."""
    args, env = tracer_args(mode, a.plugins)
    lines, stretches, paused = [], [], True
    tr = subprocess.Popen([os.path.join(a.build, "cudatracer")] + args + ["--"] + cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env)
    threading.Thread(target=reader, args=(tr.stdout, out), daemon=True).start()
    threading.Thread(target=reader, args=(tr.stderr, lines), daemon=True).start()
    child = None
    try:
        if not attached(tr, lines):
            tr.kill()
            sys.exit("attach_windows: %s did not start:\n%s" % (mode, "".join(lines[-20:])))
        child = int(re.search(r"\(PID (\d+)\)", next(l for l in lines if "Ctrl-C" in l)).group(1))
        warm(tr, out)
        for r in range(a.rounds):
            for m in [mode + "-paused", mode]:  # as the other modes' process: its untraced stretch first
                want = m.endswith("-paused")
                if want != paused:
                    seen = note_count(lines, want)
                    tr.send_signal(signal.SIGUSR1 if want else signal.SIGUSR2)
                    end = time.monotonic() + 30
                    while note_count(lines, want) == seen:
                        if time.monotonic() > end or tr.poll() is not None:
                            sys.exit("attach_windows: %s: no %s note:\n%s" % (mode, "pause" if want else "resume",
                                                                                "".join(lines[-20:])))
                        time.sleep(0.01)
                    paused = want
                t0 = time.monotonic()
                time.sleep(a.seconds)
                stretches.append({"round": r, "mode": m, "t0": t0, "t1": time.monotonic(), "rc": None,
                                  "notes": len(lines)})
                print("round %d %s" % (r + 1, m), file=sys.stderr)
    finally:
        if child:
            try:
                os.kill(child, signal.SIGTERM)  # the tracer ends with its command, drained and reported
            except ProcessLookupError:
                pass
        try:
            tr.wait(timeout=60)
        except subprocess.TimeoutExpired:
            tr.send_signal(signal.SIGINT)
            tr.wait(timeout=60)
    total = [l.strip() for l in lines if "events," in l]
    # A recording stretch's events: the count at the pause that ended it less the count at its resume.
    counts = [(i, int(m.group(1))) for i, l in enumerate(lines) for p in (True, False) for m in [NOTE[p].search(l)]
              if m]
    last = re.search(r"(\d+) events,", total[-1]) if total else None
    for s in stretches:
        s["tracer"] = total[-1] if total else ""
        s["rc"] = tr.returncode
        if s["mode"] == mode:
            before = [c for i, c in counts if i < s["notes"]]
            after = [c for i, c in counts if i >= s["notes"]]
            end = after[0] if after else int(last.group(1)) if last else None
            s["events"] = end - before[-1] if before and end is not None else None
        del s["notes"]
    print("%s: %s" % (mode, total[-1] if total else "rc %d" % tr.returncode), file=sys.stderr)
    return stretches


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get("CT_BUILD", "build"))
    ap.add_argument("--plugins", default="cudart,cuda")
    ap.add_argument("--modes", default="default,default-floor,full,full-floor,before,before-floor")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=3.0, help="each stretch, traced or not")
    ap.add_argument("--json", help="write every stretch here")
    ap.add_argument("--traces", help="each -p stretch's jsonl trace here (read by bench/live_coverage.py, then removed)")
    ap.add_argument("--keep-traces", action="store_true", help="keep them")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        sys.exit("attach_windows: no command")
    modes = a.modes.split(",")
    attach = [m for m in modes if not m.startswith("inproc")]
    inproc = [m for m in modes if m.startswith("inproc")]
    for m in modes:
        tracer_args(m, a.plugins)  # an unknown mode is refused before anything runs
    stretches, windows = [], {}
    # Each process's stretches against its own windows: "attach", then one per inproc mode.
    if attach:
        out = []
        for s in attach_rounds(a, attach, cmd, out):
            stretches.append(dict(s, proc="attach"))
        windows["attach"] = [json.loads(l) for l in out if l.startswith("{")]
    for m in inproc:
        out = []
        for s in inproc_rounds(a, m, cmd, out):
            stretches.append(dict(s, proc=m))
        windows[m] = [json.loads(l) for l in out if l.startswith("{")]
    for s in stretches:
        inside = [w["ms_per_step"] for w in windows[s["proc"]] if w["t0"] >= s["t0"] and w["t1"] <= s["t1"]]
        s["windows"] = len(inside)
        s["ms_per_step"] = statistics.mean(inside) if inside else None
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"command": cmd, "stretches": stretches}, f, indent=1)
    # The untraced stretches of each process, by round: the attach process's, each inproc mode's paused ones.
    base = {(s["proc"], s["round"]): s["ms_per_step"] for s in stretches
            if s["mode"] == "untraced" or s["mode"].endswith("-paused")}
    print("\nms per step, %d rounds of %.1f s stretches (windows inside each); inproc modes on a process of "
          "their own, against its paused stretches\n" % (a.rounds, a.seconds))
    print("| mode | ms per step (median) | over the round's untraced (median) | per round | windows |")
    print("|---|---|---|---|---|")
    rows_of = (["untraced"] if attach else []) + attach + [x for m in inproc for x in (m + "-paused", m)]
    for m in rows_of:
        rows = [s for s in stretches if s["mode"] == m and s["ms_per_step"] is not None]
        if not rows:
            print("| %s | no windows | | | |" % m)
            continue
        own = m == "untraced" or m.endswith("-paused")
        over = [] if own else [s["ms_per_step"] / base[(s["proc"], s["round"])] - 1 for s in rows
                                if base.get((s["proc"], s["round"]))]
        print("| %s | %.3f | %s | %s | %d |" % (
            m, statistics.median(s["ms_per_step"] for s in rows),
            "–" if own else "%+.1f%%" % (100 * statistics.median(over)) if over else "nan",
            " ".join("%+.1f%%" % (100 * o) for o in over), sum(s["windows"] for s in rows)))
    for m in inproc:
        ev = [s["events"] for s in stretches if s["mode"] == m and s.get("events") is not None]
        tail = [s["tracer"] for s in stretches if s["mode"] == m][-1:]
        if ev:
            print("%s: events per recording stretch %s; %s" % (m, " ".join(str(e) for e in ev), tail[0] if tail else ""))
    for m in attach:
        floor = (m[:-len("-agg")] if m.endswith("-agg") else m) + "-floor"
        if floor in attach and m != floor:
            ratio = []
            for (p, r) in base:
                if p != "attach":
                    continue
                mm = [s["ms_per_step"] for s in stretches if s["round"] == r and s["mode"] == m]
                ff = [s["ms_per_step"] for s in stretches if s["round"] == r and s["mode"] == floor]
                if mm and ff and mm[0] and ff[0] and ff[0] > base[(p, r)]:
                    ratio.append((mm[0] - base[(p, r)]) / (ff[0] - base[(p, r)]))
            if ratio:
                print("%s: added time / its floor's, per round: %s, median %.2f"
                      % (m, " ".join("%.2f" % x for x in ratio), statistics.median(ratio)))


if __name__ == "__main__":
    if os.geteuid() != 0:
        sys.exit("attach_windows: needs root")
    main()
