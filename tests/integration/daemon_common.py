# SPDX-License-Identifier: MIT
"""Shared by the daemon reload tests (not a test itself): a daemon started
with a config file of the test's own, tracing only the loop program's calls
(filter.comm) and holding no other process at exec (scan_execs = false), a
notify socket to hear READY=1 from, its log, and the loop program's runs."""
import atexit
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request

import cttest
from metrics_common import free_port  # noqa: F401 (the tests take it from here)

LOOP = "cudart_loop_shared"


def wait_for(fn, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.1)
    return fn()


def metrics(port):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5) as r:
            return r.read().decode()
    except OSError:
        return ""


def memsets(text, pid):
    m = re.search(r'cudatracer_calls_total\{api="cudaMemset",[^}]*pid="%d"[^}]*\} (\d+)' % pid, text)
    return int(m.group(1)) if m else None


def jsonl_memsets(path, pid, live=True):
    """The file's cudaMemset calls of pid. live: the daemon may be writing
    it, a last line without its line break is not there yet; else (stopped)
    every line must be one JSON object, the meta line first."""
    if not live:
        events = cttest.read_jsonl(path)
    else:
        with open(path) as f:
            lines = f.read().split("\n")[:-1]
        events = [json.loads(line) for line in lines if line]
    return sum(1 for e in events if e.get("pid") == pid and e.get("api") == "cudaMemset")


class Daemon:
    """cudatracer --daemon -c TMP/cudatracer.ini -v; stopped (SIGTERM, then
    SIGKILL) and its folder removed at exit whatever the test did."""

    def __init__(self, make_conf, comm=LOOP[:15]):
        """make_conf(daemon): the config's text (daemon.path() names files in its folder);
        comm: the only command name traced (filter.comm)."""
        cttest.need_root()
        self.loop = cttest.program(LOOP)
        self.tmp = tempfile.mkdtemp(prefix="ctdaemon.")
        self.conf = os.path.join(self.tmp, "cudatracer.ini")
        self.write(make_conf(self))
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(os.path.join(self.tmp, "notify"))
        # Read as systemd reads it, at once: the daemon's sendto waits while
        # the socket's queue (net.unix.max_dgram_qlen) is full.
        self.msgs = []
        threading.Thread(target=self.listen, daemon=True).start()
        self.log = open(os.path.join(self.tmp, "daemon.log"), "w+")  # noqa: SIM115
        argv = [cttest.TRACER, "--daemon", "-c", self.conf, "-v", "-C", "filter.comm=" + comm,
                "-C", "tracer.scan_execs=false"]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=self.log,
                                     env=dict(os.environ, NOTIFY_SOCKET=os.path.join(self.tmp, "notify")))
        atexit.register(self.cleanup)
        self.readies = 0
        self.ready()

    def cleanup(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.tmp, True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def write(self, text):
        with open(self.conf, "w") as f:
            f.write(text)

    def said(self):
        # Read through a descriptor of its own: the daemon writes to this
        # file's description, whose offset a seek here would move under it.
        with open(self.log.name) as f:
            return f.read()

    def listen(self):
        while True:
            self.msgs.append(self.notify.recv(200))

    def ready(self):
        """The next READY=1 not waited for yet."""
        self.readies += 1
        cttest.check(wait_for(lambda: self.msgs.count(b"READY=1") >= self.readies, 60), "no READY=1\n" + self.said())

    def settle(self, quiet=2):
        """Once no message came for `quiet` seconds: the last one."""
        n = -1
        while n != len(self.msgs):
            n = len(self.msgs)
            time.sleep(quiet)
        return self.msgs[-1] if self.msgs else None

    def reload(self, want):
        """SIGHUP, then wait for one more `want` in the log than there was."""
        n = self.said().count(want)
        self.proc.send_signal(signal.SIGHUP)
        cttest.check(wait_for(lambda: self.said().count(want) > n), "no %r after SIGHUP\n%s" % (want, self.said()))

    def run(self, n):
        """The loop program's n cudaMemset calls; its pid."""
        p = subprocess.Popen([self.loop, str(n)], stdout=subprocess.PIPE, text=True)
        out, _ = p.communicate(timeout=60)
        cttest.check(p.returncode == 0 and "loop: %d calls" % n in out,
                     "%s %d: %d %r" % (self.loop, n, p.returncode, out))
        return p.pid

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=60)
        cttest.check(rc == 0, "daemon exit %d\n%s" % (rc, self.said()))
