#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a run says on stderr and in its summary reads as English and only
when it says something (issue "Trust in the first hour"):

- a count agrees with its word: "1 event, 0 records lost", "pid N: 1 call,
  0 errors" (one helper, util/plural.h, for every closing line, warning and
  summary).
- the closing "launches: N with their kernel named, M unnamed" line only
  when some launch went unnamed (kname_shared names every kernel).
- the advice on a full ring names the option and the INI key, whichever the
  user set it with ("raise --ringbuf-size or [tracer] ringbuf_size").

On a stand-in runtime whose cudaStreamSynchronize sleeps (sleep/sleep_calls N US).
"""
import os
import re
import subprocess

import cttest as t

SLEEPS = os.path.join(t.PROGRAMS, "sleep", "sleep_calls")


def run(args, n=1, us=0, timeout=60):
    return subprocess.run([t.TRACER, "--no-config"] + args + ["--", SLEEPS, str(n), str(us)],
                          capture_output=True, text=True, timeout=timeout)


def test_plurals():
    p = run(["-o", "summary"])
    t.check(p.returncode == 0 and "cudatracer: 1 event, 0 records lost\n" in p.stderr, p.stderr)
    t.check("(sleep_calls): 1 call, 0 errors," in p.stdout, p.stdout)
    p = run(["-o", "summary"], n=2)
    t.check("cudatracer: 2 events, 0 records lost\n" in p.stderr and "(sleep_calls): 2 calls, 0 errors," in p.stdout,
            p.stderr + p.stdout)


def test_launches_line():
    p = subprocess.run([t.TRACER, "--no-config", "-o", "jsonl:/dev/null", "--", t.program("kname_shared")],
                       capture_output=True, text=True, timeout=60)
    t.check(p.returncode == 0 and "0 records lost" in p.stderr and "launches:" not in p.stderr, p.stderr)


def test_loss_advice():
    p = subprocess.run([t.TRACER, "--no-config", "-o", "jsonl:/dev/null", "--ringbuf-size", "4096",
                        "-C", "tracer.wakeup_bytes=0", "--", t.program("cudart_loop_shared"), "20000"],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r"^cudatracer: warning: (\d+) records? did not fit in the ring buffer: (.*)$", p.stderr, re.M)
    t.check(p.returncode == 0 and m and int(m.group(1)) > 0 and
            m.group(2) == "raise --ringbuf-size or [tracer] ringbuf_size", p.stderr)


def main():
    t.need_root()
    if not os.path.exists(SLEEPS):
        t.skip("sleep/sleep_calls was not built")
    test_plurals()
    test_launches_line()
    test_loss_advice()
    print("test_cli_words: ok")


main()
