#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The remote_write sink into a real Prometheus server
(--web.enable-remote-write-receiver): after the traced program ends,
Prometheus's query API gives exactly the calls it made, by API and error,
and, from a stand-in runtime whose calls succeed, the bytes moved by copy
kind. The request carries the headers remote write 0.1.0 requires (checked
on a loopback endpoint of the test's own)."""
import os
import subprocess

import cttest
import metrics_common as mc
import test_sinks_common as sinks_common


def trace(tmp, name, sinks, command):
    conf = os.path.join(tmp, name + ".ini")
    jsonl = os.path.join(tmp, name + ".jsonl")
    with open(conf, "w") as f:
        f.write(sinks + "\n[sink.events]\ntype = jsonl\npath = %s\n" % jsonl)
    p = subprocess.run([cttest.TRACER, "-c", conf, "--plugin", "cudart", "--"] + command,
                       capture_output=True, text=True, timeout=120)
    t = cttest.Trace(p.returncode, p.stdout, p.stderr, cttest.read_jsonl(jsonl), tmp)
    cttest.check(p.returncode == 0, "tracer exited %d" % p.returncode, t)
    return t


def rw_sink(url):
    return "[sink.rw]\ntype = remote_write\nurl = %s\ninterval = 1s\ntimeout = 5s\n" % url


def headers_on_the_wire(tmp, prog):
    ep = mc.Endpoint([204], body=b"")
    try:
        trace(tmp, "headers", rw_sink("http://127.0.0.1:%d/receive" % ep.port), [prog])
    finally:
        ep.stop()
    cttest.check(ep.requests, "no request came")
    path, h, body = ep.requests[-1]
    h = {k.lower(): v for k, v in h.items()}
    cttest.check(path == "/receive", "path %r" % path)
    for k, v in (("content-encoding", "snappy"), ("content-type", "application/x-protobuf"),
                 ("x-prometheus-remote-write-version", "0.1.0")):
        cttest.check(h.get(k) == v, "%s: %r" % (k, h.get(k)))
    cttest.check(h.get("user-agent", "").startswith("cudatracer/"), "user agent %r" % h.get("user-agent"))
    cttest.check(len(body) == int(h["content-length"]) and body, "body of %d bytes" % len(body))


def main():
    cttest.need_root()
    mc.prometheus_binary()
    prog = cttest.program("cudart_calls_shared")
    tmp = mc.tmpdir()
    headers_on_the_wire(tmp, prog)

    fake = sinks_common.build_fake(tmp)
    prom = mc.Prometheus(tmp, remote_write=True)
    try:
        url = "http://127.0.0.1:%d/api/v1/write" % prom.port
        t = trace(tmp, "real", rw_sink(url), [prog])
        cttest.check(mc.count_apis(t.events) == mc.CUDART_CALLS, "jsonl %r" % mc.count_apis(t.events), t)
        cttest.check("could not be sent" not in t.stderr and "cannot push" not in t.stderr, "push failed", t)
        want = {api: float(n) for api, n in mc.CUDART_TIMED.items()}
        got = prom.wait_for('cudatracer_calls_total{plugin="cudart",error="true"}', "api", want, timeout=20)
        cttest.check(got == want, "calls by api from Prometheus: %r\nwanted %r\n%s" % (got, want, prom.output()), t)
        # The entry-only calls: counted, with no result, and no duration.
        entry = prom.by('sum by (api) (cudatracer_calls_total{plugin="cudart",error="false"})', "api")
        cttest.check(entry == {api: 1.0 for api in mc.CUDART_ENTRY_ONLY}, "entry-only calls %r" % entry, t)
        durs = prom.by("sum by (api) (cudatracer_call_duration_seconds_count)", "api")
        cttest.check(durs == want, "duration counts %r" % durs, t)

        # The stand-in runtime succeeds: bytes by copy kind, no errors.
        t = trace(tmp, "fake", rw_sink(url), [fake, "3"])
        pid = str(t.events[0]["pid"])
        calls = {"cudaGetDeviceCount": 1, "cudaMalloc": 2, "cudaMallocHost": 1, "cudaMemcpy": 6,
                 "cudaMemset": 3, "cudaFree": 3, "cudaFreeHost": 1, "cudaDeviceSynchronize": 1}
        got = prom.wait_for('cudatracer_calls_total{pid="%s"}' % pid, "api",
                            {a: float(n) for a, n in calls.items()}, timeout=20)
        cttest.check(got == {a: float(n) for a, n in calls.items()}, "fake calls %r" % got, t)
        errs = prom.by('sum by (error) (cudatracer_calls_total{pid="%s"})' % pid, "error")
        cttest.check(errs == {"false": 18.0}, "errors %r" % errs, t)
        kinds = prom.by('sum by (kind) (cudatracer_bytes_moved_total{pid="%s"})' % pid, "kind")
        cttest.check(kinds == {"cudaMemcpyHostToDevice": 3000.0, "cudaMemcpyDeviceToHost": 1500.0, "": 192.0},
                     "bytes by kind %r" % kinds, t)
        probes = prom.query("cudatracer_probes_attached")
        cttest.check(probes and all(v > 0 for _, v in probes), "probes %r" % probes, t)
        failed = prom.query("cudatracer_export_failures_total")
        cttest.check(failed and all(v == 0 for _, v in failed), "export failures %r" % failed, t)
    finally:
        prom.stop()
    print("ok: remote write delivered exactly the calls and bytes")


main()
