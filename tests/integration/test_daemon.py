#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Daemon mode, run as the systemd unit runs it (its ExecStart's arguments,
its capability bounding set, a notify socket of our own): READY=1 once
tracing; a config with an unknown key, and one whose sink cannot open, are
refused at SIGHUP with file:line and the running session goes on (same
listener, same counts); a good one is taken (RELOADING=1, READY=1), the
finished jsonl file is complete; SIGTERM stops it cleanly (STOPPING=1, exit
0, every output complete, nothing on stdout). Refused at the start: a sink
on standard output, a command."""
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import cttest
from daemon_common import memsets, metrics, wait_for

UNIT = os.path.join(cttest.BUILD, "packaging", "cudatracer.service")


def unit_field(name):
    with open(UNIT) as f:
        return [line.split("=", 1)[1].strip() for line in f if line.startswith(name + "=")]


def run(loop, n):
    """The program's N calls; its pid."""
    p = subprocess.Popen([loop, str(n)], stdout=subprocess.PIPE, text=True)
    out, _ = p.communicate(timeout=60)
    cttest.check(p.returncode == 0 and "loop: %d calls" % n in out, "%s %d: %d %r" % (loop, n, p.returncode, out))
    return p


def main():
    cttest.need_root()
    loop = cttest.program("cudart_loop_shared")
    tmp = tempfile.mkdtemp(prefix="ctdaemon.")
    conf = os.path.join(tmp, "cudatracer.ini")
    port = 19000 + os.getpid() % 5000

    def write_conf(jsonl, extra=""):
        with open(conf, "w") as f:
            f.write("[sink.metrics]\ntype = prometheus\nlisten = 127.0.0.1:%d\n\n[sink.calls]\ntype = jsonl\n"
                    "path = %s\n%s" % (port, jsonl, extra))

    # Refused at the start: nothing for a daemon to write calls to but stdout, or a command.
    for args, want in ((["-o", "text"], "writes to standard output"), (["-o", "jsonl:-"], "writes to standard output"),
                       (["-o", "prometheus", "--", "true"], "runs no command")):
        p = subprocess.run([cttest.TRACER, "--no-config", "--daemon"] + args, capture_output=True, text=True, timeout=60)
        cttest.check(p.returncode == 2 and want in p.stderr, "%r: exit %d %s" % (args, p.returncode, p.stderr))

    # The unit's ExecStart, with this build's binary and our config; its capabilities alone.
    exec_start = unit_field("ExecStart")[0].split()
    cttest.check(exec_start[1:] == ["--daemon", "-c", "/etc/cudatracer/cudatracer.ini"] or
                 exec_start[1:3] == ["--daemon", "-c"], "ExecStart %r" % exec_start)
    argv = [cttest.TRACER] + exec_start[1:-1] + [conf, "-v"]
    caps = [c.lower() for c in unit_field("CapabilityBoundingSet")[0].split()]
    have = subprocess.run(["capsh", "--print"], capture_output=True, text=True).stdout if shutil.which("capsh") else ""
    bounding = re.search(r"Bounding set =(\S+)", have)
    if bounding:
        drop = [c for c in bounding.group(1).split(",") if c not in caps]
        argv = ["capsh", "--drop=" + ",".join(drop), "--", "-c", 'exec "$0" "$@"'] + argv
    write_conf(os.path.join(tmp, "calls.jsonl"))
    sock_path = os.path.join(tmp, "notify")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(sock_path)
    notify.settimeout(60)
    log = open(os.path.join(tmp, "daemon.log"), "w+")  # noqa: SIM115
    d = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=log, env=dict(os.environ, NOTIFY_SOCKET=sock_path))

    def said():
        log.seek(0)
        return log.read()

    try:
        cttest.check(notify.recv(100) == b"READY=1", "no READY=1\n" + said())
        p1 = run(loop, 7)
        got = wait_for(lambda: memsets(metrics(port), p1.pid) == 7)
        cttest.check(got, "7 calls of pid %d not in /metrics\n%s" % (p1.pid, said()))

        # Refused: an unknown key (at its line), a sink whose folder is not there.
        with open(conf, "a") as f:
            f.write("[tracer]\nbogus = 1\n")
        d.send_signal(signal.SIGHUP)
        cttest.check(wait_for(lambda: "reload refused" in said()), said())
        cttest.check("%s:9: unknown key 'bogus' in [tracer]" % conf in said(), said())
        write_conf(os.path.join(tmp, "no", "such", "calls.jsonl"))
        d.send_signal(signal.SIGHUP)
        cttest.check(wait_for(lambda: said().count("reload refused") == 2), said())
        cttest.check(re.search(r"%s:5: sink 'calls' \(jsonl\): cannot open .*no/such/calls.jsonl for writing: "
                               r"No such file or directory" % re.escape(conf), said()), said())
        # A link planted at the new path, owned by another user, to a file that
        # is not there: the reload creates nothing through it (as root, a check
        # that opened the path to create it would make the victim file).
        victim = os.path.join(tmp, "victim.txt")
        planted = os.path.join(tmp, "planted.jsonl")
        os.symlink(victim, planted)
        os.lchown(planted, 65534, 65534)
        write_conf(planted)
        d.send_signal(signal.SIGHUP)
        cttest.check(wait_for(lambda: said().count("reload refused") == 3), said())
        cttest.check(re.search(r"cannot open .*planted.jsonl for writing: Operation not permitted", said()), said())
        time.sleep(1)
        cttest.check(not os.path.exists(victim), "the reload created %s through a planted link\n%s" % (victim, said()))
        # A folder named as the sink's file: refused, as the session would.
        os.mkdir(os.path.join(tmp, "adir"))
        write_conf(os.path.join(tmp, "adir"))
        d.send_signal(signal.SIGHUP)
        cttest.check(wait_for(lambda: said().count("reload refused") == 4), said())
        cttest.check(re.search(r"cannot open .*adir for writing: Is a directory", said()), said())
        # The check opens nothing for writing: a FIFO with a reader, named as
        # the first sink of a config refused for its second, sees no writer
        # come and go (the reader's poll reports POLLHUP once one has).
        fifo = os.path.join(tmp, "calls.fifo")
        os.mkfifo(fifo)
        rd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            write_conf(fifo, "\n[sink.more]\ntype = jsonl\npath = %s\n" % os.path.join(tmp, "no", "such", "x.jsonl"))
            d.send_signal(signal.SIGHUP)
            cttest.check(wait_for(lambda: said().count("reload refused") == 5), said())
            cttest.check(re.search(r"sink 'more' \(jsonl\): cannot open .*no/such/x.jsonl", said()), said())
            poll = select.poll()
            poll.register(rd, select.POLLIN)
            events = poll.poll(0)
            cttest.check(not any(ev & select.POLLHUP for _, ev in events),
                         "the reload's check opened the FIFO for writing: %r" % events)
        finally:
            os.close(rd)
        write_conf(os.path.join(tmp, "no", "such", "calls.jsonl"))
        # ... and the running session went on: the same listener, the same counts, new calls.
        p2 = run(loop, 5)
        text = wait_for(lambda: (lambda t: memsets(t, p2.pid) == 5 and t)(metrics(port)))
        cttest.check(text and memsets(text, p1.pid) == 7, "after refusals:\n%s\n%s" % (text, said()))

        # Taken: another file; the first is complete, with the calls made so far.
        write_conf(os.path.join(tmp, "calls2.jsonl"))
        d.send_signal(signal.SIGHUP)
        cttest.check(notify.recv(200).startswith(b"RELOADING=1\nMONOTONIC_USEC="), said())
        cttest.check(notify.recv(100) == b"READY=1", "no READY=1 after the reload\n" + said())
        first = cttest.read_jsonl(os.path.join(tmp, "calls.jsonl"))
        by_pid = {}
        for e in first:
            by_pid[e["pid"]] = by_pid.get(e["pid"], 0) + (e["api"] == "cudaMemset")
        cttest.check(by_pid.get(p1.pid) == 7 and by_pid.get(p2.pid) == 5, "first file %r" % by_pid)
        p3 = run(loop, 3)
        cttest.check(wait_for(lambda: memsets(metrics(port), p3.pid) == 3), said())
    finally:
        d.send_signal(signal.SIGTERM)
        rc = d.wait(timeout=60)
    out = d.stdout.read()
    cttest.check(rc == 0 and out == b"", "exit %d, stdout %r\n%s" % (rc, out[:200], said()))
    cttest.check(notify.recv(100) == b"STOPPING=1", said())
    second = [e for e in cttest.read_jsonl(os.path.join(tmp, "calls2.jsonl")) if e["pid"] == p3.pid]
    cttest.check(len(second) == 3 and all(e["api"] == "cudaMemset" for e in second), "second file %r" % second)
    with open(os.path.join(tmp, "calls2.jsonl")) as f:
        for line in f:
            json.loads(line)
    print("ok: daemon mode refuses bad configs, reloads good ones, stops cleanly")


if __name__ == "__main__":
    main()
