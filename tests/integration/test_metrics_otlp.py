#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The otlp sink against the OpenTelemetry project's own protobuf code: a
loopback receiver in Node.js (tests/otlp/receiver.js) decodes each request
with @opentelemetry/otlp-transformer's ExportMetricsServiceRequest and
ExportTraceServiceRequest; the test checks the resource, the metric names,
types, temporality, attributes and values against the calls the program
made (the jsonl sink beside it), and one span per failed call."""
import json
import os
import shutil
import socket
import subprocess

import cttest
import metrics_common as mc


def receiver():
    node = shutil.which("node")
    here = os.path.abspath(os.path.join(cttest.SOURCE, "tests", "otlp"))
    if not node:
        cttest.skip("Node.js is not installed (the OTLP receiver decodes with OpenTelemetry's npm packages)")
    if not os.path.isdir(os.path.join(here, "node_modules", "@opentelemetry", "otlp-transformer")):
        cttest.skip("tests/otlp/node_modules is missing (scripts/install-deps.sh runs npm ci there)")
    p = subprocess.Popen([node, os.path.join(here, "receiver.js")], stdout=subprocess.PIPE, text=True, cwd=here)
    first = json.loads(p.stdout.readline())
    return p, first["port"]


def attrs(kvs):
    out = {}
    for kv in kvs or []:
        v = kv["value"]
        out[kv["key"]] = v.get("stringValue", v.get("intValue", v.get("boolValue")))
    return out


def main():
    cttest.need_root()
    prog = cttest.program("cudart_calls_shared")
    tmp = mc.tmpdir()
    rx, port = receiver()
    conf = os.path.join(tmp, "ct.ini")
    jsonl = os.path.join(tmp, "events.jsonl")
    with open(conf, "w") as f:
        f.write("[sink.otel]\ntype = otlp\nendpoint = http://127.0.0.1:%d/\ninterval = 1s\n"
                "spans = true\nspan_slower_than = 0\n[sink.events]\ntype = jsonl\npath = %s\n" % (port, jsonl))
    try:
        p = subprocess.run([cttest.TRACER, "-c", conf, "--plugin", "cudart", "--", prog],
                           capture_output=True, text=True, timeout=120)
    finally:
        rx.terminate()
        out = rx.communicate(timeout=30)[0]
    events = cttest.read_jsonl(jsonl)
    t = cttest.Trace(p.returncode, p.stdout, p.stderr, events, tmp)
    cttest.check(p.returncode == 0, "tracer exited %d" % p.returncode, t)
    reqs = [json.loads(line) for line in out.splitlines() if line.strip()]
    bad = [r for r in reqs if "error" in r]
    cttest.check(reqs and not bad, "requests that did not decode: %r" % bad[:3], t)
    for r in reqs:
        cttest.check(r["method"] == "POST" and r["headers"]["content-type"] == "application/x-protobuf",
                     "request %r" % {k: r[k] for k in ("path", "method", "headers")}, t)
    metrics = [r["body"] for r in reqs if r["path"] == "/v1/metrics"]
    traces = [r["body"] for r in reqs if r["path"] == "/v1/traces"]
    cttest.check(metrics, "no metrics request", t)

    # The last export holds the final, cumulative values.
    rm = metrics[-1]["resourceMetrics"]
    cttest.check(len(rm) == 1, "resource metrics %r" % rm, t)
    res = attrs(rm[0]["resource"]["attributes"])
    cttest.check(res["service.name"] == "cudatracer" and res["host.name"] == socket.gethostname(),
                 "resource %r" % res, t)
    scope = rm[0]["scopeMetrics"]
    cttest.check(len(scope) == 1 and scope[0]["scope"]["name"] == "cudatracer", "scope %r" % scope, t)
    by_name = {m["name"]: m for m in scope[0]["metrics"]}

    calls = by_name["cudatracer_calls_total"]
    cttest.check(calls["sum"]["aggregationTemporality"] == 2 and calls["sum"]["isMonotonic"] is True,
                 "calls: %r" % {k: v for k, v in calls["sum"].items() if k != "dataPoints"}, t)
    got = {}
    for dp in calls["sum"]["dataPoints"]:
        a = attrs(dp["attributes"])
        cttest.check(set(a) == {"api", "comm", "error", "pid", "plugin"}, "attributes %r" % a, t)
        err = "false" if a["api"] in mc.CUDART_ENTRY_ONLY else "true"  # entry-only: no result
        cttest.check(a["plugin"] == "cudart" and a["error"] == err and a["comm"] == "cudart_calls_sh" and
                     a["pid"] == str(events[0]["pid"]), "attributes %r" % a, t)
        cttest.check(int(dp["startTimeUnixNano"]) < int(dp["timeUnixNano"]), "times %r" % dp, t)
        got[a["api"]] = int(dp["asInt"])
    cttest.check(got == mc.CUDART_CALLS, "calls by api %r" % got, t)
    cttest.check(mc.count_apis(events) == mc.CUDART_CALLS, "jsonl %r" % mc.count_apis(events), t)

    hist = by_name["cudatracer_call_duration_seconds"]
    cttest.check(hist["unit"] == "s" and hist["histogram"]["aggregationTemporality"] == 2, "histogram", t)
    durs = {}
    for e in events:
        if not e.get("entry_only"):
            durs[e["api"]] = durs.get(e["api"], 0) + e["dur_ns"]
    hist_apis = {attrs(dp["attributes"])["api"] for dp in hist["histogram"]["dataPoints"]}
    cttest.check(hist_apis == set(mc.CUDART_TIMED), "histograms of %r" % sorted(hist_apis), t)
    for dp in hist["histogram"]["dataPoints"]:
        a = attrs(dp["attributes"])
        bounds, counts = dp["explicitBounds"], [int(c) for c in dp["bucketCounts"]]
        cttest.check(len(bounds) == 22 and bounds[0] == 1e-06 and bounds == sorted(bounds) and
                     len(counts) == 23, "bounds %r counts %r" % (bounds, counts), t)
        cttest.check(int(dp["count"]) == sum(counts) == mc.CUDART_TIMED[a["api"]], "count %r" % dp, t)
        cttest.check(abs(dp["sum"] - durs[a["api"]] / 1e9) < 1e-9, "sum %r vs %r ns" % (dp["sum"], durs[a["api"]]), t)

    probes = by_name["cudatracer_probes_attached"]["gauge"]["dataPoints"]
    cttest.check(len(probes) == 1 and int(probes[0]["asInt"]) > 0, "probes %r" % probes, t)
    lost = by_name["cudatracer_records_lost_total"]["sum"]["dataPoints"]
    cttest.check([int(d["asInt"]) for d in lost] == [0], "lost %r" % lost, t)

    # One span per failed call, named by its API, with the error's name as its status.
    spans = [s for b in traces for r in b["resourceSpans"] for ss in r["scopeSpans"] for s in ss["spans"]]
    names = {}
    for s in spans:
        names[s["name"]] = names.get(s["name"], 0) + 1
        a = attrs(s["attributes"])
        cttest.check(s["status"] == {"code": 2, "message": "cudaErrorInsufficientDriver"}, "status %r" % s, t)
        cttest.check(a["cudatracer.result_code"] == "35" and a["process.pid"] == str(events[0]["pid"]) and
                     a["cudatracer.plugin"] == "cudart", "span attributes %r" % a, t)
        cttest.check(int(s["endTimeUnixNano"]) > int(s["startTimeUnixNano"]), "span times %r" % s, t)
    # Entry-only calls have no result: not failed, no span.
    cttest.check(names == mc.CUDART_TIMED, "spans %r" % names, t)
    starts = sorted(int(s["startTimeUnixNano"]) for s in spans)
    cttest.check(starts == sorted(e["ts_ns"] for e in events if not e.get("entry_only")),
                 "span starts are the calls' starts", t)
    print("ok: OpenTelemetry's decoder read %d metrics requests and %d spans" % (len(metrics), len(spans)))


main()
