#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hangs caught while they happen (--hang-timeout, docs/events.md).

Two ranks of one communicator on the stand-in libnccl (fake_nccl.c: each
collective a barrier), traced with --stacks (method dwarf: the slice taken
at the call's entry, unwound) --hang-timeout 1s, a jsonl sink and a
prometheus endpoint:
  - rank 1 sleeps 2.5 s before its second ncclAllReduce, so rank 0 waits in
    its second for about that long: reported stuck at about 1 s, naming
    rank 1 as behind (it began 1 collective, rank 0 2), then ended, once,
    with its whole duration and result;
  - rank 1 then stops making collectives (it waits in pause()) while rank
    0's third ncclAllReduce never returns (FAKE_NCCL_HANG_AT=3: pause()):
    reported within the timeout plus a second, its stack naming
    train_step, the function that made the call, rank 1 behind at 2.
The hang line is checked key by key; cudatracer_hung_calls is scraped from
the sink's real /metrics; the stuck rank is still running, neither stopped
nor traced (no ptrace), until the test sends it SIGTERM, after which the
hang is reported gone and every file is complete.
"""
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import cttest
from daemon_common import metrics, wait_for
from hang_common import TIMEOUT_NS, check_hang, hangs, live_lines
from metrics_common import free_port

def main():
    cttest.need_root()
    prog = cttest.program(os.path.join("fakenccl", "nccl_hang"))
    tmp = tempfile.mkdtemp(prefix="cthang.")
    meet = os.path.join(tmp, "meet")
    os.mkdir(meet)
    jsonl = os.path.join(tmp, "ev.jsonl")
    port = free_port()
    # rank 0: 3 collectives, its third never returns; rank 1: 2, the second 2.5 s late, then idle
    cmd = ("RANK=0 WORLD_SIZE=2 FAKE_NCCL_HANG_AT=3 %s %s 3 0 & "
           "RANK=1 WORLD_SIZE=2 %s %s 2 2500 & wait" % (prog, meet, prog, meet))
    tr = subprocess.Popen([cttest.TRACER, "--plugin", "nccl", "--stacks", "-C", "stacks.method=dwarf",
                           "--hang-timeout", "1s",
                           "-o", "jsonl:" + jsonl, "-o", "prometheus:127.0.0.1:%d" % port,
                           "--", "sh", "-c", cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = []
    drain = threading.Thread(target=lambda: err.extend(tr.stderr), daemon=True)
    drain.start()
    try:
        stuck = wait_for(lambda: len(hangs(live_lines(jsonl), "stuck")) == 2 and live_lines(jsonl), timeout=30)
        trace_err = "".join(err)
        cttest.check(stuck, "no second hang within 30 s:\n" + trace_err[-4000:])
        events = stuck
        calls = [e for e in events if e.get("api") == "ncclAllReduce" and "kind" not in e]
        pid0 = hangs(events)[0]["pid"]
        pid1 = [e["pid"] for e in calls if e["rank"] == 1][0]
        # the late collective: stuck once, then ended once with its whole duration
        first = [h for h in hangs(events) if h["communicator"]["seq"] == 2]
        cttest.check([h["state"] for h in first] == ["stuck", "ended"], "collective 2: %r" % first)
        check_hang(first[0], "stuck", pid0, 2, {"rank": 1, "pid": pid1, "seq": 1}, trace_err)
        check_hang(first[1], "ended", pid0, 2, None, trace_err)
        cttest.check(TIMEOUT_NS <= first[0]["report_ns"] - first[0]["ts_ns"] <= TIMEOUT_NS + 1000000000 and
                     first[0]["dur_ns"] >= TIMEOUT_NS, "collective 2 reported late: %r" % first[0])
        # the collective that never returns
        last = [h for h in hangs(events) if h["communicator"]["seq"] == 3]
        cttest.check(len(last) == 1, "collective 3: %r" % last)
        check_hang(last[0], "stuck", pid0, 3, {"rank": 1, "pid": pid1, "seq": 2}, trace_err)
        cttest.check(TIMEOUT_NS <= last[0]["report_ns"] - last[0]["ts_ns"] <= TIMEOUT_NS + 1000000000,
                     "collective 3 reported late: %r" % last[0])
        cttest.check(last[0]["stuck_in_process"] == 1, "stuck_in_process: %r" % last[0])
        # on stderr too, with the stack and the rank behind
        said = [l for l in err if "hang: nccl:ncclAllReduce" in l]
        cttest.check(len(said) == 2 and "collective 3; rank 1 (PID %d) is behind, at collective 2" % pid1 in said[1],
                     "stderr: %r" % said)
        cttest.check(any("#0 train_step+" in l for l in err), "stderr has no train_step frame:\n" + trace_err)
        # the gauge, from the real endpoint: one call of rank 0 stuck now
        gauge = r'cudatracer_hung_calls\{api="ncclAllReduce",[^}]*pid="%d"[^}]*\} (\d+)' % pid0
        text = wait_for(lambda: (lambda t: t if re.search(gauge, t) and re.search(gauge, t).group(1) == "1"
                                 else None)(metrics(port)), timeout=10)
        cttest.check(text, "cudatracer_hung_calls of PID %d is not 1:\n%s" % (pid0, metrics(port)[-3000:]))
        # the process is untouched: asleep in pause(), not stopped, not traced
        with open("/proc/%d/status" % pid0) as f:
            status = dict(l.split(":\t", 1) for l in f.read().splitlines() if ":\t" in l)
        cttest.check(status["State"].startswith("S") and status["TracerPid"].strip() == "0",
                     "rank 0: State %r TracerPid %r" % (status["State"], status["TracerPid"]))
        os.kill(pid0, signal.SIGTERM)
        os.kill(pid1, signal.SIGTERM)
        tr.wait(timeout=30)
        drain.join(10)
    finally:
        if tr.poll() is None:
            tr.kill()
            tr.wait()
    trace_err = "".join(err)
    events = cttest.read_jsonl(jsonl)
    # the ended hang is its call's own time, and the call has its line as any other
    own = [e for e in events if e.get("api") == "ncclAllReduce" and "kind" not in e and e["pid"] == pid0
           and e["communicator"]["seq"] == 2]
    ended = hangs(events, "ended")
    cttest.check(len(own) == 1 and len(ended) == 1 and own[0]["dur_ns"] == ended[0]["dur_ns"] >= 2000000000
                 and own[0]["ts_ns"] == ended[0]["ts_ns"], "ended hang %r against its call %r" % (ended, own))
    cttest.check(not [e for e in events if "kind" not in e and e["communicator"].get("seq") == 3],
                 "a line for the call that never returned")
    last = [h for h in hangs(events) if h["communicator"]["seq"] == 3]
    cttest.check([h["state"] for h in last] == ["stuck", "gone"], "collective 3 at the end: %r\n%s"
                 % ([h["state"] for h in last], trace_err[-3000:]))
    cttest.check(last[1]["stuck_in_process"] == 0 and last[1]["dur_ns"] > TIMEOUT_NS, "gone: %r" % last[1])
    cttest.check(sum("hang ended:" in l for l in err) == 1 and sum("hang gone:" in l for l in err) == 1,
                 "stderr ended/gone lines:\n" + trace_err[-3000:])
    shutil.rmtree(tmp, True)
    print("ok")


if __name__ == "__main__":
    main()
