#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A task held for probing, continued by someone else, is not traced blind.

The watcher stops a traced task with SIGSTOP at exec and when it opens a
runtime, and the tracer sends SIGCONT once the probes are in place. Any
SIGCONT ends that stop: another tracer's (a system-wide one stops every new
executable too, and continues it when it has checked it, perhaps long after:
its SIGCONT can end a later stop of ours), a daemon's, a user's kill -CONT.
On a busy machine, with other tracers running, the command then ran before
its probes were live: "probed before its first call", and 0 events.

Here the tracer waits 300 ms before probing each stopped task
(CUDATRACER_TEST_HOLD_MS, as a loaded machine would), and a thread of this
test sends SIGCONT to each of the command's processes it sees stopped (by a
signal or under ptrace), 20 times, a few milliseconds apart. Every call must
still be traced, the same as in a run left alone, for a runtime linked into
the executable (the exec stop) and one loaded by ld.so (the open stop); the
tracer says the task was kept stopped. Before the tracer held the task under
ptrace, the watcher stopped it again after each SIGCONT, a stop that lands
late: the command ran through unprobed in most runs of this test.
"""
import os
import signal
import subprocess
import threading
import time

import cttest

cttest.need_root()


STORM_S = 0.25


def stopped_children(ppid):
    """Processes whose parent is ppid, in state T (stopped) or t (stopped under ptrace)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        fields = st[st.rindex(")") + 2:].split()
        if fields[0] in ("T", "t") and int(fields[1]) == ppid:
            out.append(int(d))
    return out


def trace(prog, meddle):
    """Run the tracer on prog; with meddle, continue its stopped command meanwhile.
    Returns (apis, stderr, SIGCONTs sent)."""
    tmp = cttest.tempfile.mkdtemp(prefix="cttest.")
    out = os.path.join(tmp, "ev.jsonl")
    env = dict(os.environ)
    if meddle:
        env["CUDATRACER_TEST_HOLD_MS"] = "300"
    tr = subprocess.Popen([cttest.TRACER, "--no-config", "-v", "--plugin", "cudart", "-o", "jsonl:" + out,
                           "--", prog], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    sent, done = [0], threading.Event()

    # SIGCONTs to each task while it is held, as other tracers, a daemon or
    # a user send them: one after the other for STORM_S from the moment the
    # task is seen stopped; then its next stop is waited for.
    def continuer():
        while not done.is_set():
            for pid in stopped_children(tr.pid):
                end = time.monotonic() + STORM_S
                while time.monotonic() < end:
                    try:
                        os.kill(pid, signal.SIGCONT)
                        sent[0] += 1
                    except ProcessLookupError:
                        break
                while not done.is_set() and pid in stopped_children(tr.pid):
                    time.sleep(0.002)
            time.sleep(0.002)

    th = threading.Thread(target=continuer)
    if meddle:
        th.start()
    try:
        _, err = tr.communicate(timeout=120)
    finally:
        done.set()
        if meddle:
            th.join()
    cttest.check(tr.returncode == 0, "%s: exit %d\n%s" % (prog, tr.returncode, err))
    apis = [e["api"] for e in cttest.read_jsonl(out) if "api" in e]
    return apis, err, sent[0]


def main():
    for name in ("cudart_calls_static", "cudart_calls_shared"):
        prog = cttest.program(name)
        alone, err, _ = trace(prog, False)
        cttest.check(len(alone) > 10, "%s alone: %d events\n%s" % (name, len(alone), err))
        got, err, sent = trace(prog, True)
        cttest.check(sent > 0, "%s: the test never saw the command stopped\n%s" % (name, err))
        cttest.check(got == alone, "%s continued by another process while held: %d events, %d alone "
                     "(%d SIGCONTs sent)\n%s" % (name, len(got), len(alone), sent, err))
        cttest.check("0 records lost" in err, "%s: records lost\n%s" % (name, err))
        cttest.check("from another process to a task held under ptrace before its probes were in place: "
                     "kept stopped until they were" in err,
                     "%s: the tracer did not say it kept the task stopped\n%s" % (name, err))
        print("ok: %s: %d events with %d foreign SIGCONTs while held" % (name, len(got), sent))


if __name__ == "__main__":
    main()
