#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A reload is refused for any value the new session could not start with,
said with the config file, the key's line and the reason, and the running
session goes on untouched: its jsonl keeps every line, its /metrics the same
listener and counts. Values: a prometheus sink's listen address that is not
ADDR:PORT (`listen = nonsense`, once accepted: the new session failed, the
old one was started again and emptied its jsonl), a port past 65535, an otlp
endpoint that is not an http(s) URL, an interval of 0, a remote_write sink
without its url (checked once the new session opened it, before)."""
import cttest
from daemon_common import Daemon, free_port, jsonl_memsets, memsets, metrics, wait_for

PORT = free_port()


def conf(d, listen="127.0.0.1:%d" % PORT, extra=""):
    return ("[sink.metrics]\ntype = prometheus\nlisten = %s\n\n[sink.calls]\ntype = jsonl\npath = %s\n%s"
            % (listen, d.path("calls.jsonl"), extra))


def main():
    d = Daemon(conf)
    p1 = d.run(7)
    cttest.check(wait_for(lambda: memsets(metrics(PORT), p1) == 7), "7 calls not served\n" + d.said())
    calls = d.path("calls.jsonl")
    cttest.check(wait_for(lambda: jsonl_memsets(calls, p1) == 7), "7 calls not written\n" + d.said())
    for text, line, want in (
            (conf(d, "nonsense"), 3, "bad value 'nonsense' for sink.metrics.listen: not ADDR:PORT"),
            (conf(d, "127.0.0.1:70000"), 3, "bad value '127.0.0.1:70000' for sink.metrics.listen: not ADDR:PORT"),
            (conf(d, extra="\n[sink.push]\ntype = otlp\nendpoint = ftp://127.0.0.1:4318\n"), 11,
             "bad value 'ftp://127.0.0.1:4318' for sink.push.endpoint: not an http:// or https:// URL"),
            (conf(d, extra="\n[sink.push]\ntype = otlp\ninterval = 0s\n"), 11,
             "bad value '0s' for sink.push.interval: must be more than 0"),
            (conf(d, extra="\n[sink.rw]\ntype = remote_write\n"), 9,
             "sink 'rw' (remote_write) needs url: The remote-write endpoint")):
        d.write(text)
        d.reload("reload refused")
        cttest.check("%s:%d: %s" % (d.conf, line, want) in d.said(), "want %r\n%s" % (want, d.said()))
        cttest.check(jsonl_memsets(calls, p1) == 7, "the running session's jsonl lost its calls\n" + d.said())
    p2 = d.run(5)
    text = wait_for(lambda: (lambda t: memsets(t, p2) == 5 and t)(metrics(PORT)))
    cttest.check(text and memsets(text, p1) == 7, "after the refusals, /metrics:\n%s\n%s" % (text, d.said()))
    d.stop()
    cttest.check([jsonl_memsets(calls, p, live=False) for p in (p1, p2)] == [7, 5],
                 "the jsonl after the refusals\n" + d.said())
    cttest.check("started again" not in d.said(), d.said())
    print("ok: reloads with bad values are refused at their line; the running session goes on")


if __name__ == "__main__":
    main()
