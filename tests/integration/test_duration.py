#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""--duration D (tracer.duration): tracing stops D after it began, every file
closed complete, the reason said; the target goes on untraced. On the real
libcudart (no GPU: every call fails with error 35, traced all the same).

A program makes its calls in phases, each only when the test writes a line
on its stdin (cudart_phases: call i of phase p has count p * 1000 + i).
Phase 1 runs inside the window, phase 2 after it. In command mode (both
engines) the tracer's closing report and a whole jsonl of phase 1 exactly
are there while the command still waits for phase 2; the command then makes
its phase-2 calls untraced, and the tracer, which waited for it, exits with
its status (2: its stdin closed before phase 3). With -p the tracer exits 0
at the end of the window and the process goes on; system-wide it exits 0.
"""
import os
import re
import subprocess
import time

import cttest as t
from lines_common import Lines, ended_at_exit, tmpdir

PHASES = t.program("cudart_phases_shared")
WINDOW_S = 2.0
PHASE1 = [1000, 1001, 1002]


def memsets(path, pid=None):
    return [e["args"]["count"] for e in t.read_jsonl(path)
            if e.get("api") == "cudaMemset" and (pid is None or e["pid"] == pid)]


def go(stdin, stdout, phase):
    stdin.write(b"go\n")
    stdin.flush()
    stdout.until(r"^phase %d done" % phase)


def window(err):
    """Wait for the tracer to say it is tracing, for WINDOW_S; when it did."""
    err.until(r"Tracing .* Stops after %g s \(--duration\)\." % WINDOW_S)
    return time.time()


def window_over(err, began, who):
    line = err.until(r"tracing stopped: --duration \(tracer.duration\) of %g s is over" % WINDOW_S)
    took = time.time() - began
    t.check(who in line, "the stop does not say what goes on: %r, want %r" % (line, who))
    t.check(WINDOW_S - 0.3 <= took <= WINDOW_S + 3, "the window lasted %.2f s, want %.1f s" % (took, WINDOW_S))


def test_command(name, args):
    out = os.path.join(tmpdir(), "ev.jsonl")
    tr = subprocess.Popen([t.TRACER, "--no-config", "-v", "--duration", "%gs" % WINDOW_S, "-o", "jsonl:" + out]
                          + args + ["--", PHASES, "3", "4", "5"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ended_at_exit(tr)
    err, stdout = Lines(tr.stderr), Lines(tr.stdout)
    began = window(err)
    pid = int(stdout.until(r"^ready \d+").split()[1])
    go(tr.stdin, stdout, 1)
    window_over(err, began, "(PID %d) goes on untraced, and is waited for" % pid)
    # Closed before the wait: the report made, the file whole, while the command still waits.
    err.until(r"\b3 events, 0 records lost")
    t.check(memsets(out) == PHASE1, "%s: at the stop the file holds %r, want %r" % (name, memsets(out), PHASE1))
    t.check(tr.poll() is None, "%s: the tracer did not wait for the command (exit %r)" % (name, tr.poll()))
    go(tr.stdin, stdout, 2)  # untraced now
    tr.stdin.close()  # before phase 3: cudart_phases exits 2
    rc = tr.wait(timeout=60)
    rest = err.rest()
    t.check(rc == 2, "%s: tracer exit %d, want the command's 2\n%s" % (name, rc, rest[-3000:]))
    t.check(memsets(out) == PHASE1, "%s: phase 2 written after the stop: %r" % (name, memsets(out)))


def test_pid():
    prog = subprocess.Popen([PHASES, "3", "4"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    ended_at_exit(prog)
    stdout = Lines(prog.stdout)
    pid = int(stdout.until(r"^ready \d+").split()[1])
    out = os.path.join(tmpdir(), "ev.jsonl")
    tr = subprocess.Popen([t.TRACER, "--no-config", "-v", "--duration", "%gs" % WINDOW_S, "-o", "jsonl:" + out,
                           "-p", str(pid)], stderr=subprocess.PIPE)
    ended_at_exit(tr)
    err = Lines(tr.stderr)
    began = window(err)
    go(prog.stdin, stdout, 1)
    window_over(err, began, "PID %d goes on untraced" % pid)
    rc = tr.wait(timeout=60)
    rest = err.rest()
    t.check(rc == 0, "-p: tracer exit %d\n%s" % (rc, rest[-3000:]))
    go(prog.stdin, stdout, 2)
    prog.stdin.close()
    t.check(prog.wait(timeout=60) == 0, "-p: the program did not end well")
    t.check(memsets(out, pid) == PHASE1, "-p: calls %r, want %r\n%s" % (memsets(out, pid), PHASE1, rest[-3000:]))


def test_system_wide():
    out = os.path.join(tmpdir(), "ev.jsonl")
    # Only the phases program's calls, and no other process held at its exec
    # (the suite's other tests run beside it), as the daemon tests do.
    tr = subprocess.Popen([t.TRACER, "--no-config", "-v", "--duration", "%gs" % WINDOW_S, "-o", "jsonl:" + out,
                           "-C", "filter.comm=" + os.path.basename(PHASES)[:15], "-C", "tracer.scan_execs=false"],
                          stderr=subprocess.PIPE)
    ended_at_exit(tr)
    err = Lines(tr.stderr)
    began = window(err)
    window_over(err, began, "is over")
    rc = tr.wait(timeout=60)
    rest = err.rest()
    t.check(rc == 0 and re.search(r"\b\d+ events?, 0 records lost", rest), "system-wide: exit %d\n%s" %
            (rc, rest[-3000:]))
    t.read_jsonl(out)


def test_refused():
    p = subprocess.run([t.TRACER, "--no-config", "--duration", "10", "--", "true"], capture_output=True, text=True)
    t.check(p.returncode == 2 and "at least 1ms" in p.stderr, "--duration 10: %d %r" % (p.returncode, p.stderr))
    p = subprocess.run([t.TRACER, "--no-config", "--daemon", "--duration", "2m", "-o", "jsonl:/dev/null"],
                       capture_output=True, text=True)
    t.check(p.returncode == 2 and "cudatracer capture" in p.stderr, "--daemon --duration: %d %r" %
            (p.returncode, p.stderr))


def main():
    t.need_root()
    test_refused()
    test_command("ebpf", [])
    test_command("inproc", ["--engine", "inproc"])
    test_pid()
    test_system_wide()
    print("ok")


main()
