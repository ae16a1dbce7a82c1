# SPDX-License-Identifier: MIT
"""Two push sinks (remote_write and otlp) whose endpoints accept and never
answer: the tracer's stop takes one timeout in all, not two a sink one
after the other (the flush deadline, then a request begun just before it).
Each says what it could not send. The bound is the code's promise, asserted
loosely: under 1.6 times the timeout."""
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time

import cttest as t

TIMEOUT_S = 2


def silent_server():
    """A loopback port that takes connections and never answers; (port, sockets kept)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    held = []

    def accept():
        while True:
            try:
                held.append(srv.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    return srv, held


def main():
    t.need_root()
    rw, otel = silent_server(), silent_server()
    tmp = tempfile.mkdtemp(prefix="cttest.")
    conf = os.path.join(tmp, "push.ini")
    with open(conf, "w") as f:
        f.write("[tracer]\nscan_execs = false\n[filter]\ncomm = ct-no-such-comm\n"
                "[sink.rw]\ntype = remote_write\nurl = http://127.0.0.1:%d/api/v1/write\ninterval = 1s\ntimeout = %ds\n"
                "[sink.otel]\ntype = otlp\nendpoint = http://127.0.0.1:%d/\ninterval = 1s\ntimeout = %ds\n"
                % (rw[0].getsockname()[1], TIMEOUT_S, otel[0].getsockname()[1], TIMEOUT_S))
    tp = subprocess.Popen([t.TRACER, "-v", "-c", conf, "--plugin", "cudart"], stderr=subprocess.PIPE, text=True)
    lines = t.wait_tracing(tp)
    # Both sinks' first pushes are under way, hung, when the stop comes.
    time.sleep(1.5)
    t.check(rw[1] and otel[1], "the sinks did not connect: %d, %d" % (len(rw[1]), len(otel[1])))
    start = time.monotonic()
    tp.send_signal(signal.SIGINT)
    _, err = tp.communicate(timeout=120)
    took = time.monotonic() - start
    said = "".join(lines) + err
    t.check(took < 1.6 * TIMEOUT_S, "the stop took %.2f s with two hung endpoints (timeout %d s):\n%s"
            % (took, TIMEOUT_S, said[-2000:]))
    for sink, kind in (("rw", "remote_write"), ("otel", "otlp")):
        t.check("sink '%s' (%s): " % (sink, kind) in said and "could not be sent" in said,
                "%s does not say what it could not send:\n%s" % (sink, said[-2000:]))
    for srv, held in (rw, otel):
        srv.close()
        for c in held:
            c.close()
    print("ok: stopped in %.2f s" % took)


if __name__ == "__main__":
    main()
