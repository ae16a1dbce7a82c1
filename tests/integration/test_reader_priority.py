# SPDX-License-Identifier: MIT
"""The reader runs at nice -10 by default (tracer.reader_priority = high) so
that it keeps up with a program that keeps every core busy; the traced
command keeps the priority it was started with; normal and aggregate mode
(no reader work) leave the tracer alone."""
import sys
import cttest as t

# The command reports its own nice value and its parent's (the tracer's).
PROBE = [sys.executable, "-c",
         "import os; print(os.getpriority(os.PRIO_PROCESS, 0), os.getpriority(os.PRIO_PROCESS, os.getppid()))"]


def nices(args, jsonl_sink=True):
    tr = t.run(args, command=PROBE, jsonl_sink=jsonl_sink)
    t.check(tr.rc == 0, "rc %d" % tr.rc, tr)
    return tuple(int(x) for x in tr.stdout.split()), tr


def main():
    t.need_root()
    got, tr = nices(["--plugin", "cudart"])
    t.check(got == (0, -10), "default: command and tracer nice %r, want (0, -10)" % (got,), tr)
    got, tr = nices(["--plugin", "cudart", "-C", "tracer.reader_priority=normal"])
    t.check(got == (0, 0), "reader_priority=normal: %r, want (0, 0)" % (got,), tr)
    got, tr = nices(["--plugin", "cudart", "-C", "tracer.mode=aggregate", "-C", "tracer.aggregate_path=/dev/null"],
                    jsonl_sink=False)  # aggregate mode refuses a sink of every call
    t.check(got == (0, 0), "aggregate mode: %r, want (0, 0)" % (got,), tr)
    print("ok")


main()
