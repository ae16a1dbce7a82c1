#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The metric sinks when the network is against them: a port in use, an
endpoint that refuses connections, one that never answers, one that answers
5xx (retried with back-off), 4xx (dropped, not retried) or fails and then
recovers. Each time: one clear message, what could not be sent counted at
the end, and tracing goes on (exit 0, every call in the jsonl sink)."""
import os
import re
import socket
import subprocess
import time

import cttest
import metrics_common as mc


def run(tmp, name, sink, prog, hold=0):
    conf = os.path.join(tmp, name + ".ini")
    jsonl = os.path.join(tmp, name + ".jsonl")
    with open(conf, "w") as f:
        f.write(sink + "\n[sink.events]\ntype = jsonl\npath = %s\n" % jsonl)
    command = ["sh", "-c", "%s; sleep %d" % (prog, hold)] if hold else [prog]
    t0 = time.time()
    p = subprocess.run([cttest.TRACER, "-c", conf, "--plugin", "cudart", "--"] + command,
                       capture_output=True, text=True, timeout=120)
    t = cttest.Trace(p.returncode, p.stdout, p.stderr, cttest.read_jsonl(jsonl), tmp)
    t.wall = time.time() - t0
    cttest.check(p.returncode == 0, "%s: tracer exited %d" % (name, p.returncode), t)
    cttest.check(mc.count_apis(t.events) == mc.CUDART_CALLS, "%s: tracing did not go on: %r" %
                 (name, mc.count_apis(t.events)), t)
    return t


def rw(url, timeout="2s"):
    return "[sink.rw]\ntype = remote_write\nurl = %s\ninterval = 1s\ntimeout = %s\n" % (url, timeout)


def lost_report(t, url):
    m = re.search(r"sink 'rw' \(remote_write\): (\d+) batch(?:es)? \((\d+) samples\) could not be sent to %s; "
                  r"last error: (.*)" % re.escape(url), t.stderr)
    cttest.check(m and int(m.group(1)) > 0 and int(m.group(2)) > 0, "no report of what was lost", t)
    return m.group(3)


def port_in_use(tmp, prog):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    try:
        t = run(tmp, "busy", "[sink.prom]\ntype = prometheus\nlisten = 127.0.0.1:%d\n" % port, prog)
    finally:
        busy.close()
    cttest.check(("sink 'prom' (prometheus): cannot listen on 127.0.0.1:%d: Address already in use; "
                  "tracing goes on, the address is tried again every 10 s" % port) in t.stderr, "message", t)
    cttest.check("sink 'prom' (prometheus): never served: 127.0.0.1:%d could not be listened on" % port
                 in t.stderr, "final word", t)


def refused(tmp, prog):
    url = "http://127.0.0.1:%d/api/v1/write" % mc.free_port()
    t = run(tmp, "refused", rw(url), prog, hold=2)
    cttest.check(re.search(r"sink 'rw' \(remote_write\): cannot push to %s: Couldn't connect to server; "
                           r"retrying with back-off \(up to 30 s\); tracing goes on" % re.escape(url), t.stderr),
                 "refused: message", t)
    cttest.check(t.stderr.count("cannot push to") == 1, "said once", t)
    cttest.check(lost_report(t, url) == "Couldn't connect to server", "last error", t)


def never_answers(tmp, prog):
    mute = socket.socket()
    mute.bind(("127.0.0.1", 0))
    mute.listen(8)  # connections complete in the kernel; nobody reads or answers
    url = "http://127.0.0.1:%d/api/v1/write" % mute.getsockname()[1]
    try:
        t = run(tmp, "mute", rw(url, timeout="1s"), prog)
    finally:
        mute.close()
    cttest.check("cannot push to %s: Timeout was reached" % url in t.stderr, "timeout: message", t)
    cttest.check(lost_report(t, url) == "Timeout was reached", "last error", t)
    cttest.check(t.wall < 30, "the end waited %.1f s on a mute endpoint" % t.wall, t)


def against(tmp, name, answers, prog, hold, body=b"bad samples"):
    """A run pushing to an endpoint that answers `answers` in turn."""
    ep = mc.Endpoint(answers, body)
    url = "http://127.0.0.1:%d/api/v1/write" % ep.port
    try:
        return run(tmp, name, rw(url), prog, hold=hold), ep, url
    finally:
        ep.stop()


def server_errors(tmp, prog):
    t, ep, url = against(tmp, "503", [503], prog, 3)
    cttest.check("cannot push to %s: HTTP 503: bad samples; retrying with back-off" % url in t.stderr,
                 "5xx: message", t)
    cttest.check(len(ep.requests) >= 3, "5xx: retried %d times" % len(ep.requests), t)
    cttest.check(lost_report(t, url) == "HTTP 503: bad samples", "last error", t)


def client_errors(tmp, prog):
    t, ep, url = against(tmp, "400", [400], prog, 2)
    cttest.check(re.search(r"sink 'rw' \(remote_write\): %s refused a batch \(\d+ samples\): HTTP 400: bad "
                           r"samples; it is dropped \(a 4xx is not retried\); tracing goes on" % re.escape(url),
                           t.stderr), "4xx: message", t)
    m = re.search(r"(\d+) batches \(\d+ samples\) could not be sent", t.stderr)
    # not retried: one request per batch, each refused
    cttest.check(m and int(m.group(1)) == len(ep.requests), "4xx: %d requests, report %r" %
                 (len(ep.requests), m and m.group(0)), t)


def recovers(tmp, prog):
    t, ep, url = against(tmp, "recovers", [500, 204], prog, 2, body=b"")
    cttest.check("cannot push to %s: HTTP 500; retrying" % url in t.stderr, "recovers: message", t)
    cttest.check("pushes to %s go through again (1 failed so far)" % url in t.stderr, "recovered", t)
    cttest.check("could not be sent" not in t.stderr, "nothing lost", t)


def main():
    cttest.need_root()
    prog = cttest.program("cudart_calls_shared")
    tmp = mc.tmpdir()
    for case in (port_in_use, refused, never_answers, server_errors, client_errors, recovers):
        case(tmp, prog)
        print("ok: " + case.__name__)


main()
