#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs cut short: the traced program killed with SIGKILL mid-run, and the tracer
stopped with SIGINT or SIGTERM mid-run. Every sink's file must still parse and
hold every call the tracer reported (the jsonl events), no more, no fewer."""
import os
import signal
import subprocess
import sys
import time

import cttest
import test_sinks_common as common


def start(tmp, prog, iters, sleep_us):
    conf = common.write_config(tmp)
    p = subprocess.Popen([cttest.TRACER, "-c", conf, "--plugin", "cudart", "--", prog, str(iters),
                          str(sleep_us)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()  # the program's first line: "pid N"
    if not line.startswith("pid "):
        p.kill()
        out, err = p.communicate()
        raise AssertionError("the traced program did not start: %r\n%s" % (line, err))
    return p, int(line.split()[1])


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def finish(p, child):
    """Wait for the tracer, then end the program if it outlived it (it holds our pipe)."""
    try:
        p.wait(timeout=60)
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)
        if p.returncode is None:
            p.kill()
    out, err = p.communicate(timeout=60)
    return cttest.Trace(p.returncode, out, err, [], None)


def program_killed():
    """SIGKILL the traced program: the tracer ends normally with whatever it saw."""
    tmp = common.tmpdir()
    prog = common.build_fake(tmp)
    p, child = start(tmp, prog, 1000000, 1000)
    time.sleep(1.5)
    os.kill(child, signal.SIGKILL)
    trace = finish(p, child)
    d = common.files(tmp)
    common.check_consistent(d, trace)
    n = len(d["events"])
    cttest.check(n > 30, "only %d calls before the kill" % n, trace)
    cttest.check(not [e for e in d["events"] if e["api"] == "cudaDeviceSynchronize"],
                 "the program was killed before its end", trace)
    # killed holding a, b and h: all three reported as never freed
    m = d["memory"]["processes"][0]
    cttest.check(m["unfreed_count"] == 3 and m["unfreed_bytes"] == 4096 + 8192 + 1000,
                 "unfreed at the kill: %r" % m, trace)


def tracer_stopped(sig):
    """SIGINT/SIGTERM the tracer mid-run: it drains, closes every sink and exits."""
    tmp = common.tmpdir()
    prog = common.build_fake(tmp)
    p, child = start(tmp, prog, 1000000, 1000)
    time.sleep(1.5)
    p.send_signal(sig)
    trace = finish(p, child)
    cttest.check(p.returncode is not None, "tracer did not exit", trace)
    d = common.files(tmp)
    common.check_consistent(d, trace)
    cttest.check(len(d["events"]) > 30, "only %d calls before the signal" % len(d["events"]), trace)
    cttest.check(d["summary"]["final"] is True, "summary written at exit", trace)
    cttest.check("lost" in d["chrome"]["otherData"], "chrome closed with the run's figures", trace)


def main():
    cttest.need_root()
    program_killed()
    tracer_stopped(signal.SIGINT)
    tracer_stopped(signal.SIGTERM)
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
