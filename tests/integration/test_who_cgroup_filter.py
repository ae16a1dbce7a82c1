#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""--cgroup PATH filters in the kernel: of two processes of one traced
command, one inside the cgroup (in a directory below it: descendants pass)
and one outside it, only the inside one's calls are traced, every one of
them; probing the library for every process with --cgroup takes only the
inside one's too (whatever else runs on the machine). A PATH that is missing, a file, not on cgroup2fs or a cgroup v1
hierarchy is refused with what is wrong with it."""
import os
import signal
import subprocess
import tempfile
import time

import cttest
import metrics_common as mc
import who_common as wc


def main():
    cttest.need_root()
    cg = wc.Cgroups()
    prog = cttest.program("cudart_calls_shared")
    want = sum(mc.CUDART_CALLS.values())
    try:
        inner = cg.make("in/" + wc.docker_path())
        outer = cg.make("out")
        top_in = cg.abs("/" + cg.top + "/in")
        line = "%s & %s & wait" % (wc.inside_line(cg.abs(inner), [prog]), wc.inside_line(cg.abs(outer), [prog]))
        t = cttest.run(["--plugin", "cudart", "--cgroup", top_in], command=["sh", "-c", line])
        cttest.check(t.rc == 0, "tracer exited %d" % t.rc, t)
        cttest.check(t.stdout.count("cudart_calls: done") == 2, "both programs ran: %r" % t.stdout, t)
        got = {(e["cgroup"], e["pid"]) for e in t.events}
        cttest.check(len(got) == 1 and next(iter(got))[0] == inner, "traced: %r, wanted %s only" % (got, inner), t)
        cttest.check(mc.count_apis(t.events) == mc.CUDART_CALLS, "calls %r" % mc.count_apis(t.events), t)

        # Without the filter, both (the same command): the filter made the difference.
        t = cttest.run(["--plugin", "cudart"], command=["sh", "-c", line])
        got = {e["cgroup"]: 0 for e in t.events}
        for e in t.events:
            got[e["cgroup"]] += 1
        cttest.check(got == {inner: want, outer: want}, "unfiltered: %r" % got, t)


        # Every process that maps the library (--lib: the file the program
        # maps, probed for all; no process is stopped to be scanned): whatever
        # else runs on this machine, only the inside program's calls come.
        lib = os.path.realpath(os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64",
                                            "libcudart.so"))
        out = os.path.join(tempfile.mkdtemp(prefix="cttest."), "ev.jsonl")
        tr = subprocess.Popen([cttest.TRACER, "-v", "--plugin", "cudart", "--lib", lib, "--cgroup", top_in,
                               "-o", "jsonl:" + out], stderr=subprocess.PIPE, text=True)
        err = cttest.wait_tracing(tr)
        p = subprocess.run(["sh", "-c", line], capture_output=True, text=True, timeout=120)
        time.sleep(0.5)
        tr.send_signal(signal.SIGINT)
        stderr = "".join(err) + tr.communicate(timeout=120)[1]
        cttest.check(tr.returncode == 0 and p.stdout.count("cudart_calls: done") == 2,
                     "system-wide: tracer %d, programs %r:\n%s" % (tr.returncode, p.stdout, stderr[-3000:]))
        events = cttest.read_jsonl(out)
        got = {e["cgroup"] for e in events}
        cttest.check(got == {inner} and mc.count_apis(events) == mc.CUDART_CALLS,
                     "system-wide: cgroups %r, calls %r" % (got, mc.count_apis(events)))
    finally:
        cg.remove()

    # Refused, each with its reason, before anything is attached.
    plain = os.path.join(cttest.BUILD, "cudatracer")
    for path, why in (("/nonexistent/cttest", "No such file or directory"),
                      (os.path.join(wc.v2_mount(), "cgroup.procs"), "not a directory"),
                      ("/tmp", "not a cgroup v2 directory (not on cgroup2fs); cgroup v2 is mounted at " +
                       wc.v2_mount()),
                      ("/sys/fs/cgroup/memory", "not a cgroup v2 directory (a cgroup v1 hierarchy's)")):
        if path.startswith("/sys/fs/cgroup/memory") and not os.path.isdir(path):
            continue
        p = subprocess.run([plain, "--plugin", "cudart", "--cgroup", path, "--", "true"], capture_output=True,
                           text=True, timeout=60)
        msg = "--cgroup %s: %s" % (path, why)
        cttest.check(p.returncode != 0 and msg in p.stderr, "--cgroup %s: rc %d, stderr %r (wanted %r)"
                     % (path, p.returncode, p.stderr[-2000:], msg))
    print("ok: --cgroup passes the inside process's %d calls and none of the outside one's" % want)


main()
