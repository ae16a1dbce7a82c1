#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A SIGHUP every millisecond for 3 s: the daemon lives through it and
traces after it. Reloads are coalesced (the signals that come during one
cause at most one more); the BPF loads of each new session are not failed
by the signals pending meanwhile, and none is taken for a kernel that cannot
load uprobe_multi or uprobe session programs. Once killed by it: each load
failed with EAGAIN, the fallback too, and then the session before."""
import os
import signal
import time

import cttest
from daemon_common import Daemon, free_port, jsonl_memsets, memsets, metrics, wait_for

PORT = free_port()


def conf(d):
    return ("[sink.metrics]\ntype = prometheus\nlisten = 127.0.0.1:%d\n\n[sink.calls]\ntype = jsonl\npath = %s\n"
            % (PORT, d.path("calls.jsonl")))


def main():
    d = Daemon(conf)
    calls = d.path("calls.jsonl")
    p1 = d.run(7)
    cttest.check(wait_for(lambda: jsonl_memsets(calls, p1) == 7), "7 calls not written\n" + d.said())
    sent, end = 0, time.time() + 3
    while time.time() < end and d.proc.poll() is None:
        os.kill(d.proc.pid, signal.SIGHUP)
        sent += 1
        time.sleep(0.001)
    cttest.check(d.proc.poll() is None, "the daemon died after %d SIGHUPs (exit %s)\n%s" %
                 (sent, d.proc.returncode, d.said()[-4000:]))
    # Quiet again: the last reload done, tracing.
    cttest.check(d.settle() == b"READY=1" and d.proc.poll() is None, "not tracing after the storm\n" + d.said()[-4000:])
    reloads = d.said().count("SIGHUP: reading the configuration again")
    cttest.check(0 < reloads < sent, "%d reloads for %d SIGHUPs\n%s" % (reloads, sent, d.said()[-2000:]))
    for bad in ("cannot load uprobe", "did not start", "loading the capture engine's BPF programs failed"):
        cttest.check(bad not in d.said(), "%r in the log\n%s" % (bad, d.said()[-4000:]))
    p2 = d.run(5)
    cttest.check(wait_for(lambda: memsets(metrics(PORT), p2) == 5), "5 calls not served\n" + d.said()[-4000:])
    d.stop()
    cttest.check([jsonl_memsets(calls, p, live=False) for p in (p1, p2)] == [7, 5], "calls.jsonl\n" + d.said()[-4000:])
    print("ok: %d SIGHUPs in 3 s, %d reloads; the daemon traces on" % (sent, reloads))


if __name__ == "__main__":
    main()
