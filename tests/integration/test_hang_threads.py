#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""10,000 calls of one process stuck at once (--hang-timeout 1s).

sync_threads.c starts 10,000 threads that each sleep 6 s in one call of the
stand-in cudaStreamSynchronize (fake_sleep_cudart.c), all begun within
about the time the threads take to start. Every call must be in the jsonl
file twice, stuck then ended (its whole time, equal to its call line's),
at some moment all 10,000 stuck at once (stuck_in_process), no record
lost; stderr says at most 16 reports a second and how many it did not say.
"""
import re
import time

import cttest
from hang_common import hangs

N, SLEEP_US = 10000, 6000000


def main():
    cttest.need_root()
    prog = cttest.program("sleep/sync_threads")
    began = time.time()
    t = cttest.run(["--plugin", "cudart", "--hang-timeout", "1s", "-C", "tracer.ringbuf_size=64M"],
                   command=[prog, str(N), str(SLEEP_US)], timeout=300)
    took = time.time() - began
    cttest.check(t.rc == 0 and "sync_threads: %d calls" % N in t.stdout, "exit %d" % t.rc, t)
    cttest.check(t.lost() == 0, "records lost", t)
    calls = {e["tid"]: e for e in t.events if "kind" not in e and e["api"] == "cudaStreamSynchronize"}
    stuck, ended = hangs(t.events, "stuck"), hangs(t.events, "ended")
    cttest.check(len(calls) == N and len(stuck) == N and len(ended) == N and len(hangs(t.events)) == 2 * N,
                 "%d calls, %d stuck, %d ended" % (len(calls), len(stuck), len(ended)), t)
    cttest.check({h["tid"] for h in stuck} == set(calls) and {h["tid"] for h in ended} == set(calls),
                 "hangs of other threads than the calls'", t)
    bad = [h for h in ended if h["dur_ns"] != calls[h["tid"]]["dur_ns"] or h["dur_ns"] < SLEEP_US * 1000]
    cttest.check(not bad, "ended hangs not their calls' time: %r" % bad[:3], t)
    cttest.check(max(h["stuck_in_process"] for h in stuck) == N, "never all %d stuck at once" % N, t)
    said = len(re.findall(r"warning: hang: cudart:cudaStreamSynchronize", t.stderr))
    cttest.check(1 <= said <= 16 * (int(took) + 2), "%d stuck reports said in %.1f s" % (said, took), t)
    cttest.check(re.search(r"\d+ hang reports were not said here \(more than 16 a second\)", t.stderr),
                 "no count of the reports not said", t)
    print("ok: %d stuck calls, %d said on stderr, %.1f s" % (N, said, took))


if __name__ == "__main__":
    main()
