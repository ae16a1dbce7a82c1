# SPDX-License-Identifier: MIT
"""SIGTERM during start-up, in command mode.

The command is held (core/session.c, spawn_held) until the probes are in
place. A stop that comes before then must not release it: the command never
calls exec, the tracer says "stopped by SIGTERM before tracing began: CMD not
run" and exits 128+15. A stop after the release is a stop mid-run (the
tracer has said "Tracing ... Ctrl-C to end."; the command goes on, untraced
if its runtime was not loaded yet). So at each delay the command either ran
traced (its three cudaMemset calls are in the output), or was released
first, or never ran (the marker file it would create after its calls does
not exist): never ran untraced unreleased. Start-up (BPF load, one plugin) takes
60 to 160 ms here, so 10, 30 and 60 ms land inside it; at 0 ms the signal
may come before main() and its default action kills the tracer, which is
also never-ran (nothing was forked)."""
import os
import signal
import subprocess
import tempfile
import time
import cttest as t

DELAYS_MS = (0, 10, 30, 60)
NOT_RUN = "cudatracer: error: stopped by SIGTERM before tracing began: sh not run"


def one(prog, delay_ms):
    tmp = tempfile.mkdtemp(prefix="ctstartup.")
    marker = os.path.join(tmp, "ran")
    out = os.path.join(tmp, "ev.jsonl")
    p = subprocess.Popen([t.TRACER, "--plugin", "cudart", "-o", "jsonl:" + out, "--",
                          "sh", "-c", '"$0" 3 && touch "$1"', prog, marker],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(delay_ms / 1000.0)
    p.send_signal(signal.SIGTERM)
    # The pipes end when the tracer and a command that outlived it have both exited.
    _, err = p.communicate(timeout=60)
    events = t.read_jsonl(out) if os.path.exists(out) else []
    ran = os.path.exists(marker)
    calls = [e["args"]["count"] for e in events if e["api"] == "cudaMemset"]
    what = "%d ms: rc %d, marker %s, calls %s\n%s" % (delay_ms, p.returncode, ran, calls, err)
    if ran:
        if calls != [0, 1, 2]:
            # Released, then stopped before its runtime was loaded: a stop mid-run
            # (documented: the command goes on untraced), never one before the
            # probes were live. The tracer says it began once it has released it.
            t.check("Ctrl-C to end." in err, "the command ran untraced after a stop during start-up: " + what)
            return "released, then stopped"
        return "traced"
    t.check(not events, "events from a command that did not run: " + what)
    if p.returncode == -signal.SIGTERM:
        t.check(err == "", "killed by the signal's default action, yet said something: " + what)
        return "killed before main"
    t.check(p.returncode == 128 + signal.SIGTERM, "rc %d, want 143: %s" % (p.returncode, what))
    t.check(NOT_RUN in err.splitlines(), "want the line %r: %s" % (NOT_RUN, what))
    return "not run"


def main():
    t.need_root()
    prog = t.program("cudart_loop_shared")
    seen = {}
    for rnd in range(2):
        for d in DELAYS_MS:
            seen.setdefault(one(prog, d), []).append(d)
    print(seen)
    t.check("not run" in seen, "no stop landed during start-up, so nothing was tested: %s" % seen)
    print("ok")


main()
