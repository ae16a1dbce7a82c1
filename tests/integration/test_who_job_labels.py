#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Who made the calls, as event keys and as the labels a real Prometheus
server scrapes: a program run with RANK=3 WORLD_SIZE=8 SLURM_JOB_ID=42\xff
(a job id that is not UTF-8: it is the process's to choose) in a
kubepods-shaped cgroup v2 directory. Its events carry rank, world_size,
job_id and host, and cgroup, container and pod; the calls counted by
Prometheus carry rank, job (exported_job: Prometheus keeps `job` for its
scrape job), host, cgroup, container and pod, and are all of its calls. The
job id's byte that is not UTF-8 is '?' everywhere: before, the tracer sent
it as it was, and the server refused the whole scrape (the node's target
down)."""
import re
import socket

import cttest
import metrics_common as mc
import who_common as wc

LABELS = "plugin,api,rank,job,host,cgroup,container,pod"


def main():
    cttest.need_root()
    mc.prometheus_binary()
    cg = wc.Cgroups()
    path = cg.make(wc.kubepods_path(), True)
    prog = cttest.program("cudart_calls_shared")
    tmp = mc.tmpdir()
    want = float(sum(mc.CUDART_CALLS.values()))
    t = mc.HeldTracer(tmp, "[sink.prom]\ntype = prometheus\nlisten = 127.0.0.1:0\nlabels = %s\n" % LABELS,
                      wc.inside_line(cg.abs(path), [prog], env="RANK=3 WORLD_SIZE=8 SLURM_JOB_ID=\"$(printf '42\\377')\" "))
    prom = None
    try:
        line = t.read_err_until("(prometheus): serving at ")
        port = int(re.search(r"serving at \S+:(\d+)/metrics", line).group(1))
        t.wait_stdout("cudart_calls: done")
        prom = mc.Prometheus(tmp, targets=["127.0.0.1:%d" % port])
        by = "rank, exported_job, host, cgroup, container, pod"
        key = ("3", "42?", socket.gethostname(), path, wc.CONTAINER, wc.POD)
        got = None
        for _ in range(120):
            rows = prom.query("sum by (%s) (cudatracer_calls_total)" % by)
            got = {tuple(m.get(l, "") for l in by.split(", ")): v for m, v in rows}
            if got == {key: want}:
                break
            mc.time.sleep(0.5)
        cttest.check(got == {key: want}, "Prometheus: %r\nwanted %r\n%s" % (got, {key: want}, prom.output()))
    finally:
        trace = t.release()
        if prom:
            prom.stop()
        cg.remove()
    cttest.check(trace.rc == 0, "tracer exited %d" % trace.rc, trace)
    keys = {(e.get("rank"), e.get("world_size"), e.get("job_id"), e.get("host"), e.get("cgroup"),
             e.get("container"), e.get("pod")) for e in trace.events}
    wanted = {(3, 8, "42?", socket.gethostname(), path, wc.CONTAINER, wc.POD)}
    cttest.check(keys == wanted, "event keys %r\nwanted %r" % (keys, wanted), trace)
    cttest.check(len(trace.events) == want, "%d events" % len(trace.events), trace)
    print("ok: rank, job, host, cgroup, container and pod as event keys and Prometheus labels")


main()
