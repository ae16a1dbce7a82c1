#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The prometheus sink against slow clients: any local user can connect to
the metrics port. 70 connections from 127.0.0.1, each sending a byte of a
request every second and never finishing it, do not hold up a scrape from
another local address (127.0.0.2): one address gets 8 connections, and a
connection whose request is not answered within 10 s of its start is cut,
however often it sends a byte. Before, the server's 64 connections were all
the slow ones', whose time-out each byte renewed, and no scrape was answered
while they lasted."""
import http.client
import re
import socket
import time

import cttest
import metrics_common as mc

SLOW = 70
PER_ADDR = 8
BOUND = 10
REQUEST = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: " + b"x" * 200


class Slow:
    """A connection that trickles REQUEST a byte at a time."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.1", 0))
        self.s.setblocking(False)
        self.t0, self.sent, self.closed = time.time(), 0, None

    def step(self):
        """One more byte; the time the server closed it, once it has."""
        if self.closed is None:
            try:
                if self.s.recv(4096, socket.MSG_DONTWAIT) == b"":
                    self.closed = time.time() - self.t0
            except BlockingIOError:
                pass
            except OSError:
                self.closed = time.time() - self.t0
        if self.closed is None:
            try:
                self.s.send(REQUEST[self.sent:self.sent + 1])
                self.sent += 1
            except OSError:
                self.closed = time.time() - self.t0
        return self.closed


def scrape(port):
    """GET /metrics from 127.0.0.2: (status, body, seconds)."""
    t0 = time.time()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=3, source_address=("127.0.0.2", 0))
    try:
        c.request("GET", "/metrics")
        r = c.getresponse()
        return r.status, r.read().decode(), time.time() - t0
    except OSError as e:
        return None, "%s" % e, time.time() - t0
    finally:
        c.close()


def main():
    cttest.need_root()
    prog = cttest.program("cudart_calls_shared")
    tmp = mc.tmpdir()
    t = mc.HeldTracer(tmp, "[sink.prom]\ntype = prometheus\nlisten = 127.0.0.1:0\n", prog)
    slow = []
    try:
        line = t.read_err_until("(prometheus): serving at ")
        port = int(re.search(r"serving at http://127\.0\.0\.1:(\d+)/metrics", line).group(1))
        t.wait_stdout("cudart_calls: done")
        slow = [Slow(port) for _ in range(SLOW)]
        for _ in range(3):
            time.sleep(1)
            for s in slow:
                s.step()

        status, body, took = scrape(port)
        cttest.check(status == 200 and body.startswith("# HELP cudatracer_"),
                     "a scrape from 127.0.0.2 beside %d slow connections: %r %r after %.1f s" %
                     (SLOW, status, body[:200], took))
        cttest.check(took < 2, "the scrape took %.1f s" % took)
        held = [s for s in slow if s.closed is None]
        cttest.check(len(held) == PER_ADDR, "%d connections from one address held, not %d" %
                     (len(held), PER_ADDR))

        # Each byte would renew an idle time-out: the bound is on the whole request.
        deadline = time.time() + BOUND + 10
        while time.time() < deadline and any(s.closed is None for s in held):
            time.sleep(1)
            for s in held:
                s.step()
        times = sorted(s.closed for s in held if s.closed is not None)
        cttest.check(len(times) == PER_ADDR and times[0] >= BOUND - 1 and times[-1] <= BOUND + 3,
                     "the held connections were closed after %r s (and %d still open after %d s)" %
                     (times, PER_ADDR - len(times), BOUND + 10))
        status, body, took = scrape(port)
        cttest.check(status == 200, "a scrape afterwards: %r %r" % (status, body[:200]))
        tr = t.release()
        cttest.check(tr.rc == 0, "tracer exited %d" % tr.rc, tr)
        cttest.check("sink 'prom' (prometheus): %d connections cut: no request answered within %d s" %
                     (PER_ADDR, BOUND) in tr.stderr, "the cut connections are said", tr)
    finally:
        for s in slow:
            s.s.close()
        t.kill()


main()
