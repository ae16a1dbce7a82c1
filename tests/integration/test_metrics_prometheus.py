#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The prometheus sink, scraped by a real Prometheus server every second:
Prometheus's own query API gives exactly the calls the traced program made
(the real libcudart, each call failing with error 35, counted as errors),
their durations' counts, the probes attached and no records lost; the
exposition text is valid as Prometheus reads it (it scraped it)."""
import re
import time
import urllib.error
import urllib.request

import cttest
import metrics_common as mc


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.headers["Content-Type"], r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read().decode()


def main():
    cttest.need_root()
    mc.prometheus_binary()
    prog = cttest.program("cudart_calls_shared")
    tmp = mc.tmpdir()
    t = mc.HeldTracer(tmp, "[sink.prom]\ntype = prometheus\nlisten = 127.0.0.1:0\n", prog)
    prom = None
    try:
        line = t.read_err_until("(prometheus): serving at ")
        url = re.search(r"serving at (\S+)", line).group(1)
        port = int(re.search(r":(\d+)/metrics$", url).group(1))
        t.wait_stdout("cudart_calls: done")

        # The sink's own answer (published about once a second): the
        # exposition format's headers and typed families.
        deadline = time.time() + 20
        while True:
            code, ctype, text = get(url)
            if "cudatracer_calls_total{" in text or time.time() > deadline:
                break
            time.sleep(0.2)
        cttest.check(code == 200 and ctype == "text/plain; version=0.0.4; charset=utf-8",
                     "HTTP %d, content type %r" % (code, ctype))
        cttest.check("# TYPE cudatracer_calls_total counter\n" in text, text[:2000])
        cttest.check("# TYPE cudatracer_call_duration_seconds histogram\n" in text, text[:2000])
        code, _, text = get(url.replace("/metrics", "/nothing"))
        cttest.check(code == 404 and "/metrics" in text, "another path: HTTP %d %r" % (code, text))

        prom = mc.Prometheus(tmp, targets=["127.0.0.1:%d" % port])
        want = {api: float(n) for api, n in mc.CUDART_CALLS.items()}
        got = prom.wait_for('cudatracer_calls_total{job="cudatracer"}', "api", want)
        cttest.check(got == want, "calls by api from Prometheus: %r\nwanted %r\n%s" % (got, want, prom.output()))
        errors = prom.by('sum by (error) (cudatracer_calls_total)', "error")
        cttest.check(errors == {"true": float(sum(mc.CUDART_TIMED.values())),
                                "false": float(len(mc.CUDART_ENTRY_ONLY))}, "by error: %r" % errors)
        # Entry-only calls have no duration: no histogram series at all.
        timed = {api: float(n) for api, n in mc.CUDART_TIMED.items()}
        durs = prom.by("sum by (api) (cudatracer_call_duration_seconds_count)", "api")
        cttest.check(durs == timed, "duration counts %r" % durs)
        inf = prom.by('sum by (api) (cudatracer_call_duration_seconds_bucket{le="+Inf"})', "api")
        cttest.check(inf == timed, "+Inf buckets %r" % inf)
        pids = {m["pid"] for m, _ in prom.query("cudatracer_calls_total")}
        comms = {m["comm"] for m, _ in prom.query("cudatracer_calls_total")}
        cttest.check(len(pids) == 1 and comms == {"cudart_calls_sh"}, "pid %r comm %r" % (pids, comms))
        probes = prom.query("cudatracer_probes_attached")
        cttest.check(len(probes) == 1 and probes[0][1] > 0, "probes %r" % probes)
        lost = prom.query("cudatracer_records_lost_total")
        cttest.check([v for _, v in lost] == [0.0], "lost %r" % lost)
        up = prom.query('up{job="cudatracer"}')
        cttest.check([v for _, v in up] == [1.0], "scrape health %r" % up)
    finally:
        trace = t.release()
        if prom:
            prom.stop()
    cttest.check(trace.rc == 0, "tracer exited %d" % trace.rc, trace)
    # The same calls in the jsonl sink beside it, call for call.
    cttest.check(mc.count_apis(trace.events) == mc.CUDART_CALLS, "jsonl %r" % mc.count_apis(trace.events), trace)
    cttest.check(re.search(r"\(prometheus\): [1-9]\d* scrapes served", trace.stderr), "scrapes", trace)
    print("ok: Prometheus scraped exactly the calls made")


main()
