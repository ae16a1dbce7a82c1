#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A task held for probing is held under ptrace, every thread of it, and
sees exactly the signals it was sent; one another tracer has is held as
before.

The watcher stops a task with SIGSTOP at its dlopen of a runtime; the
tracer seizes it (core/capture/hold.c) as soon as it reads the event and
detaches once the probes are in place. CUDATRACER_TEST_HOLD_MS=300 keeps it
held 300 ms, while this test looks at it and signals it:

- signals: SIGUSR1 and SIGCONT sent while it is held under ptrace (state
  t): the program's handler counts one SIGUSR1, no more, no less; the call
  after the dlopen is traced; the tracer says it kept the task stopped.
- threads: two threads spin while a third loads the runtime; while held,
  every thread is under ptrace (t), and 20 SIGCONTs do not let the spinners
  run: each one's longest gap covers the hold.
- killed: the tracer killed with SIGKILL while it holds the task under
  ptrace: the kernel detaches it, the guard continues it, and it finishes.
- traced: the command runs under strace, which traces it first: the tracer
  does not take it (ptrace refuses a second tracer), says the SIGSTOP alone
  holds it, and traces every call as before; strace sees the dlopen.
"""
import os
import shutil
import signal
import subprocess
import tempfile
import time

import cttest as t

CUDART = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64", "libcudart.so")
KEPT = "from another process to a task held under ptrace before its probes were in place: kept stopped until they were"


def states(pid):
    """Each thread's state letter, by tid; {} once the process is gone."""
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                st = f.read()
        except OSError:
            continue
        out[int(tid)] = st[st.rindex(")") + 2]
    return out


def start(args, command):
    tmp = tempfile.mkdtemp(prefix="cttest.")
    out = os.path.join(tmp, "ev.jsonl")
    env = dict(os.environ, CUDATRACER_TEST_HOLD_MS="300")
    tr = subprocess.Popen([t.TRACER, "--no-config", "-v", "--plugin", "cudart", "-o", "jsonl:" + out] + args +
                          ["--"] + command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env)
    return tr, out, tmp


def held_under_ptrace(pid, threads):
    """Wait (10 s at most) until the process has `threads` threads, all in state t."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        st = states(pid)
        if len(st) == threads and all(s == "t" for s in st.values()):
            return st
        time.sleep(0.001)
    return None


def run_held(mode, threads, meddle):
    tr, out, tmp = start([], [t.program("held_task"), mode, CUDART])
    try:
        line = tr.stdout.readline().split()
        t.check(len(line) == 2 and line[0] == "ready", "%s: no ready line: %r" % (mode, line))
        pid = int(line[1])
        tr.stdin.write("\n")
        tr.stdin.flush()
        st = held_under_ptrace(pid, threads)
        t.check(st is not None, "%s: the task was never held under ptrace with its %d threads: %s"
                % (mode, threads, states(pid)))
        meddle(pid)
        rest, err = tr.communicate(timeout=60)
    finally:
        if tr.poll() is None:
            tr.kill()
            tr.wait()
    t.check(tr.returncode == 0, "%s: exit %d\n%s" % (mode, tr.returncode, err[-3000:]))
    apis = [e["api"] for e in t.read_jsonl(out) if "api" in e]
    t.check(apis == ["cudaGetDeviceCount"], "%s: calls traced: %s\n%s" % (mode, apis, err[-3000:]))
    t.check(KEPT in err, "%s: the tracer did not say it kept the task stopped\n%s" % (mode, err[-3000:]))
    shutil.rmtree(tmp, True)
    return rest


def signals():
    def meddle(pid):
        os.kill(pid, signal.SIGUSR1)
        os.kill(pid, signal.SIGCONT)
        time.sleep(0.05)
        st = states(pid)
        t.check(st and all(s == "t" for s in st.values()), "signals: the task ran after a SIGCONT: %s" % st)

    rest = run_held("signals", 1, meddle)
    t.check("usr1 1\n" in rest, "signals: SIGUSR1 sent once while held, received: %r" % rest)
    print("ok: signals: one SIGUSR1 received once, the call traced")


def threads():
    def meddle(pid):
        for _ in range(20):
            os.kill(pid, signal.SIGCONT)
            time.sleep(0.005)
        st = states(pid)
        t.check(len(st) == 4 and all(s == "t" for s in st.values()),
                "threads: a thread ran after the SIGCONTs: %s" % st)

    rest = run_held("threads", 4, meddle)
    gap = [int(w[1]) for w in (line.split() for line in rest.splitlines()) if w and w[0] == "gap_ms"]
    t.check(gap and gap[0] >= 250, "threads: a spinner ran during the 300 ms hold (its longest gap %s ms)" % gap)
    print("ok: threads: 4 threads held under ptrace, spinners stopped %d ms" % gap[0])


def killed():
    tr, out, tmp = start([], [t.program("held_task"), "signals", CUDART])
    left = None
    try:
        line = tr.stdout.readline().split()
        t.check(len(line) == 2 and line[0] == "ready", "killed: no ready line: %r" % line)
        pid = int(line[1])
        tr.stdin.write("\n")
        tr.stdin.flush()
        t.check(held_under_ptrace(pid, 1) is not None, "killed: the task was never held under ptrace")
        tr.kill()
        tr.wait()
        # The task, no longer the tracer's child, is reaped by another: read
        # its last line from the pipe it shares with the tracer.
        deadline = time.monotonic() + 10
        rest = ""
        while time.monotonic() < deadline and "usr1" not in rest:
            rest += tr.stdout.readline()
        left = states(pid)
    finally:
        if tr.poll() is None:
            tr.kill()
            tr.wait()
    t.check("usr1 0" in rest, "killed: the task did not finish after the tracer died (threads %s): %r"
            % (left, rest))
    shutil.rmtree(tmp, True)
    print("ok: killed: the task held under ptrace finished after the tracer's SIGKILL")


def traced():
    strace = shutil.which("strace")
    if not strace:
        print("skip: traced: no strace")
        return
    tmp = tempfile.mkdtemp(prefix="cttest.")
    log = os.path.join(tmp, "strace.log")
    prog = [t.program("late_dlopen"), CUDART]
    alone = t.run(["--plugin", "cudart"], command=prog)
    t.check(alone.rc == 0 and alone.apis() == ["cudaGetDeviceCount", "cudaMalloc"], "traced: alone: %s" % alone.apis(),
            alone)
    # LeakSanitizer cannot run under ptrace (the sanitizer build's programs): leaks are checked elsewhere.
    tr = t.run(["-v", "--plugin", "cudart"], command=[strace, "-f", "-qq", "-e", "trace=openat", "-o", log] + prog,
               env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
    t.check(tr.rc == 0, "traced: exit %d" % tr.rc, tr)
    t.check(tr.apis() == alone.apis(), "traced: under strace %s, alone %s" % (tr.apis(), alone.apis()), tr)
    t.check("is held by its SIGSTOP alone, not under ptrace: another process traces it (ptrace)" in tr.stderr,
            "traced: the tracer did not say it left the task to its tracer", tr)
    with open(log) as f:
        seen = f.read()
    t.check(CUDART in seen, "traced: strace did not see the dlopen:\n" + seen[-2000:])
    shutil.rmtree(tmp, True)
    print("ok: traced: under strace, held by SIGSTOP alone, %d calls traced" % len(tr.apis()))


def main():
    t.need_root()
    signals()
    threads()
    killed()
    traced()


if __name__ == "__main__":
    main()
