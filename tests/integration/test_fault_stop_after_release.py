#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A task stopped again just after the tracer released it is continued.

Two tracers that held the same exec each stop it again when the other
continues it (watch.bpf.c, ct_signal); that stop goes through irq_work, and
one sent as the other tracer released the task lands after its SIGCONT: the
task stays stopped, held by no one (once in a full suite run, a command's
`sleep` beside a system-wide test). The tracer looks at each task it
released again, 20 ms and a second on, and continues it if it is stopped.

Here the late stop is the task's own: a shell exec'd by the command (held at
exec, then released) stops itself at once. It must run on to its end, and
the tracer says so with -v.
"""
import subprocess

import cttest as t


def main():
    t.need_root()
    script = "sh -c 'kill -STOP $$; echo resumed'"
    try:
        tr = t.run(["-v", "--plugin", "cudart"], command=["sh", "-c", script], timeout=30)
    except subprocess.TimeoutExpired:
        subprocess.run(["pkill", "-CONT", "-f", "kill -STOP"])
        raise AssertionError("the shell that stopped itself after its release was left stopped")
    t.check(tr.rc == 0, "rc %d" % tr.rc, tr)
    t.check("resumed" in tr.stdout, "the shell did not run on: %r" % tr.stdout, tr)
    t.check("1 task found stopped after its release, with no tracer holding it: continued again" in tr.stderr,
            "the tracer did not say it continued the task again", tr)
    print("ok")


if __name__ == "__main__":
    main()
