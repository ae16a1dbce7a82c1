#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""System-wide, a process whose exit the watcher never sent (its ring was
full; here CUDATRACER_TEST_DROP_EXITS=1 drops every exit event) is found
ended all the same: every 2 s the tracer looks at the processes it follows
in /proc, and one that is gone, a zombie, or whose pid another process has
taken since (it started later) is ended there. Its series leave /metrics
after exited_grace, and the tracer counts it at the end (-v). Without the
look, the series would stay for as long as the tracer runs (the soak's
"series kept past the grace")."""
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import urllib.request

import cttest
import metrics_common as mc


def scrape(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def main():
    cttest.need_root()
    tmp = mc.tmpdir()
    comm = "ctunheard_%03d" % (os.getpid() % 1000)
    prog = os.path.join(tmp, comm)
    # Calls for a second or more: alive when its first records are read (a
    # process already gone then is ended at once, as it is found).
    shutil.copy(cttest.program("cudart_loop_shared"), prog)
    port = mc.free_port()
    conf = os.path.join(tmp, "ct.ini")
    with open(conf, "w") as f:
        f.write("[tracer]\nscan_execs = false\n[filter]\ncomm = %s\n"
                "[sink.metrics]\ntype = prometheus\nlisten = 127.0.0.1:%d\nexited_grace = 1s\n" % (comm, port))
    env = dict(os.environ, CUDATRACER_TEST_DROP_EXITS="1")
    t = subprocess.Popen([cttest.TRACER, "-v", "-c", conf, "--plugin", "cudart"], stderr=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, text=True, env=env)
    lines = cttest.wait_tracing(t)
    reader = threading.Thread(target=lambda: lines.extend(t.stderr), daemon=True)
    reader.start()
    url = "http://127.0.0.1:%d/metrics" % port
    try:
        p = subprocess.run([prog, "300000"], capture_output=True, text=True, timeout=120)
        cttest.check("loop: 300000 calls" in p.stdout, "the program did not run: %r" % p.stdout)
        ended = time.time()
        # Its calls appear, then go: within the 2 s look, the 1 s grace and the 1 s tick.
        seen = gone = None
        while time.time() < ended + 30:
            text = scrape(url)
            mine = [l for l in text.splitlines() if l.startswith("cudatracer_calls_total{") and comm in l]
            if mine and seen is None:
                seen = time.time() - ended
            if not mine and seen is not None:
                gone = time.time() - ended
                break
            time.sleep(0.5)
        cttest.check(seen is not None, "the program's calls never showed in /metrics:\n" + text[:3000])
        cttest.check(gone is not None and gone <= 12, "its series still there %.0f s after it ended (exited_grace 1s)"
                     % (time.time() - ended))
    finally:
        t.send_signal(signal.SIGINT)
        rc = t.wait(timeout=60)
        reader.join(timeout=10)
    err = "".join(lines)
    cttest.check(rc == 0, "tracer exited %d\n%s" % (rc, err[-3000:]))
    m = re.search(r"system-wide: (\d+) process(?:es)? ended unheard", err)
    cttest.check(m and int(m.group(1)) >= 1, "the exit found by /proc not counted:\n" + err[-3000:])
    print("ok: series gone %.1f s after the exit, none heard" % gone)


main()
