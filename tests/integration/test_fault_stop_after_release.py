#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A stop sent to hold a task again, landing after its release, is undone;
a program's own stop is left alone.

Two tracers that held the same exec each stop it again when the other
continues it (watch.bpf.c, ct_signal); that stop goes through irq_work, and
one sent as the other tracer released the task lands after its SIGCONT: the
task stays stopped, held by no one (once in a full suite run, a command's
`sleep` beside a system-wide test). ct_signal marks the hold when it sends
such a stop, and the tracer looks again at a task it released with that mark,
20 ms and a second on, and continues it if it is stopped.

Here the late stop is played by the task itself: the command, a shell held
at exec, stops itself as soon as it runs. With the mark (this test continued
it while it was held, CUDATRACER_TEST_HOLD_MS keeping it held 300 ms, and the
tracer stopped it again) it must run on to its end, and the tracer says so
with -v. Without the mark it must stay stopped: a program that stops itself
(waiting for a debugger) is not the tracer's to continue.
"""
import os
import signal
import subprocess
import threading
import time

import cttest as t

SCRIPT = "kill -STOP $$; echo resumed"
SAID = "1 task found stopped after its release, with no tracer holding it: continued again"


def state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read()
    except OSError:
        return None, None
    fields = st[st.rindex(")") + 2:].split()
    return fields[0], int(fields[1])


def stopped_child(ppid):
    for d in os.listdir("/proc"):
        if d.isdigit() and state(int(d)) == ("T", ppid):
            return int(d)
    return None


def start(marked):
    env = dict(os.environ)
    if marked:
        env["CUDATRACER_TEST_HOLD_MS"] = "300"
        # The SIGSTOP alone holds it, as where ptrace cannot (another tracer
        # has the task): under ptrace a SIGCONT does not end the hold.
        env["CUDATRACER_TEST_NO_PTRACE"] = "1"
    return subprocess.Popen([t.TRACER, "--no-config", "-v", "--plugin", "cudart", "-o", "jsonl:/dev/null",
                             "--", "sh", "-c", SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


def finish(tr):
    try:
        out, err = tr.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        subprocess.run(["pkill", "-CONT", "-f", SCRIPT])
        tr.kill()
        raise AssertionError("the command stayed stopped")
    return out, err


def marked():
    tr = start(True)
    sent = []

    def meddle():  # once: SIGCONT to the shell while the tracer holds it at exec
        deadline = time.monotonic() + 10
        while not sent and time.monotonic() < deadline:
            pid = stopped_child(tr.pid)
            if pid:
                os.kill(pid, signal.SIGCONT)
                sent.append(pid)
            time.sleep(0.005)

    th = threading.Thread(target=meddle)
    th.start()
    th.join()
    t.check(sent, "the command was never seen held")
    out, err = finish(tr)
    t.check(tr.returncode == 0, "marked: rc %d\n%s" % (tr.returncode, err[-2000:]))
    t.check("resumed" in out, "marked: the shell did not run on: %r" % out)
    t.check(SAID in err, "marked: the tracer did not say it continued the task again:\n" + err[-2000:])


def unmarked():
    tr = start(False)
    deadline, pid = time.monotonic() + 10, None
    while time.monotonic() < deadline and not pid:
        pid = stopped_child(tr.pid)
        time.sleep(0.01)
    t.check(pid, "the shell never stopped itself")
    time.sleep(1.5)  # past both of the tracer's looks, had it taken any
    st = state(pid)[0]
    os.kill(pid, signal.SIGCONT)
    out, err = finish(tr)
    t.check(st == "T", "unmarked: the program's own stop was undone (state %s)" % st)
    t.check(tr.returncode == 0 and "resumed" in out, "unmarked: rc %d, %r" % (tr.returncode, out))
    t.check("continued again" not in err, "unmarked: the tracer continued a task it had not stopped:\n" + err)


def main():
    t.need_root()
    unmarked()
    marked()
    print("ok")


if __name__ == "__main__":
    main()
