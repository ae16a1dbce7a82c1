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
- SIGUSR1 and SIGUSR2 are answered with one line each without -v.
- records lost are said while it happens: once when loss begins, with the
  count, then at most every 5 s while it goes on.
- when every sink's output is gone (`cudatracer -- CMD | head -1`), tracing
  stops and says why; the command goes on. A run in which a sink failed
  exits non-zero with a closing line naming the sink and its error.
- report takes -C (a sink's keys) and -v as the tracer does; merge takes -v
  and keeps each thread's name (jsonl's comm) on its track.
- without privileges, tracing a command, the in-process engine is offered
  before setcap.

On a stand-in runtime whose cudaStreamSynchronize sleeps (sleep/sleep_calls N US).
"""
import atexit
import json
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time

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


class Lines:
    """A pipe's lines, read from its descriptor with a deadline, warnings
    skipped (the stand-in runtime lacks most APIs)."""

    def __init__(self, f):
        self.fd, self.buf = f.fileno(), b""

    def next(self, timeout=30):
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                if not line.startswith(b"cudatracer: warning: "):
                    return line.decode(errors="replace")
            if not select.select([self.fd], [], [], timeout)[0]:
                raise AssertionError("no line from the tracer in %d s" % timeout)
            more = os.read(self.fd, 65536)
            if not more:
                raise AssertionError("the tracer's stderr ended")
            self.buf += more


def test_pause_words():
    tr = subprocess.Popen([t.TRACER, "--no-config", "-o", "jsonl:/dev/null", "--", SLEEPS, "40", "100000"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = Lines(tr.stderr)
    try:
        line = err.next()
        t.check(line.endswith("Ctrl-C to end."), "first line: %r" % line)
        tr.send_signal(signal.SIGUSR1)
        line = err.next()
        t.check(line == "cudatracer: paused: calls are not recorded until SIGUSR2", "SIGUSR1: %r" % line)
        tr.send_signal(signal.SIGUSR2)
        line = err.next()
        t.check(line == "cudatracer: resumed", "SIGUSR2: %r" % line)
    finally:
        tr.terminate()  # the command, 4 s of sleeps, goes on untraced and ends
        tr.wait(timeout=60)


def test_loss_live():
    # Long enough (4 s and more) to outlast the reader's 1 s tick on an idle machine.
    started = time.monotonic()
    p = subprocess.run([t.TRACER, "--no-config", "-o", "jsonl:/dev/null", "--ringbuf-size", "4096",
                        "-C", "tracer.wakeup_bytes=0", "--", t.program("cudart_loop_shared"), "600000"],
                       capture_output=True, text=True, timeout=240)
    took = time.monotonic() - started
    lines = p.stderr.splitlines()
    live = [i for i, l in enumerate(lines) if "being lost" in l]
    end = [i for i, l in enumerate(lines) if re.match(r"cudatracer: \d+ events, \d+ records lost", l)]
    t.check(p.returncode == 0 and live and end and live[-1] < end[0], p.stderr[-3000:])
    t.check(re.fullmatch(r"cudatracer: warning: records are being lost: \d+ so far did not fit in the ring "
                         r"buffer \(raise --ringbuf-size or \[tracer\] ringbuf_size\)", lines[live[0]]) and
            all(re.fullmatch(r"cudatracer: warning: records still being lost: \d+ so far, \d+ in the last \d+ s",
                             lines[i]) for i in live[1:]), p.stderr[-3000:])
    t.check(len(live) <= 1 + took / 5, "%d lines on loss in %.1f s:\n%s" % (len(live), took, p.stderr[-3000:]))


def test_sinks_gone():
    err = tempfile.TemporaryFile(mode="w+")
    started = time.monotonic()
    # The command's own output elsewhere: it must not die of the same broken pipe.
    tr = subprocess.Popen([t.TRACER, "--no-config", "--", "sh", "-c", "exec %s 50 100000 >/dev/null 2>&1" % SLEEPS],
                          stdout=subprocess.PIPE, stderr=err)
    try:
        head = tr.stdout.readline()
        tr.stdout.close()  # head -1
        rc = tr.wait(timeout=30)
    finally:
        tr.kill()
    took = time.monotonic() - started
    err.seek(0)
    text = err.read()
    t.check(head.startswith(b"TIME ") and rc == 1 and took < 4 and
            "cudatracer: error: every sink failed (a reader that went away, a full disk): tracing stops; "
            "the command goes on untraced\n" in text and
            "cudatracer: error: sink 'text' (text, -) failed: Broken pipe: what it wrote is incomplete\n" in text,
            "exit %d after %.1f s (the command takes 5 s):\n%s" % (rc, took, text[-3000:]))
    p = run(["-o", "jsonl:/dev/full"])
    t.check(p.returncode == 1 and "cudatracer: error: sink 'jsonl' (jsonl, /dev/full) failed: No space left on "
            "device: what it wrote is incomplete\n" in p.stderr, p.stderr)


def test_report_merge():
    tmp = tempfile.mkdtemp(prefix="cttest.")
    atexit.register(shutil.rmtree, tmp, True)
    trace, merged = os.path.join(tmp, "t.jsonl"), os.path.join(tmp, "m.json")
    p = run(["-o", "jsonl:" + trace], n=2)
    t.check(p.returncode == 0, p.stderr)
    p = subprocess.run([t.TRACER, "report", trace, "-C", "sink.summary.format=json", "-v"],
                       capture_output=True, text=True, timeout=60)
    t.check(p.returncode == 0 and json.loads(p.stdout)["calls"] == 2, "report -C: %d\n%s%s" %
            (p.returncode, p.stdout, p.stderr))
    p = subprocess.run([t.TRACER, "report", trace, "-C", "sink.summary"], capture_output=True, text=True, timeout=60)
    t.check(p.returncode == 2 and "-C sink.summary: expected SECTION.KEY=VALUE" in p.stderr, p.stderr)
    p = subprocess.run([t.TRACER, "merge", trace, "-v", "-o", "chrome:" + merged],
                       capture_output=True, text=True, timeout=60)
    t.check(p.returncode == 0, "merge -v: %d\n%s" % (p.returncode, p.stderr))
    with open(merged) as f:
        names = [e["args"]["name"] for e in json.load(f)["traceEvents"] if e.get("name") == "thread_name"]
    t.check(names == ["sleep_calls"], "merged thread names: %r" % names)


def as_nobody():
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def test_unprivileged_hint():
    need = ("cudatracer: error: cudatracer's eBPF engine loads BPF programs and uprobes: it needs root, or "
            "CAP_BPF and CAP_PERFMON (missing: CAP_BPF, CAP_PERFMON)\n")
    p = subprocess.run([t.TRACER, "--no-config", "--", "/bin/true"], capture_output=True, text=True, timeout=60,
                       preexec_fn=as_nobody)
    t.check(p.returncode == 2 and p.stderr == need +
            "cudatracer: error: trace the command in-process instead, with no privileges: cudatracer --engine "
            "inproc -- COMMAND (docs/engines.md)\n"
            "cudatracer: error: or give the binary the capabilities: sudo setcap cap_bpf,cap_perfmon+ep "
            "$(command -v cudatracer)\n", p.stderr)
    # -p: the in-process engine cannot attach to a running process.
    p = subprocess.run([t.TRACER, "--no-config", "-p", "1"], capture_output=True, text=True, timeout=60,
                       preexec_fn=as_nobody)
    t.check(p.returncode == 2 and p.stderr == need + "cudatracer: error: for example: sudo setcap "
            "cap_bpf,cap_perfmon+ep $(command -v cudatracer)\n", p.stderr)


def main():
    t.need_root()
    if not os.path.exists(SLEEPS):
        t.skip("sleep/sleep_calls was not built")
    test_plurals()
    test_launches_line()
    test_loss_advice()
    test_pause_words()
    test_loss_live()
    test_sinks_gone()
    test_report_merge()
    test_unprivileged_hint()
    print("test_cli_words: ok")


main()
