#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cudatracer's benchmark: per-call overhead against the kernel's floor,
loss at full call rate, CPU use and peak RSS, in one run.

Modes, run in rotating order for --rounds rounds, each on a fresh workload:
  untraced    the workload alone
  floor       empty BPF programs on the same probes (bench/floor.c): what
              uprobes cost by themselves
  jsonl       cudatracer, every call to a jsonl file (default 16 MiB ring)
  jsonl_2m    the same with a 2 MiB ring buffer (64 KiB wake-ups)
  aggregate   cudatracer, mode = aggregate (counts in BPF maps, no records)
  entry_only  cudatracer, jsonl, launches recorded at entry only
  stacks      cudatracer, jsonl, --stacks=all: every call carries its stack
              (method fp: the workload's one site per API sends its frames once)
  stacks_dwarf ... method dwarf: 16 KiB of stack copied per call
  floor_eo    the floor with launches entry-only, to compare entry_only with
  floor_clock programs that only read the clock at entry and return
  floor_record ... and send one 128-byte record per call to a ring buffer:
              what any tracer that times calls and records each must pay
  jsonl_multi, aggregate_multi
              jsonl and aggregate on entry and return programs (attach =
              multi), where the default is uprobe session programs
  floor_session, floor_clock_session, floor_record_session
              the three floors as uprobe session programs (one program at
              entry and return), for cudatracer's tracer.attach = session
  inproc      cudatracer --engine inproc, every call to a jsonl file: the
              workload is started under it (command mode, the preload
              library in it); its CPU time is sampled from /proc, since the
              tracer's own rusage would count the workload it waits for
  A+B         (--bpf-stats) A's and B's programs on the same probes at
              once: the kernel times both on every hit of one workload, so
              their ratio (aggregate+floor_clock_session) is free of the
              drift between rounds that separate runs differ by
The tracer attaches with -p to a workload held before its loop, so its CPU
time and peak RSS are its own. Prints a markdown table; --json writes all
figures. With --bpf-stats it times nothing and reports instead what the
kernel measured the BPF programs to take per run. Needs root.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time

B = os.environ.get("CT_BUILD", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build"))


PIN = None  # (workload CPU, tracer CPU): --pin


def pinned(cmd, which):
    """cmd run on its CPU of --pin (taskset execs it: the pid stays the command's)."""
    return ["taskset", "-c", PIN[which]] + cmd if PIN else cmd


def start_workload(workload, n):
    p = subprocess.Popen(pinned([workload, str(n), "all", "wait"], 0), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line.startswith("ready"):
        sys.exit("workload did not start: %r" % line)
    return p


def wait_line(proc, needle):
    lines = []
    while True:
        line = proc.stderr.readline()
        if not line:
            sys.exit("%s ended early:\n%s" % (proc.args[0], "".join(lines)))
        lines.append(line)
        if needle in line:
            return lines


TRACER_ARGS = []


def tracer_cmd(mode, pid, tmp, plugin, cudart):
    base = [os.path.join(B, "cudatracer"), "-v", "--plugin", "cudart", "--profile", "full", "-p", str(pid)] + TRACER_ARGS
    if mode.endswith("_multi"):  # the mode on entry and return programs (the default: session programs)
        base += ["-C", "tracer.attach=multi"]
        mode = mode[:-len("_multi")]
    out = os.path.join(tmp, "events.jsonl")
    if mode == "jsonl":
        return base + ["-o", "jsonl:" + out], "Ctrl-C"
    if mode == "jsonl_2m":  # a ring that stays in cache, woken more often
        return base + ["-o", "jsonl:" + out, "--ringbuf-size", "2M", "-C", "tracer.wakeup_bytes=64K"], "Ctrl-C"
    if mode == "aggregate":
        return base + ["-C", "tracer.mode=aggregate", "-C", "tracer.aggregate_path=" + os.path.join(tmp, "agg.txt")], "Ctrl-C"
    if mode == "entry_only":
        return base + ["-o", "jsonl:" + out, "-C", "tracer.entry_only=cudaLaunch*"], "Ctrl-C"
    if mode == "stacks":
        return base + ["-o", "jsonl:" + out, "--stacks=all"], "Ctrl-C"
    if mode == "stacks_dwarf":
        return base + ["-o", "jsonl:" + out, "--stacks=all", "-C", "stacks.method=dwarf"], "Ctrl-C"
    floor = [os.path.join(B, "bench", "ct-floor"), plugin, cudart]
    if mode.endswith("_session"):  # the same floor as uprobe session programs
        floor += ["--attach", "session"]
        mode = mode[:-len("_session")]
    if mode == "floor":
        return floor, "attached"
    if mode == "floor_eo":
        return floor + ["--entry-only", "cudaLaunch*"], "attached"
    if mode in ("floor_clock", "floor_record"):
        return floor + ["--programs", mode[6:]], "attached"
    return None, None


def bpf_prog_stats(pid):
    """{prog_id: (prog_type, run_time_ns, run_cnt)} of the BPF programs pid holds."""
    progs = {}
    try:
        fds = os.listdir("/proc/%d/fdinfo" % pid)
    except OSError:
        return progs
    for fd in fds:
        try:
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                info = dict(l.split(":", 1) for l in f.read().splitlines() if ":" in l)
        except OSError:
            continue
        if "prog_id" in info and "run_cnt" in info:
            progs[int(info["prog_id"])] = (int(info["prog_type"].split()[0]), int(info["run_time_ns"]),
                                           int(info["run_cnt"]))
    return progs


def sample_stats(pid, stop, out):
    """Keep the latest non-empty snapshot until stop is set (the tracer may end with the workload)."""
    while not stop.is_set():
        snap = bpf_prog_stats(pid)
        if snap:
            out.clear()
            out.update(snap)
        stop.wait(0.05)


def bpf_figures(progs):
    """ns per run of the probe programs (kprobe type: uprobes), and the other
    programs' (the watcher's) time per probe run."""
    probe = [v for v in progs.values() if v[0] == 2]
    other = [v for v in progs.values() if v[0] != 2]
    runs = sum(v[2] for v in probe)
    return {"probe_runs": runs,
            "ns_per_probe_run": sum(v[1] for v in probe) / runs if runs else None,
            "other_ns_per_probe_run": sum(v[1] for v in other) / runs if runs else None}


def proc_cpu(pid, out, stop):
    """The latest utime + stime (s) and peak RSS (KiB) of pid, until stop is set."""
    tick = os.sysconf("SC_CLK_TCK")
    while not stop.is_set():
        try:
            with open("/proc/%d/stat" % pid) as f:
                st = f.read().rsplit(")", 1)[1].split()
            with open("/proc/%d/status" % pid) as f:
                hwm = [int(l.split()[1]) for l in f if l.startswith("VmHWM:")]
        except (OSError, IndexError, ValueError):
            break
        out["cpu_s"] = (int(st[11]) + int(st[12])) / tick
        if hwm:
            out["rss_kb"] = hwm[0]
        stop.wait(0.05)


def run_inproc(workload, n):
    """The workload as cudatracer's command, through the in-process engine."""
    tmp = tempfile.mkdtemp(prefix="ctbench.")
    cmd = [os.path.join(B, "cudatracer"), "-v", "--no-config", "--engine", "inproc", "--plugin", "cudart",
           "--profile", "full", "-o", "jsonl:" + os.path.join(tmp, "events.jsonl"),
           "--", workload, str(n), "all", "wait"]
    tr = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_line(tr, "Ctrl-C")
    line = tr.stdout.readline()
    if not line.startswith("ready"):
        sys.exit("workload did not start under the tracer: %r" % line)
    usage, stop = {}, threading.Event()
    sampler = threading.Thread(target=proc_cpu, args=(tr.pid, usage, stop))
    sampler.start()
    tr.stdin.write("go\n")
    tr.stdin.flush()
    result = json.loads(tr.stdout.readline())
    stderr = tr.stderr.read()
    tr.wait()
    stop.set()
    sampler.join()
    import re
    m = re.search(r"(\d+) events, (\d+) records lost", stderr)
    subprocess.run(["rm", "-rf", tmp])
    return {"ns_per_call": result, "tracer_cpu_s": usage.get("cpu_s", 0.0),
            "tracer_peak_rss_kb": usage.get("rss_kb", 0),
            "events": int(m.group(1)) if m else None, "lost": int(m.group(2)) if m else None}


def run_together(mode, workload, n, plugin, cudart, flip):
    """A mode "A+B" (--bpf-stats only): A's and B's programs on the same probes
    at once, so that both run on every probe hit of one workload and the
    kernel times each on the same calls, in the same minute: a ratio free of
    the drift between rounds that separate runs of A and B differ by. The
    one attached last runs first on each hit (the kernel's list of a
    probe's consumers); flip says which that is, and rounds alternate it."""
    parts = mode.split("+")
    tmp = tempfile.mkdtemp(prefix="ctbench.")
    wl = start_workload(workload, n)
    tracers = {}
    for part in (reversed(parts) if flip else parts):
        cmd, needle = tracer_cmd(part, wl.pid, os.path.join(tmp, part), plugin, cudart)
        if not cmd:
            sys.exit("run_bench: %s cannot be paired: it has no programs" % part)
        os.makedirs(os.path.join(tmp, part))
        tracers[part] = subprocess.Popen(pinned(cmd, 1), stderr=subprocess.PIPE, text=True)
        wait_line(tracers[part], needle)
    snaps, stop = {p: {} for p in parts}, threading.Event()
    samplers = [threading.Thread(target=sample_stats, args=(tracers[p].pid, stop, snaps[p])) for p in parts]
    for t in samplers:
        t.start()
    wl.stdin.write("go\n")
    wl.stdin.flush()
    json.loads(wl.stdout.readline())
    stop.set()
    for t in samplers:
        t.join()
    wl.wait()
    for p in parts:
        if p.startswith("floor"):
            tracers[p].send_signal(2)
        tracers[p].stderr.read()
        tracers[p].wait()
    subprocess.run(["rm", "-rf", tmp])
    figs = {p: bpf_figures(snaps[p]) for p in parts}
    a, b = (figs[p]["ns_per_probe_run"] for p in parts)
    return {"probe_runs": figs[parts[0]]["probe_runs"], "ns_per_probe_run": a,
            "other_ns_per_probe_run": figs[parts[0]]["other_ns_per_probe_run"],
            "paired": {p: figs[p] for p in parts}, "first": parts[-1] if flip else parts[0],
            "ratio": a / b if a and b else None}


def run_mode(mode, workload, n, plugin, cudart, bpf_stats=False, flip=False):
    if "+" in mode:
        return {"bpf": run_together(mode, workload, n, plugin, cudart, flip)}
    if mode == "inproc":
        return run_inproc(workload, n)
    tmp = tempfile.mkdtemp(prefix="ctbench.")
    wl = start_workload(workload, n)
    cmd, needle = tracer_cmd(mode, wl.pid, tmp, plugin, cudart)
    tr = None
    if cmd:
        tr = subprocess.Popen(pinned(cmd, 1), stderr=subprocess.PIPE, text=True)
        wait_line(tr, needle)
    snap, stop = {}, threading.Event()
    sampler = None
    if tr and bpf_stats:
        sampler = threading.Thread(target=sample_stats, args=(tr.pid, stop, snap))
        sampler.start()
    wl.stdin.write("go\n")
    wl.stdin.flush()
    result = json.loads(wl.stdout.readline())
    if sampler:
        stop.set()
        sampler.join()
    wl.wait()
    res = {"ns_per_call": result}
    if sampler:
        res["bpf"] = bpf_figures(snap)
    if tr:
        if mode.startswith("floor"):
            tr.send_signal(2)
        stderr = tr.stderr.read()
        _, status, ru = os.wait4(tr.pid, 0)
        tr.returncode = os.waitstatus_to_exitcode(status)
        res["tracer_cpu_s"] = ru.ru_utime + ru.ru_stime
        res["tracer_peak_rss_kb"] = ru.ru_maxrss
        if not mode.startswith("floor"):
            import re
            m = re.search(r"(\d+) events, (\d+) records lost", stderr)
            res["events"], res["lost"] = (int(m.group(1)), int(m.group(2))) if m else (None, None)
    subprocess.run(["rm", "-rf", tmp])
    return res


def find_cudart(a):
    if a.cudart:
        return a.cudart
    out = subprocess.run(["ldd", a.workload], capture_output=True, text=True).stdout
    return [l.split("=>")[1].split()[0] for l in out.splitlines() if "libcudart" in l][0]


def bpf_stats_pass(a):
    """BPF run time per probe hit, per mode: what the programs cost, measured by
    the kernel, free of the timing noise of a shared machine (the stats add
    their own clock reads to every run, so the timing pass runs without them)."""
    plugin = os.path.join(B, "plugins", "libct-cudart.so")
    cudart = find_cudart(a)
    modes = [m for m in a.modes.split(",") if m != "untraced"]
    runs = {m: [] for m in modes}
    with open("/proc/sys/kernel/bpf_stats_enabled") as f:
        was = f.read().strip()
    with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
        f.write("1")
    try:
        for r in range(a.rounds):
            for m in modes:
                runs[m].append(run_mode(m, a.workload, a.n, plugin, cudart, bpf_stats=True, flip=r % 2 == 1)["bpf"])
                print("round %d %-10s %s" % (r + 1, m, runs[m][-1]), file=sys.stderr)
    finally:
        with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
            f.write(was)
    print("\nBPF run time per probe hit (entry or return), median of %d rounds of %d calls per API\n" % (a.rounds, a.n))
    print("| mode | probe runs | ns per probe run | other programs (watcher), ns per probe run |")
    print("|---|---|---|---|")
    for m in modes:
        def med(k):
            v = [x[k] for x in runs[m] if x.get(k) is not None]
            return statistics.median(v) if v else float("nan")
        print("| %s | %d | %.0f | %.0f |" % (m, med("probe_runs"), med("ns_per_probe_run"), med("other_ns_per_probe_run")))
    paired = [m for m in modes if "+" in m]
    if paired:
        print("\nPaired modes: both programs on the same probe hits, the ratio of the first's time to the"
              " second's in each round (rounds alternate which runs first), and its median\n")
        print("| mode | ns per probe run, each | ratio per round | median ratio |")
        print("|---|---|---|---|")
        for m in paired:
            parts = m.split("+")
            ok = [x for x in runs[m] if x.get("ratio")]  # rounds in which both programs ran
            each = " / ".join("%.0f" % statistics.median(x["paired"][p]["ns_per_probe_run"] for x in ok)
                              if ok else "-" for p in parts)
            ratios = [x["ratio"] for x in ok]
            print("| %s | %s | %s | %.2f |" % (m, each, " ".join("%.2f" % r for r in ratios),
                                             statistics.median(ratios) if ratios else float("nan")))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"n": a.n, "rounds": a.rounds, "bpf": runs}, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=100000, help="calls per API per run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--modes", default="untraced,floor,jsonl,aggregate,entry_only,floor_eo")
    ap.add_argument("--workload", default=os.path.join(B, "bench", "workload"))
    ap.add_argument("--cudart", default=None, help="libcudart the workload maps (default: from ldd)")
    ap.add_argument("--json", help="write every figure here")
    ap.add_argument("--bpf-stats", action="store_true",
                    help="instead of timing, report the BPF programs' own run time (kernel.bpf_stats_enabled)")
    ap.add_argument("--tracer-arg", action="append", default=[],
                    help="one more argument for cudatracer (repeat it): -C tracer.attach=multi for the pair programs")
    ap.add_argument("--pin", metavar="W,T",
                    help="run the workload on CPU W and the tracer on CPU T (taskset): a thread that stays on "
                         "one CPU keeps its caches and per-CPU maps warm, which steadies the figures")
    a = ap.parse_args()
    TRACER_ARGS.extend(a.tracer_arg)
    if a.pin:
        global PIN
        PIN = tuple(a.pin.split(","))
        if len(PIN) != 2:
            sys.exit("run_bench: --pin W,T: two CPUs")
    if os.geteuid() != 0:
        sys.exit("run_bench: needs root")
    if a.bpf_stats:
        return bpf_stats_pass(a)
    plugin = os.path.join(B, "plugins", "libct-cudart.so")
    cudart = find_cudart(a)
    modes = a.modes.split(",")
    runs = {m: [] for m in modes}
    for r in range(a.rounds):
        order = modes[r % len(modes):] + modes[:r % len(modes)]
        for m in order:
            runs[m].append(run_mode(m, a.workload, a.n, plugin, cudart))
            print("round %d %-10s %s" % (r + 1, m, runs[m][-1]["ns_per_call"]), file=sys.stderr)

    apis = list(runs[modes[0]][0]["ns_per_call"].keys())
    med = {m: {api: statistics.median(x["ns_per_call"][api] for x in runs[m]) for api in apis} for m in modes}
    print("\nns per call, median of %d rounds of %d calls per API\n" % (a.rounds, a.n))
    print("| API | " + " | ".join(modes) + " |")
    print("|---|" + "---|" * len(modes))
    for api in apis:
        print("| %s | %s |" % (api, " | ".join("%.0f" % med[m][api] for m in modes)))
    if "untraced" in modes and "floor" in modes:
        print("\nadded ns per call, and the ratio to the floor's added time (1.00 = as cheap as empty programs)\n")
        pairs = [(m, "floor_eo" if m == "entry_only" and "floor_eo" in modes else "floor") for m in modes
                 if m not in ("untraced", "floor", "floor_eo")]
        print("| API | floor added | " + " | ".join("%s added | ratio" % m for m, _ in pairs) + " |")
        print("|---|---|" + "---|---|" * len(pairs))
        for api in apis:
            u = med["untraced"][api]
            cells = []
            for m, f in pairs:
                fa = med[f][api] - u
                ma = med[m][api] - u
                cells.append("%.0f | %.2f" % (ma, ma / fa if fa > 0 else float("nan")))
            print("| %s | %.0f | %s |" % (api, med["floor"][api] - u, " | ".join(cells)))
    print("\n| mode | events | lost | tracer CPU s (median) | tracer peak RSS KiB (max) |")
    print("|---|---|---|---|---|")
    for m in modes:
        if m == "untraced":
            continue
        ev = [x.get("events") for x in runs[m]]
        lost = [x.get("lost") for x in runs[m]]
        print("| %s | %s | %s | %.2f | %d |" % (m, ev if ev[0] is not None else "-", lost if lost[0] is not None else "-",
                                                  statistics.median(x["tracer_cpu_s"] for x in runs[m]),
                                                  max(x["tracer_peak_rss_kb"] for x in runs[m])))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"n": a.n, "rounds": a.rounds, "runs": runs, "median": med}, f, indent=1)


if __name__ == "__main__":
    main()
