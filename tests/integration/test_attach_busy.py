# SPDX-License-Identifier: MIT
"""Attaching to a process that is inside runtime calls all the time: two
threads calling a stand-in libcudart (every API of the cudart table defined,
as the real one does) in a tight loop from before the tracer starts, so that
calls are in flight whenever probes go live, and the probes of all those
symbols take as long to install as they do there. With -p, --lib and
system-wide, each attached twice to the same running process, 99% or more
of the calls made after the tracer attached are traced (issue 13: none
were, with millions of calls "nested too deep", once a few entries had gone
without their return)."""
import os
import shutil
import signal
import subprocess
import tempfile
import time
import cttest as t

SHARE = 0.99     # of the calls made in the window that must be traced
WINDOW = 0.4     # seconds between the two marks
IDLE = 8         # processes that map the library and wait: probes take longer to install
ROUNDS = 2       # tracers attached one after the other to the same process


def copy_busy(tmp):
    """A private copy of the stand-in and its user, so that what other tests
    run at the same time is not traced by --lib or system-wide mode; with a
    CUDA_HOME whose lib64 holds it, for system-wide mode to find."""
    shutil.copytree(os.path.join(t.PROGRAMS, "busy"), os.path.join(tmp, "busy"))
    os.makedirs(os.path.join(tmp, "cuda"))
    os.symlink(os.path.join(tmp, "busy", "lib"), os.path.join(tmp, "cuda", "lib64"))
    return os.path.join(tmp, "busy", "busy_calls"), os.path.join(tmp, "busy", "lib", "libcudart.so.99")


def mark(busy):
    busy.stdin.write("mark\n")
    busy.stdin.flush()
    line = busy.stdout.readline().split()
    t.check(len(line) == 3 and line[0] == "mark", "busy_calls answered %r" % line)
    return [int(n) for n in line[1:]]


def trace_window(mode, busy, lib, tmp, rnd):
    """One tracer attached while the loop runs: (calls made, calls traced) between two marks."""
    out = os.path.join(tmp, "ev%d.jsonl" % rnd)
    target = {"-p": ["-p", str(busy.pid)], "--lib": ["--lib", lib], "system-wide": []}[mode]
    env = dict(os.environ, CUDA_HOME=os.path.join(tmp, "cuda"))
    tr = subprocess.Popen([t.TRACER, "-v", "--plugin", "cudart", "--ringbuf-size", "64M", "-o", "jsonl:" + out]
                          + target, stderr=subprocess.PIPE, text=True, env=env)
    err = t.wait_tracing(tr)
    time.sleep(0.2)  # calls that were in flight at attach have returned
    first = mark(busy)
    time.sleep(WINDOW)
    end = mark(busy)
    time.sleep(0.2)
    tr.send_signal(signal.SIGINT)
    stderr = "".join(err) + tr.communicate(timeout=120)[1]
    t.check(tr.returncode == 0, "%s: tracer exited %d:\n%s" % (mode, tr.returncode, stderr[-3000:]))

    seen = [set(), set()]
    for e in t.read_jsonl(out):
        if e["pid"] != busy.pid or e["api"] != "cudaFree":
            continue
        p = int(e["args"]["devPtr"], 16)
        thread, n = (p >> 40) - 1, p & ((1 << 40) - 1)
        t.check(thread in (0, 1) and e["result"] == 0 and e["depth"] == 0,
                "%s: an event no thread made as such: %r" % (mode, e))
        seen[thread].add(n)
    made = sum(end[th] - first[th] for th in (0, 1))
    traced = sum(len([n for n in seen[th] if first[th] <= n < end[th]]) for th in (0, 1))
    totals = [l.strip() for l in stderr.splitlines() if "events" in l and "lost" in l][-1:]
    print("%s, round %d: %d of %d calls in %.1f s traced (%.2f%%); %s"
          % (mode, rnd, traced, made, WINDOW, 100.0 * traced / max(made, 1), totals))
    t.check(made > 1000, "%s: only %d calls made in the window" % (mode, made))
    t.check(traced >= SHARE * made, "%s, round %d: %d of the %d calls made after attach traced (%.2f%%), "
            "want %d%%:\n%s" % (mode, rnd, traced, made, 100.0 * traced / made, SHARE * 100, stderr[-3000:]))


def run_mode(mode):
    tmp = tempfile.mkdtemp(prefix="cttest.")
    prog, lib = copy_busy(tmp)
    busy = subprocess.Popen([prog, str(IDLE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ready = busy.stdout.readline().split()
        t.check(len(ready) == 3 and ready[0] == "ready", "busy_calls did not start: %r" % ready)
        print("%s: untraced, %.1f M calls/s" % (mode, int(ready[2]) / 1e6))
        for rnd in range(1, ROUNDS + 1):
            trace_window(mode, busy, lib, tmp, rnd)
        busy.communicate("stop\n", timeout=60)
        t.check(busy.returncode == 0, "%s: busy_calls exited %d" % (mode, busy.returncode))
    finally:
        if busy.poll() is None:
            busy.kill()
    shutil.rmtree(tmp, True)


def main():
    t.need_root()
    t.program(os.path.join("busy", "busy_calls"))
    for mode in ("-p", "--lib", "system-wide"):
        run_mode(mode)
    print("ok")


main()
