#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Pause and resume by signal (SIGUSR1, SIGUSR2; docs/engines.md), on the
real libcudart (no GPU: every call fails with error 35, traced all the same).

A program makes its calls in three phases, each only when the test writes a
line on its stdin (cudart_phases: call i of phase p has count p * 1000 + i).
The tracer is sent SIGUSR1 before phase 2 and SIGUSR2 before phase 3; the
test waits for its -v note ("paused", "resumed") before the next phase. The
trace holds exactly the calls of phases 1 and 3, in order, none of phase 2,
no record lost, no return without its call, and the closing report says how
long recording was paused. With both engines in command mode, with -p and
system-wide (the daemon), with attach = multi (an entry and a return
program: the returns of the calls not taken must not count as unpaired),
and in aggregate mode (the kernel's counts: phases 1 and 3 only). A
daemon's reload while paused starts the new session paused.

tracer.start_paused: attached but recording nothing until SIGUSR2 (phase 1
not recorded, phase 2 recorded), paused again by SIGUSR1 (phase 3 not
recorded), and stopped while paused: every sink closed, the report made,
"still paused at the end".

A call in flight at the pause is still recorded at its return, and one that
begins during the pause is not: a stand-in runtime's call that sleeps 1.5 s
(sleep/sleep_calls), paused in the middle of the first of two.
"""
import os
import re
import signal
import subprocess
import time

import cttest as t
from lines_common import Lines, ended_at_exit, tmpdir

PHASES = t.program("cudart_phases_shared")
SLEEPS = os.path.join(t.PROGRAMS, "sleep", "sleep_calls")
COUNTS = (3, 40, 5)
PAUSED_S = 0.3  # each pause lasts at least this long


class Run:
    """The tracer and the phases program, one side or both started here."""

    def __init__(self, args, mode="command", counts=COUNTS):
        self.tmp = tmpdir()
        self.out = os.path.join(self.tmp, "ev.jsonl")
        self.summary = os.path.join(self.tmp, "summary.txt")
        self.prog = None
        sink = ["-o", "summary:" + self.summary] if "tracer.mode=aggregate" in args else ["-o", "jsonl:" + self.out]
        cmd = [t.TRACER, "--no-config", "-v"] + sink + list(args)
        prog = [PHASES] + [str(n) for n in counts]
        if mode == "command":
            self.tr = subprocess.Popen(cmd + ["--"] + prog, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE)
            self.stdin, self.stdout = self.tr.stdin, Lines(self.tr.stdout)
        else:
            self.prog = subprocess.Popen(prog, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            self.stdin, self.stdout = self.prog.stdin, Lines(self.prog.stdout)
            pid = int(self.stdout.until(r"^ready \d+").split()[1])
            if mode == "pid":
                cmd += ["-p", str(pid)]
            else:  # system-wide, as a daemon: only this program's calls, and no
                # other process held at its exec (the suite's other tests run beside
                # it, the soak's system-wide daemon among them), as the soak does
                cmd += ["--daemon", "-C", "filter.comm=" + os.path.basename(PHASES)[:15],
                        "-C", "tracer.scan_execs=false"]
            self.tr = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ended_at_exit(self.tr, self.prog)  # registered after tmpdir's removal: run before it
        self.err = Lines(self.tr.stderr)
        self.err.until(r"Tracing .*(Ctrl-C to end|SIGTERM stops)\.")
        if mode == "command":
            self.stdout.until(r"^ready \d+")
        self.pid = None

    def phase(self, p):
        self.stdin.write(b"go\n")
        self.stdin.flush()
        self.stdout.until(r"^phase %d done" % p)

    def signal(self, sig, note):
        self.tr.send_signal(sig)
        self.err.until(note)

    def finish(self, stop=None):
        if stop:
            self.tr.send_signal(stop)
        if self.prog:
            self.stdin.close()
            self.prog.wait(timeout=60)
        else:
            self.stdin.close()
        self.tr.wait(timeout=60)
        self.stderr = self.err.rest()
        self.tr.stdout.close()
        if os.path.exists(self.out):
            self.events = t.read_jsonl(self.out)
        return self

    def memsets(self, pid=None):
        return [e["args"]["count"] for e in self.events
                if e.get("api") == "cudaMemset" and (pid is None or e["pid"] == pid)]

    def check(self, cond, msg):
        t.check(cond, msg + "\n--- tracer stderr ---\n" + self.stderr[-4000:])


def want(*phases):
    return [p * 1000 + i for p in phases for i in range(COUNTS[p - 1])]


def totals(r):
    m = re.search(r"(\d+) events, (\d+) records lost", r.stderr)
    r.check(m, "no closing totals")
    return int(m.group(1)), int(m.group(2))


def paused_report(r, still=False):
    m = re.search(r"recording was paused for ([0-9.]+) s of the ([0-9.]+) s traced \((\d+) pauses?(; still "
                  r"paused at the end)?\)", r.stderr)
    r.check(m, "no report of the pause")
    r.check(PAUSED_S <= float(m.group(1)) <= float(m.group(2)), "paused %s s of %s s, want %.1f s at least" %
            (m.group(1), m.group(2), PAUSED_S))
    r.check(bool(m.group(4)) == still, "still paused at the end: %r" % m.group(4))
    return int(m.group(3))


def three_phases(args, mode="command", stop=None):
    r = Run(args, mode)
    r.phase(1)
    r.signal(signal.SIGUSR1, r"paused \(SIGUSR1\)")
    r.phase(2)
    time.sleep(PAUSED_S)
    r.signal(signal.SIGUSR2, r"resumed \(SIGUSR2\) after [0-9.]+ s paused")
    r.phase(3)
    return r.finish(stop)


def test_events(name, args, mode="command"):
    stop = None if mode == "command" else signal.SIGINT if mode == "pid" else signal.SIGTERM
    r = three_phases(args, mode, stop)
    pid = r.prog.pid if r.prog else None
    got = r.memsets(pid)
    r.check(r.tr.returncode == 0, "%s: tracer exit %d" % (name, r.tr.returncode))
    r.check(got == want(1, 3), "%s: calls recorded %r, want phases 1 and 3: %r" % (name, got, want(1, 3)))
    if mode != "daemon":  # system-wide the run has every process's calls
        r.check(len(r.events) == len(got), "%s: other events: %r" % (name, [e for e in r.events
                                                                           if e.get("api") != "cudaMemset"]))
        events, lost = totals(r)
        r.check(events == len(got) and lost == 0, "%s: %d events, %d lost" % (name, events, lost))
    r.check("returns without their call" not in r.stderr, "%s: unpaired returns" % name)
    r.check(paused_report(r) == 1, "%s: one pause" % name)


def test_daemon_reload():
    """A daemon's reload keeps the pause: the new session starts paused."""
    r = Run([], "daemon")
    r.phase(1)
    r.signal(signal.SIGUSR1, r"paused \(SIGUSR1\)")
    r.signal(signal.SIGHUP, r"Tracing .*SIGTERM stops\. Paused: nothing is recorded until SIGUSR2\.")
    r.phase(2)
    r.signal(signal.SIGUSR2, r"resumed \(SIGUSR2\)")
    r.phase(3)
    r.finish(signal.SIGTERM)
    # The session after the reload continues the file: phase 1, then 3.
    others = [f for f in os.listdir(r.tmp) if f.startswith("ev.jsonl.")]
    r.check(r.tr.returncode == 0 and not others, "daemon reload: exit %d, files %r" %
            (r.tr.returncode, os.listdir(r.tmp)))
    got = r.memsets(r.prog.pid)
    r.check(got == want(1, 3), "daemon reload: %r; want %r" % (got, want(1, 3)))


def test_aggregate():
    r = three_phases(["-C", "tracer.mode=aggregate"])
    r.check(r.tr.returncode == 0, "aggregate: tracer exit %d" % r.tr.returncode)
    rows = t.summary_rows(r.summary)
    calls = rows.get("cudaMemset", (0,))[0]
    r.check(calls == COUNTS[0] + COUNTS[2], "aggregate: %d cudaMemset counted, want %d (phases 1 and 3): %r"
            % (calls, COUNTS[0] + COUNTS[2], rows))
    r.check("returns without their call" not in r.stderr, "aggregate: unpaired returns")
    paused_report(r)


def test_start_paused(engine):
    r = Run(["--engine", engine, "-C", "tracer.start_paused=true"])
    early = "\n".join(r.err.seen)  # up to the Tracing line
    t.check(re.search(r"recording starts paused \(tracer.start_paused\).*\n(.*\n)*.*Tracing .*Ctrl-C to end\. "
                      r"Paused: nothing is recorded until SIGUSR2\.", early), "start_paused %s: not said:\n%s"
            % (engine, early))
    r.phase(1)
    time.sleep(PAUSED_S)
    r.signal(signal.SIGUSR2, r"resumed \(SIGUSR2\)")
    r.phase(2)
    time.sleep(PAUSED_S)  # recording, so that the report's paused time is less than the whole
    r.signal(signal.SIGUSR1, r"paused \(SIGUSR1\)")
    r.phase(3)
    r.finish()
    got = r.memsets()
    r.check(r.tr.returncode == 0, "start_paused %s: tracer exit %d" % (engine, r.tr.returncode))
    r.check(got == want(2), "start_paused %s: recorded %r, want phase 2 only: %r" % (engine, got, want(2)))
    events, lost = totals(r)
    r.check(events == len(got) == len(r.events) and lost == 0, "start_paused %s: %d events, %d lost" %
            (engine, events, lost))
    r.check(paused_report(r, still=True) == 2, "start_paused %s: two pauses" % engine)


def test_in_flight(engine):
    """A call in flight at the pause is recorded at its return; the next, begun while paused, is not."""
    if not os.path.exists(SLEEPS):
        t.skip("sleep_calls was not built")
    tmp = tmpdir()
    out = os.path.join(tmp, "ev.jsonl")
    tr = subprocess.Popen([t.TRACER, "--no-config", "-v", "--engine", engine, "-o", "jsonl:" + out, "--",
                           SLEEPS, "2", "1500000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ended_at_exit(tr)
    err = Lines(tr.stderr)
    err.until(r"Tracing .*Ctrl-C to end\.")
    time.sleep(0.5)
    tr.send_signal(signal.SIGUSR1)
    err.until(r"paused \(SIGUSR1\)")
    tr.wait(timeout=60)
    stderr = err.rest()
    lines = tr.stdout.read().decode().split("\n")
    head, ev = t.read_jsonl(out, meta=True)
    ev = [e for e in ev if e.get("api") == "cudaStreamSynchronize"]
    t.check(tr.returncode == 0 and len([x for x in lines if x]) == 2, "in flight %s: exit %d, %r" %
            (engine, tr.returncode, lines), None)
    before, after = (int(x) for x in lines[0].split())
    start = ev[0]["ts_ns"] - head["wall_offset_ns"] if ev else 0
    t.check(len(ev) == 1 and before - 1000 <= start and start + ev[0]["dur_ns"] <= after + 1000,
            "in flight %s: want the first call alone (%d to %d), got %r\n%s" % (engine, before, after, ev,
                                                                                stderr[-3000:]))
    t.check(re.search(r"\b1 event, 0 records lost", stderr) and "without their call" not in stderr,
            "in flight %s: totals\n%s" % (engine, stderr[-3000:]))


def main():
    t.need_root()
    test_events("ebpf", [])
    test_events("inproc", ["--engine", "inproc"])
    test_events("ebpf attach=multi", ["-C", "tracer.attach=multi"])
    test_events("ebpf -p", [], mode="pid")
    test_events("ebpf daemon", [], mode="daemon")
    test_daemon_reload()
    test_aggregate()
    test_start_paused("ebpf")
    test_start_paused("inproc")
    test_in_flight("ebpf")
    test_in_flight("inproc")
    print("ok")


main()
