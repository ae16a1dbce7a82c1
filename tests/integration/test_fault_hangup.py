# SPDX-License-Identifier: MIT
"""SIGHUP mid-run (the terminal closed, an ssh session dropped) ends the run
as SIGINT does: the ring is drained and every sink closed. Without a handler
its default action killed the tracer: the jsonl cut mid-object, the summary
0 bytes. Here every file must be complete: each jsonl line parses, the
chrome trace parses and carries the run's closing figures, the summary (JSON
and text) holds its totals, the csv and html are whole, and they all count
the calls the jsonl holds."""
import re
import signal
import subprocess
import time

import cttest
import test_sinks_common as common


def main():
    cttest.need_root()
    tmp = common.tmpdir()
    prog = common.build_fake(tmp)
    conf = common.write_config(tmp)
    p = subprocess.Popen([cttest.TRACER, "-c", conf, "--plugin", "cudart", "--", prog, "1000000", "1000"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    cttest.check(line.startswith("pid "), "the traced program did not start: %r" % line)
    child = int(line.split()[1])
    time.sleep(1.5)
    p.send_signal(signal.SIGHUP)
    try:
        p.wait(timeout=60)
    finally:
        # The command outlives the tracer (it holds our pipes): end it.
        try:
            subprocess.run(["kill", "-KILL", str(child)], capture_output=True)
        finally:
            if p.returncode is None:
                p.kill()
    out, err = p.communicate(timeout=60)
    trace = cttest.Trace(p.returncode, out, err, [], tmp)
    cttest.check(p.returncode == 128 + signal.SIGHUP, "tracer rc %d, want 129 (ended by SIGHUP)" % p.returncode, trace)
    cttest.check("records lost" in err, "no closing report: the tracer did not end cleanly", trace)
    d = common.files(tmp)  # each file parses, html ends with </html>
    common.check_consistent(d, trace)
    n = len(d["events"])
    cttest.check(n > 30, "only %d calls before the signal" % n, trace)
    cttest.check(d["summary"]["final"] is True and d["summary"]["calls"] == n, "summary totals: %r" %
                 {k: d["summary"].get(k) for k in ("final", "calls")}, trace)
    m = re.search(r"pid %d \(\S+\): (\d+) calls?, 0 errors, [0-9.]+(?:ns|us|ms|s) in traced calls" % child, d["summary_txt"])
    cttest.check(m and int(m.group(1)) == n, "text summary totals:\n" + d["summary_txt"][:2000], trace)
    cttest.check("lost" in d["chrome"]["otherData"], "chrome closed with the run's figures", trace)
    print("ok: %d calls, every sink complete after SIGHUP" % n)


main()
