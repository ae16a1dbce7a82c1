#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""--gpu-activity end to end, without a GPU.

tests/programs/gpu_activity does what the CUDA driver does at cuInit with
CUDA_INJECTION64_PATH (which the tracer set): it loads the injection
library and calls InitializeInjection(). The library opens the stand-in
libcupti that tracer.cupti_path names, through which the program hands over
activity records built from cupti_activity.h's structs: they reach the
tracer through ct_gpu_batch's probe and the one ring, exactly as real ones
would. Checked: every sink's output of them (jsonl exact, chrome tracks and
flow arrows, summary and html tables, text lines, csv left alone), their
correlation with the calls that launched them, and every way the library
can refuse (version, CUPTI claimed, enabling failed, no libcupti, the real
libcupti with no GPU), each a message with API tracing going on; system-wide
is refused (-p: test_gpu_attach).
"""
import json
import os
import shutil
import tempfile

import cttest as t

FAKE_CUPTI = os.path.join(t.PROGRAMS, "libfake_cupti.so")
FAKE_DIR = os.path.join(t.PROGRAMS, "fakegpu")
SINKS = t.SUMMARY_AND_CHROME_SINKS + """[sink.html]
type = html
path = @TMP@/report.html
[sink.text]
type = text
path = @TMP@/out.txt
[sink.csv]
type = csv
path = @TMP@/out.csv
"""


def run(env=None, cupti=FAKE_CUPTI, phases=("gpu",), extra=()):
    args = ["--plugin", "cudart,cuda", "--gpu-activity", "-C", "tracer.cupti_path=" + cupti] + list(extra)
    return t.run(args, command=[t.program("gpu_activity"), FAKE_DIR] + list(phases), env=env,
                 extra_sinks=SINKS)


def said(tr):
    t.check(tr.rc == 0, "exit %d" % tr.rc, tr)
    return json.loads(tr.stdout)


def gpu_events(tr):
    return [e for e in tr.events if e.get("kind") == "gpu"]


def check_events(tr, out):
    head, _ = t.read_jsonl(os.path.join(tr.files, "events.jsonl"), meta=True)
    g, tid, t0 = out["gpu"], out["gpu"]["tid"], out["gpu"]["t0"]
    got = gpu_events(tr)
    # The session's wall offset, measured when it began: the meta line's, within a millisecond.
    wall = got[0]["ts_ns"] - g["t"] if got else head["wall_offset_ns"]
    t.check(abs(wall - head["wall_offset_ns"]) < 1000000, "clock: %d vs %d" % (wall, head["wall_offset_ns"]), tr)
    t.check(g["kinds"] == (1 << 10 | 1 << 1 | 1 << 2) and g["runtime_calls"] == 4 and g["driver_calls"] == 2,
            "the library enabled kernels, copies, sets and the launch calls by name: %r" % g, tr)
    launch = tr.calls("cudaLaunchKernel")
    t.check(len(launch) == 1 and launch[0]["tid"] == tid, "the launch itself: %r" % launch, tr)

    def corr(i, tid_, api, ts):
        return {"id": i, "tid": tid_, "api": api, "ts_ns": None if ts is None else ts + wall}

    def kernel(start, dur, stream, name, c):
        return {"ts_ns": start + wall, "kind": "gpu", "op": "kernel", "pid": out["pid"], "device": 1,
                "context": 1, "stream": stream, "end_ns": start + dur + wall, "dur_ns": dur, "name": name,
                "grid": [4, 2, 1], "block": [256, 1, 1], "shared_bytes": 1536, "correlation": c}

    s = g["t"]
    want = [
        kernel(s, 3000, 7, "vecAdd(float*, float const*, int)", corr(7, tid, "cudaLaunchKernel", t0)),
        {"ts_ns": s + 10000 + wall, "kind": "gpu", "op": "memcpy", "pid": out["pid"], "device": 1, "context": 1,
         "stream": 7, "end_ns": s + 60000 + wall, "dur_ns": 50000, "bytes": 1 << 20, "copy_kind": "HtoD",
         "src_kind": "pageable", "dst_kind": "device",
         "correlation": corr(9, tid, "cudaMemcpyAsync", t0 + 1)},
        # its call came in the next buffer: joined all the same
        kernel(s + 80000, 2000, 13, "void ct::scale<float>(float*, float, int)",
               corr(11, tid, "cuLaunchKernel", t0 + 2)),
        kernel(s + 90000, 1000, 13, None, corr(12, tid, "cudaLaunchKernel", t0 + 3)),
        # its call never came: sent at the end, without one
        {"ts_ns": s + 70000 + wall, "kind": "gpu", "op": "memset", "pid": out["pid"], "device": 1, "context": 1,
         "stream": 13, "end_ns": s + 71000 + wall, "dur_ns": 1000, "bytes": 4096, "value": 0xab,
         "correlation": corr(10, None, None, None)},
    ]
    t.check(got == want, "gpu events:\n%s\nwant\n%s" % ("\n".join(map(str, got)), "\n".join(map(str, want))), tr)
    t.check("GPU activity: 3 kernels (1 unnamed), 1 copy, 1 set, 1 without their launching call" in tr.stderr,
            "closing report", tr)


def check_sinks(tr, out):
    d = tr.files
    with open(os.path.join(d, "trace.json")) as f:
        trace = json.load(f)["traceEvents"]
    gpu_pid = 1000000001
    names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in trace if e.get("ph") == "M"}
    t.check(names.get((gpu_pid, 0)) == "GPU 1", "a process per device: %r" % names, tr)
    t.check(sorted(v for (p, _), v in names.items() if p == gpu_pid and v != "GPU 1") ==
            ["stream 13 (pid %d, context 1)" % out["pid"], "stream 7 (pid %d, context 1)" % out["pid"]],
            "a track per stream: %r" % names, tr)
    slices = [e for e in trace if e.get("cat") == "gpu"]
    t.check(sorted(e["name"] for e in slices) == ["(unnamed kernel)", "memcpy HtoD", "memset",
                                                  "vecAdd(float*, float const*, int)",
                                                  "void ct::scale<float>(float*, float, int)"],
            "gpu slices: %r" % slices, tr)
    flows = [e for e in trace if e.get("cat") == "launch"]
    starts = {e["id"]: e for e in flows if e["ph"] == "s"}
    ends = {e["id"]: e for e in flows if e["ph"] == "f"}
    t.check(len(starts) == 4 and starts.keys() == ends.keys(), "an arrow per correlated record: %r" % flows, tr)
    for i, s in starts.items():
        t.check(s["pid"] == out["pid"] and s["tid"] == out["gpu"]["tid"] and ends[i]["pid"] == gpu_pid and
                ends[i]["bp"] == "e", "arrow %d: %r -> %r" % (i, s, ends[i]), tr)

    with open(os.path.join(d, "summary.txt")) as f:
        summary = f.read()
    for line in ("GPU kernels (time on the device):",
                 "   50.0  3.000us      1  3.000us  3.000us  3.000us  3.000us  3.000us  vecAdd(float*, float const*, int)",
                 "   16.7  1.000us      1  1.000us  1.000us  1.000us  1.000us  1.000us  (unnamed)",
                 "HtoD        1  1048576  50.000us  20.972",
                 "memset      1     4096   1.000us   4.096"):
        t.check(line in summary, "summary lacks %r:\n%s" % (line, summary), tr)
    with open(os.path.join(d, "report.html")) as f:
        html = f.read()
    t.check("<h2>Devices and GPU activity</h2>" in html and '<table class="devices"' in html and "<td>vecAdd(float*, float const*, int)</td>" in html and
            "<td>HtoD</td>" in html, "html tables", tr)
    with open(os.path.join(d, "out.txt")) as f:
        text = f.read()
    t.check("kernel vecAdd(float*, float const*, int) [launched by cudaLaunchKernel in pid %d tid %d]"
            % (out["pid"], out["gpu"]["tid"]) in text and "memcpy HtoD 1048576 bytes" in text,
            "text lines:\n" + text, tr)
    with open(os.path.join(d, "out.csv")) as f:
        rows = f.read().splitlines()
    t.check(rows[0].endswith(",args,device") and len(rows) == 1 + len(tr.events) - len(gpu_events(tr)),
            "csv: calls only (%d rows)" % len(rows), tr)


def refused(env, cupti, message):
    tr = run(env=env, cupti=cupti)
    out = said(tr)
    t.check(message in tr.stderr, "want %r in stderr" % message, tr)
    t.check(not gpu_events(tr), "no gpu events", tr)
    t.check(len(tr.calls("cudaLaunchKernel")) == 1, "API calls traced as before", tr)
    t.check("no process of the command started CUDA" not in tr.stderr, "the library was loaded: said so", tr)
    return out


def main():
    t.need_root()
    tr = run()
    out = said(tr)
    check_events(tr, out)
    check_sinks(tr, out)

    # Every refusal is a message from the library, through the same probe; calls still traced.
    refused({"FAKE_CUPTI_VERSION": "120000"}, FAKE_CUPTI,
            "GPU activity: libcupti reports API version 120000, this library was built for 130001")
    refused({"FAKE_CUPTI_CLAIMED": "1"}, FAKE_CUPTI,
            "GPU activity: CUPTI is already in use by another profiler in this process "
            "(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): GPU activity off, API calls traced as before")
    refused({"FAKE_CUPTI_NO_DEVICE": "1"}, FAKE_CUPTI,
            "GPU activity: cuptiActivityEnable failed: CUPTI_ERROR_INVALID_DEVICE (2); GPU activity off")
    refused({}, "/nonexistent/libcupti.so.13", "GPU activity: no libcupti.so.13 found")
    # A message is the traced process's text: escaped before stderr, so it cannot forge a line or drive the terminal.
    tr = run(env={"FAKE_CUPTI_NO_DEVICE": "1",
                  "FAKE_CUPTI_RESULT_STRING": "E\x1b[2J\x07\ncudatracer: warning: forged\r\udcff"})
    t.check("cuptiActivityEnable failed: E\\x1b[2J\\x07\\x0acudatracer: warning: forged\\x0d\\xff (2); GPU activity off"
            in tr.stderr, "the message escaped", tr)
    t.check(not any(line.startswith("cudatracer: warning: forged") for line in tr.stderr.splitlines())
            and not any(c in tr.stderr for c in "\x1b\x07\r"), "no forged line, no control byte", tr)
    # The launch call's name is the process's too: the text sink escapes it as it does the kernel's.
    tr = run(env={"FAKE_CUPTI_LAUNCH_NAME": "cudaLaunchKernel\x1b[2J\nforged line"})
    out = said(tr)
    with open(os.path.join(tr.files, "out.txt")) as f:
        text = f.read()
    t.check("[launched by cudaLaunchKernel\\x1b[2J\\x0aforged line in pid %d tid %d]\n" % (out["pid"], out["gpu"]["tid"])
            in text and "\x1b" not in text and not any(l.startswith("forged line") for l in text.splitlines()),
            "the launch call's name escaped:\n" + text, tr)
    # The toolkit's own libcupti, with no GPU and no driver here.
    real = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64", "libcupti.so.13")
    if os.path.exists(real):
        tr = run(cupti=real)
        said(tr)
        # Without a driver it refuses at its first call (CUPTI 13.0: cuptiSubscribe, CUPTI_ERROR_UNKNOWN).
        t.check("GPU activity: " in tr.stderr and "GPU activity off, API calls traced as before" in tr.stderr,
                "the real libcupti: a message", tr)
        t.check(len(tr.calls("cudaLaunchKernel")) == 1 and not gpu_events(tr), "calls traced", tr)

    # Records CUPTI dropped are said.
    tr = run(env={"FAKE_CUPTI_DROPPED": "3"})
    t.check("CUPTI dropped 3 activity records" in tr.stderr, "CUPTI's drops", tr)

    # A command that never starts CUDA with the library: said at the end.
    tr = t.run(["--plugin", "cudart", "--gpu-activity"], command=[t.program("gpu_activity"), FAKE_DIR, "devices"],
               env={"CUDA_INJECTION64_PATH": ""})
    t.check(tr.rc == 0 and "no process of the command started CUDA with the injection library" in tr.stderr,
            "no hello", tr)

    # Another tool's injection is kept.
    tr = t.run(["--plugin", "cudart", "--gpu-activity"], command=["/bin/true"],
               env={"CUDA_INJECTION64_PATH": "/opt/nsys/libToolsInjection64.so"})
    t.check(tr.rc == 0 and "CUDA_INJECTION64_PATH is already set (/opt/nsys/libToolsInjection64.so)" in tr.stderr,
            "another injection", tr)

    # An injection library another user could replace is never handed to the command.
    bad = tempfile.mkdtemp(prefix="ctinject.")
    os.chmod(bad, 0o777)
    shutil.copy(os.path.join(t.BUILD, "libcudatracer-inject.so"), bad)
    lib = os.path.join(bad, "libcudatracer-inject.so")
    tr = t.run(["--plugin", "cudart", "--gpu-activity", "-C", "tracer.inject_library=" + lib],
               command=[t.program("gpu_activity"), FAKE_DIR, "gpu"])
    t.check(tr.rc != 0 and "refusing the injection library %s" % lib in tr.stderr and
            "writable by every user" in tr.stderr, "an untrusted library", tr)
    shutil.rmtree(bad)

    # System-wide, every process would have the library brought in (-p: test_gpu_attach).
    tr = t.run(["--plugin", "cudart", "--gpu-activity"], jsonl_sink=False)
    t.check(tr.rc != 0 and "--gpu-activity needs a command or a process (-p)" in tr.stderr, "system-wide", tr)
    print("ok: GPU activity through every sink, its correlation, and every refusal")


if __name__ == "__main__":
    main()
