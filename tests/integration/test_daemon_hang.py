#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A daemon catches a rank stuck in a collective and names the rank behind.

A daemon (tracer.hang_timeout = 1s, no [stacks]: the watched calls take
theirs by frame pointers all the same; the stand-in libnccl probed for every
process with tracer.lib) and two ranks of one communicator started
outside it: rank 0 makes 3 ncclAllReduce calls, its third never returns
(FAKE_NCCL_HANG_AT=3); rank 1 makes 2 and idles. The daemon must report
rank 0 stuck within the timeout plus a second, its stack naming
train_step, rank 1 behind at collective 2 (the counts of the two ranks
differ), on its log, in its jsonl file and as cudatracer_hung_calls 1 on
/metrics; once the test ends rank 0 with SIGTERM, the hang is gone and the
gauge back at 0, and the daemon stops with every file complete.
"""
import os
import re
import signal
import subprocess

import cttest
from daemon_common import Daemon, free_port, metrics, wait_for
from hang_common import TIMEOUT_NS, check_hang, hangs, live_lines

PORT = free_port()


def main():
    prog = cttest.program(os.path.join("fakenccl", "nccl_hang"))
    lib = os.path.join(os.path.dirname(prog), "lib", "libnccl.so.2")
    d = Daemon(lambda d: ("[tracer]\nplugins = nccl\nlib = %s\nhang_timeout = 1s\n"
                          "[sink.metrics]\ntype = prometheus\nlisten = 127.0.0.1:%d\n"
                          "[sink.calls]\ntype = jsonl\npath = %s\n" % (lib, PORT, d.path("calls.jsonl"))),
               comm="nccl_hang")
    jsonl = d.path("calls.jsonl")
    meet = d.path("meet")
    os.mkdir(meet)
    env = dict(os.environ, WORLD_SIZE="2")
    r0 = subprocess.Popen([prog, meet, "3"], env=dict(env, RANK="0", FAKE_NCCL_HANG_AT="3"),
                          stdout=subprocess.DEVNULL)
    r1 = subprocess.Popen([prog, meet, "2"], env=dict(env, RANK="1"), stdout=subprocess.DEVNULL)
    # The daemon sees every process that maps the stand-in libnccl: another
    # test's nccl_hang beside this one too. Only these two ranks are this test's.
    ours = lambda hs: [h for h in hs if h["pid"] in (r0.pid, r1.pid)]
    try:
        stuck = wait_for(lambda: ours(hangs(live_lines(jsonl), "stuck")), timeout=30)
        cttest.check(len(stuck) == 1, "hangs %r\n%s" % (stuck, d.said()[-3000:]))
        check_hang(stuck[0], "stuck", r0.pid, 3, {"rank": 1, "pid": r1.pid, "seq": 2}, d.said())
        cttest.check(TIMEOUT_NS <= stuck[0]["report_ns"] - stuck[0]["ts_ns"] <= TIMEOUT_NS + 1000000000,
                     "reported late: %r" % stuck[0])
        cttest.check("collective 3; rank 1 (PID %d) is behind, at collective 2" % r1.pid in d.said() and
                     "#0 train_step+" in d.said(), "the daemon's log:\n" + d.said()[-3000:])
        gauge = r'cudatracer_hung_calls\{api="ncclAllReduce",[^}]*pid="%d"[^}]*\} (\d+)' % r0.pid
        served = lambda want: (lambda m: m and m.group(1) == want)(re.search(gauge, metrics(PORT)))
        cttest.check(wait_for(lambda: served("1"), timeout=10), "gauge not 1:\n" + metrics(PORT)[-3000:])
        cttest.check(r0.poll() is None and r1.poll() is None, "a rank ended on its own")
        r0.send_signal(signal.SIGTERM)
        cttest.check(r0.wait(timeout=10) == -signal.SIGTERM, "rank 0 did not end by SIGTERM")
        cttest.check(wait_for(lambda: ours(hangs(live_lines(jsonl), "gone")), timeout=10),
                     "no gone line\n" + d.said()[-3000:])
        cttest.check(wait_for(lambda: served("0"), timeout=10), "gauge not 0:\n" + metrics(PORT)[-3000:])
    finally:
        for r in (r0, r1):
            if r.poll() is None:
                r.kill()
                r.wait()
    d.stop()
    events = cttest.read_jsonl(jsonl)
    cttest.check([h["state"] for h in ours(hangs(events))] == ["stuck", "gone"], "hang lines %r" % hangs(events))
    print("ok")


if __name__ == "__main__":
    main()
