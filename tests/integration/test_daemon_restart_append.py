#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A session the daemon starts after another never empties what the one
before wrote. A reload that keeps the same files: the jsonl is continued
(every call of both sessions, one object a line); the chrome trace, which
ends in a bracket, is left finished and whole, and the new session writes a
new file beside it, said in the log. The backup names of before
(PATH.TIME[-N]), made ready by someone else in the folder, change nothing.
A reload whose session fails to start (a file of another user's, which the
check before the reload cannot refuse but the new session does): the session
before is started again and continues its jsonl, which keeps every line."""
import glob
import json
import os
import time

import cttest
from daemon_common import Daemon, free_port, jsonl_memsets, wait_for

PORT = free_port()


def conf(d, extra=""):
    return ("[sink.metrics]\ntype = prometheus\nlisten = 127.0.0.1:%d\n\n[sink.calls]\ntype = jsonl\npath = %s\n\n"
            "[sink.trace]\ntype = chrome\npath = %s\n%s" % (PORT, d.path("calls.jsonl"), d.path("trace.json"), extra))


def chrome_memsets(path, pid):
    with open(path) as f:
        return sum(1 for e in json.load(f)["traceEvents"]
                   if e.get("name") == "cudaMemset" and e.get("pid") == pid and e.get("ph") == "X")


def main():
    d = Daemon(conf)
    calls, trace = d.path("calls.jsonl"), d.path("trace.json")
    p1 = d.run(7)
    cttest.check(wait_for(lambda: jsonl_memsets(calls, p1) == 7), "7 calls not written\n" + d.said())
    # The names the finished files were once kept under, taken for the next seconds.
    now = time.time()
    for path in (calls, trace):
        for t in range(int(now), int(now) + 15):
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(t))
            for n in range(1, 100):
                with open("%s.%s%s" % (path, stamp, "" if n == 1 else "-%d" % n), "w") as f:
                    f.write("planted\n")
    d.reload("reload: the new configuration is valid")
    d.ready()
    p2 = d.run(5)
    cttest.check(wait_for(lambda: jsonl_memsets(calls, p2) == 5), "5 calls not continued\n" + d.said())
    cttest.check(jsonl_memsets(calls, p1) == 7, "the reload emptied %s\n%s" % (calls, d.said()))
    cttest.check(chrome_memsets(trace, p1) == 7, "the finished chrome trace %s\n%s" % (trace, d.said()))
    new = [p for p in glob.glob(d.path("trace.*.json"))]
    cttest.check(len(new) == 1 and "the finished %s is kept; this session writes %s" % (trace, new[0]) in d.said(),
                 "the new chrome file: %r\n%s" % (new, d.said()))

    # A reload whose session cannot start: the one before is started again.
    theirs = d.path("theirs.jsonl")
    with open(theirs, "w") as f:
        f.write("theirs\n")
    os.chown(theirs, 65534, 65534)
    d.write("[sink.metrics]\ntype = prometheus\nlisten = 127.0.0.1:%d\n\n[sink.other]\ntype = jsonl\npath = %s\n"
            % (PORT, theirs))
    d.reload("the one before is started again")
    d.ready()
    p3 = d.run(3)
    cttest.check(wait_for(lambda: jsonl_memsets(calls, p3) == 3), "3 calls after the failed reload\n" + d.said())
    d.stop()
    cttest.check([jsonl_memsets(calls, p, live=False) for p in (p1, p2, p3)] == [7, 5, 3],
                 "the jsonl after the failed reload\n" + d.said())
    with open(theirs) as f:
        cttest.check(f.read() == "theirs\n", "the other user's file was written")
    new = sorted(glob.glob(d.path("trace.*.json")), key=os.path.getmtime)
    cttest.check(len(new) == 2 and chrome_memsets(new[0], p2) == 5 and chrome_memsets(new[1], p3) == 3,
                 "chrome files after the failed reload: %r\n%s" % (new, d.said()))
    print("ok: a session after another continues its jsonl and starts a new chrome file beside the finished one")


if __name__ == "__main__":
    main()
