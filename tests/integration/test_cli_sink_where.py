# SPDX-License-Identifier: MIT
"""-o TYPE:WHERE: WHERE is a file for the file and text sinks, and for the
metric sinks the address to serve at (prometheus) or the URL to push to
(remote_write, otlp), never a file of that name. --help lists every sink
type with what its WHERE is, and a prometheus sink says where it serves
without -v."""
import os
import re
import socket
import subprocess
import tempfile

import cttest as t

TYPES = ("text", "jsonl", "summary", "csv", "chrome", "memory", "html", "prometheus", "remote_write", "otlp",
         "sqlite")


def run(args, cwd):
    return subprocess.run([t.TRACER, "--no-config"] + args, capture_output=True, text=True, timeout=60, cwd=cwd)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    t.need_root()
    help_ = subprocess.run([t.TRACER, "--help"], capture_output=True, text=True, timeout=30).stdout
    rows = re.findall(r"^  (\w+)(\[?:[A-Z:]+\]?)  +(.*)$", help_.split("Sink types", 1)[-1], re.M)
    t.check([r[0] for r in rows] == list(TYPES), "--help's sink types: %r\n%s" % (rows, help_))
    t.check("  prometheus[:ADDR:PORT]  serve metrics at http://ADDR:PORT/metrics\n"
            "                         (sets listen; default 127.0.0.1:9464)\n" in help_, help_)
    t.check("  remote_write:URL       push metrics to this Prometheus remote-write URL\n"
            "                         (sets url; required)\n" in help_, help_)
    t.check("  otlp[:URL]             export metrics to this OTLP/HTTP collector\n"
            "                         (sets endpoint; default http://127.0.0.1:4318)\n" in help_, help_)
    t.check("  jsonl[:FILE]           one JSON object per call, one per line\n" in help_, help_)

    # prometheus: the address given is the one served, said at the start; no file.
    tmp = tempfile.mkdtemp()
    port = free_port()
    p = run(["-o", "prometheus:127.0.0.1:%d" % port, "--", "/bin/true"], tmp)
    t.check(p.returncode == 0, "exit %d\n%s" % (p.returncode, p.stderr))
    t.check("cudatracer: sink 'prometheus' (prometheus): serving at http://127.0.0.1:%d/metrics\n" % port
            in p.stderr, p.stderr)
    t.check(os.listdir(tmp) == [], "files made in the current folder: %r" % os.listdir(tmp))

    # remote_write and otlp: the URL is pushed to (here a closed port), not opened as a file.
    for typ, url, sent in (("remote_write", "http://127.0.0.1:%d/api/v1/write" % port, "http://127.0.0.1:%d/api/v1/write"),
                           ("otlp", "http://127.0.0.1:%d" % port, "http://127.0.0.1:%d/v1/metrics")):
        p = run(["-o", "%s:%s" % (typ, url), "-C", "sink.%s.timeout=1s" % typ, "--", "/bin/true"], tmp)
        t.check("sink '%s' (%s): cannot push to %s: " % (typ, typ, sent % port) in p.stderr,
                "-o %s:%s: exit %d\n%s" % (typ, url, p.returncode, p.stderr))
        t.check("cannot open" not in p.stderr and os.listdir(tmp) == [],
                "-o %s:%s: %r\n%s" % (typ, url, os.listdir(tmp), p.stderr))
    print("test_cli_sink_where: ok")


main()
