#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Capture requests to the daemon (docs/daemon.md): `cudatracer capture -p
PID --duration D -o FILE` over the root-only control socket.

A daemon with its control socket in the test's folder. Malformed requests
sent on the socket by hand (not a request, an unknown key, a missing key,
more than 4096 bytes, a request that never ends) each get an error reply
and change nothing; requests from uid 65534 are refused, by the folder's
mode, and with CAP_DAC_OVERRIDE kept (through the folder) by the daemon's
SO_PEERCRED check; a file that exists, a folder anyone may write to and
--gpu-activity are refused with their reason. Then a capture of the phases
program for 3 s: the client sees the run's lines and "capture written to
FILE"; the file is valid jsonl, root's, 0600, and holds exactly the calls of
phase 1 (inside the window) of that process alone: another program's
calls in the same window, which the daemon traces, are not in it, nor
phase 2, made after the window. The daemon stops cleanly after it all.
"""
import os
import socket
import stat
import subprocess
import time

import cttest as t
from daemon_common import Daemon
from lines_common import Lines, ended_at_exit

PHASES = t.program("cudart_phases_shared")
LOOP = t.program("cudart_loop_shared")
WINDOW_S = 3


def conf(d):
    return ("[tracer]\ncontrol_socket = %s\n\n[sink.calls]\ntype = jsonl\npath = %s\n"
            % (d.path("ctl/control.sock"), d.path("calls.jsonl")))


def raw(sock, data, wait=15):
    """Send bytes on the control socket; the daemon's reply, whole."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(wait)
    s.connect(sock)
    s.sendall(data)
    got = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        got += chunk
    s.close()
    return got.decode()


def capture(sock, args, user=()):
    return subprocess.run(list(user) + [t.TRACER, "capture", "--socket", sock] + args, capture_output=True,
                          text=True, timeout=60)


def malformed(d, sock):
    for data, want in ((b"garbage\n\n", "expected 'capture' on the first line"),
                       (b"capture\npid=1\nduration=1s\noutput=/tmp/x\ncolour=red\n\n", "unknown key 'colour'"),
                       (b"capture\npid=1\nduration=1s\n\n", "output not given"),
                       (b"capture\npid=1\nduration=10\noutput=/tmp/x\n\n", "expected 1ms to 24h"),
                       (b"capture\n" + b"x" * 5000, "at most 4096 bytes"),
                       (b"capture\npid=1\n", "did not come whole in time")):
        reply = raw(sock, data)
        t.check(reply.startswith("error ") and want in reply and reply.count("\n") == 1,
                "request %r: reply %r, want an error line with %r\n%s" % (data[:60], reply, want, d.said()))
    t.check(d.proc.poll() is None, "the daemon ended after malformed requests\n" + d.said())


def refusals(d, sock, pid):
    out = d.path("never.jsonl")
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    p = capture(sock, ["-p", str(pid), "--duration", "1s", "-o", out], nobody)
    t.check(p.returncode == 1 and "only root may ask for a capture" in p.stderr, "uid 65534: %d %r" %
            (p.returncode, p.stderr))
    # Through the folder all the same: the daemon's own check says no.
    p = capture(sock, ["-p", str(pid), "--duration", "1s", "-o", out],
                nobody + ["--inh-caps=+dac_override", "--ambient-caps=+dac_override"])
    t.check(p.returncode == 1 and "only root may ask for a capture (PID" in p.stderr and "is uid 65534)" in p.stderr,
            "uid 65534 with CAP_DAC_OVERRIDE: %d %r\n%s" % (p.returncode, p.stderr, d.said()))
    t.check(not os.path.exists(out), "a refused request made its file")
    taken = d.path("taken.jsonl")
    open(taken, "w").close()
    shared = d.path("shared")
    os.mkdir(shared)
    os.chmod(shared, 0o777)
    for args, want in ((["-o", taken], "it exists"), (["-o", os.path.join(shared, "c.jsonl")], "not sticky"),
                       (["-o", d.path("g.jsonl"), "--gpu-activity"], "needs a command"),
                       (["-o", d.path("n.jsonl"), "-p", "999999"], "no process 999999")):
        p = capture(sock, ["-p", str(pid), "--duration", "1s"] + args)
        t.check(p.returncode == 1 and want in p.stderr + d.said(), "%r: %d %r" % (args, p.returncode, p.stderr))
    t.check(os.path.getsize(taken) == 0 and not os.listdir(shared), "a refused request wrote a file")


def window(d, sock):
    prog = subprocess.Popen([PHASES, "3", "4"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    other = subprocess.Popen([LOOP, "5", "wait"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    ended_at_exit(prog, other)
    stdout, other_out = Lines(prog.stdout), Lines(other.stdout)
    pid = int(stdout.until(r"^ready \d+").split()[1])
    other_out.until(r"^ready \d+")
    out = d.path("cap.jsonl")
    cl = subprocess.Popen([t.TRACER, "capture", "--socket", sock, "-p", str(pid), "--duration", "%ds" % WINDOW_S,
                           "-o", "cap.jsonl"], cwd=d.tmp, stderr=subprocess.PIPE)
    ended_at_exit(cl)
    err = Lines(cl.stderr)
    err.until(r"daemon: Tracing .* in PID %d\." % pid)
    began = time.time()
    prog.stdin.write(b"go\n")
    prog.stdin.flush()
    stdout.until(r"^phase 1 done")
    other.stdin.write(b"go\n")  # another process's calls, in the window
    other.stdin.flush()
    other_out.until(r"^loop: 5 calls")
    err.until(r"capture written to %s$" % out, timeout=WINDOW_S + 30)
    rc = cl.wait(timeout=30)
    took = time.time() - began
    t.check(rc == 0 and WINDOW_S - 0.5 <= took <= WINDOW_S + 10, "client exit %d after %.1f s\n%s" %
            (rc, took, err.rest()))
    prog.stdin.write(b"go\n")  # after the window
    prog.stdin.flush()
    stdout.until(r"^phase 2 done")
    prog.stdin.close()
    other.stdin.close()
    prog.wait(timeout=30)
    other.wait(timeout=30)
    head, events = t.read_jsonl(out, meta=True)
    st = os.stat(out)
    t.check(head and st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o600, "the file: meta %r, uid %d, mode %o" %
            (head, st.st_uid, stat.S_IMODE(st.st_mode)))
    got = [e["args"]["count"] for e in events if e.get("api") == "cudaMemset"]
    t.check(got == [1000, 1001, 1002] and all(e.get("pid") == pid for e in events),
            "capture of PID %d: %r\n%s" % (pid, [(e.get("pid"), e.get("api")) for e in events], d.said()))
    t.check("capture 1: PID %d" % pid in d.said() and "written to %s" % out in d.said(), "the log\n" + d.said())


def main():
    d = Daemon(conf)
    sock = d.path("ctl/control.sock")
    st = os.stat(os.path.dirname(sock))
    t.check(st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o700 and
            stat.S_IMODE(os.stat(sock).st_mode) == 0o600, "the socket's folder or the socket is not root's alone")
    malformed(d, sock)
    refusals(d, sock, os.getpid())
    window(d, sock)
    d.stop()
    t.check(not os.path.exists(sock), "the socket was left behind")
    print("ok: capture requests")


if __name__ == "__main__":
    main()
