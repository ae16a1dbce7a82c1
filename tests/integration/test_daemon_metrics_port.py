#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The metrics port is never let go during a reload: with the same listen
address the listening socket goes from the old session's sink to the new
one's, so another local user binding the port in a loop throughout a
reload never gets it, and /metrics is the daemon's after it; with a new
address the new one is bound before the old one is closed, and the old one
is closed once the new session serves. Before, the port was closed and
bound again at each reload, and anyone could take it in between and answer
the scrapes."""
import errno
import socket
import threading

import cttest
from daemon_common import Daemon, free_port, memsets, metrics, wait_for

PORT, PORT2 = free_port(), free_port()


def conf(d, port=PORT):
    return ("[sink.metrics]\ntype = prometheus\nlisten = 127.0.0.1:%d\n\n[sink.calls]\ntype = jsonl\npath = %s\n"
            % (port, d.path("calls.jsonl")))


class Squatter:
    """Binds PORT in a loop, as another local user could, until stopped."""

    def __init__(self):
        self.got, self.stop, self.tries = None, False, 0
        self.t = threading.Thread(target=self.loop)
        self.t.start()

    def loop(self):
        while not self.stop and not self.got:
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", PORT))
                s.listen(8)
                self.got = s
            except OSError as e:
                cttest.check(e.errno == errno.EADDRINUSE, "bind: %s" % e)
                s.close()
            self.tries += 1

    def end(self):
        self.stop = True
        self.t.join()
        if self.got:
            self.got.close()
        return self.got is None


def main():
    d = Daemon(conf)
    p1 = d.run(7)
    cttest.check(wait_for(lambda: memsets(metrics(PORT), p1) == 7), "7 calls not served\n" + d.said())
    sq = Squatter()
    try:
        for _ in range(3):
            d.reload("reload: the new configuration is valid")
            d.ready()
    finally:
        kept = sq.end()
    cttest.check(kept, "port %d was taken by another socket during a reload (%d binds tried)\n%s" %
                 (PORT, sq.tries, d.said()[-3000:]))
    cttest.check(sq.tries > 100, "the squatter tried %d binds" % sq.tries)
    p2 = d.run(5)
    cttest.check(wait_for(lambda: memsets(metrics(PORT), p2) == 5), "5 calls not served\n" + d.said()[-3000:])
    cttest.check(memsets(metrics(PORT), p1) is None, "the counters start anew at a reload")

    # Another address: the new port serves, the old one is closed.
    d.write(conf(d, PORT2))
    d.reload("reload: the new configuration is valid")
    d.ready()
    p3 = d.run(3)
    cttest.check(wait_for(lambda: memsets(metrics(PORT2), p3) == 3), "3 calls not served on the new port\n" +
                 d.said()[-3000:])
    s = socket.socket()
    cttest.check(s.connect_ex(("127.0.0.1", PORT)) == errno.ECONNREFUSED, "the old port still listens")
    s.close()
    d.stop()
    print("ok: the metrics port is kept across reloads (%d binds tried), moved without a gap" % sq.tries)


if __name__ == "__main__":
    main()
