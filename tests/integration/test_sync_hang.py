#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A synchronization past --hang-timeout: reported stuck, then ended, once.

The stand-in libcudart whose cudaStreamSynchronize sleeps as many us as its
stream handle says (fake_sleep_cudart.c), traced with --hang-timeout 1s and
no --stacks: three syncs of 1 ms cost no hang line; one of 2.5 s is a line
stuck within the timeout plus a second, its stack taken at entry all the
same (frame pointers: its caller, main, first), then one ended with its
whole duration and cudaSuccess,
equal to its own call line's. The otlp sink (spans on, to a loopback
endpoint whose requests are decoded here from the protobuf wire format)
exports a span for each report, `cudatracer.hang` stuck (status ERROR) and
ended, beside the slow call's own. With --stacks, a sync made from Python
(ctypes, Debian's python3.11) has its Python frames on its hang lines,
exactly, and none on its call line (sync is not in stacks.apis). A bad
timeout is refused, naming the key.
"""
import os
import struct
import subprocess
import tempfile

import cttest
from hang_common import TIMEOUT_NS, hangs
from metrics_common import Endpoint


def pb_fields(buf):
    """A protobuf message's fields: [(number, value)], value bytes or int."""
    out, i = [], 0
    while i < len(buf):
        key, i = varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(buf, i)
        elif wire == 1:
            v, i = struct.unpack_from("<Q", buf, i)[0], i + 8
        elif wire == 2:
            n, i = varint(buf, i)
            v, i = buf[i:i + n], i + n
        else:
            raise AssertionError("wire type %d" % wire)
        out.append((num, v))
    return out


def varint(buf, i):
    v, shift = 0, 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def spans(body):
    """ExportTraceServiceRequest -> [(name, {attribute: value}, status code)]."""
    out = []
    for n1, rs in pb_fields(body):
        for n2, ss in pb_fields(rs) if n1 == 1 else []:
            for n3, sp in pb_fields(ss) if n2 == 2 else []:
                if n3 != 2:
                    continue
                f = pb_fields(sp)
                attrs = {}
                for kv in [v for n, v in f if n == 9]:
                    k = dict(pb_fields(kv))
                    val = dict(pb_fields(k[2]))
                    attrs[k[1].decode()] = val[1].decode() if 1 in val else val.get(3)
                status = [dict(pb_fields(v)).get(3, 0) for n, v in f if n == 15]
                out.append(([v for n, v in f if n == 5][0].decode(), attrs, status[0] if status else 0))
    return out


PY = '''import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])

def wait_for_gpu():
    return lib.cudaStreamSynchronize(ctypes.c_void_p(1500000))

def step():
    return wait_for_gpu()

step()
'''


def python_frames(prog):
    """A hang made from Python: its frames, as the script has them."""
    if not os.path.exists("/usr/bin/python3.11"):
        return
    lib = os.path.join(os.path.dirname(prog), "lib", "libcudart.so.96")
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(PY)
    try:
        t = cttest.run(["--plugin", "cudart", "--stacks", "--hang-timeout", "1s"],
                       command=["/usr/bin/python3.11", f.name, lib])
    finally:
        os.unlink(f.name)
    want = [{"function": "wait_for_gpu", "file": f.name, "line": 5}, {"function": "step", "file": f.name, "line": 8},
            {"function": "<module>", "file": f.name, "line": 10}]
    h = hangs(t.events)
    cttest.check([x["state"] for x in h] == ["stuck", "ended"] and all(x.get("py_stack") == want for x in h),
                 "python hangs %r" % h, t)
    cttest.check([e.get("py_stack") for e in t.calls("cudaStreamSynchronize") if "kind" not in e] == [None],
                 "the call line has Python frames", t)


def main():
    cttest.need_root()
    prog = cttest.program("sleep/sleep_calls")
    bad = subprocess.run([cttest.TRACER, "--hang-timeout", "500us", "--", "/bin/true"], capture_output=True,
                         text=True, timeout=30)
    cttest.check(bad.returncode == 2 and "bad value '500us' for tracer.hang_timeout" in bad.stderr,
                 "--hang-timeout 500us: %d %r" % (bad.returncode, bad.stderr))
    ep = Endpoint([200], body=b"")
    t = cttest.run(["--plugin", "cudart", "--hang-timeout", "1s"],
                   command=["sh", "-c", "%s 3 1000 && %s 1 2500000" % (prog, prog)],
                   extra_sinks="[sink.otel]\ntype = otlp\nendpoint = http://127.0.0.1:%d\nspans = true\n"
                               "interval = 1s\n" % ep.port)
    ep.stop()
    cttest.check(t.rc == 0, "exit %d" % t.rc, t)
    syncs = t.calls("cudaStreamSynchronize")
    lines = [e for e in syncs if "kind" not in e]
    cttest.check(len(lines) == 4 and [e["args"]["stream"] for e in lines] == ["0x3e8"] * 3 + ["0x2625a0"],
                 "sync lines %r" % lines, t)
    h = hangs(t.events)
    cttest.check([x["state"] for x in h] == ["stuck", "ended"], "hang lines %r" % h, t)
    for x in h:
        cttest.check(x["api"] == "cudaStreamSynchronize" and x["plugin"] == "cudart"
                     and x["args"] == {"stream": "0x2625a0"} and x["ts_ns"] == lines[3]["ts_ns"]
                     and x["stack"][0]["function"] == "main" and x["stack"][0]["module"].endswith("/sleep_calls")
                     and x["timeout_ns"] == TIMEOUT_NS, "hang line %r" % x, t)
    cttest.check(all("stack" not in e for e in lines), "a call line with a stack: none was asked for", t)
    cttest.check(TIMEOUT_NS <= h[0]["report_ns"] - h[0]["ts_ns"] <= TIMEOUT_NS + 1000000000 and
                 "result" not in h[0] and h[0]["stuck_in_process"] == 1, "stuck %r" % h[0], t)
    cttest.check(h[1]["dur_ns"] == lines[3]["dur_ns"] >= 2500000000 and h[1]["result_name"] == "cudaSuccess"
                 and h[1]["stuck_in_process"] == 0, "ended %r against %r" % (h[1], lines[3]), t)
    cttest.check(t.stderr.count("hang: cudart:cudaStreamSynchronize in flight for") == 1 and
                 "  #0 main+" in t.stderr and
                 t.stderr.count("hang ended: cudart:cudaStreamSynchronize") == 1, "stderr", t)
    got = [sp for path, _, body in ep.requests if path == "/v1/traces" for sp in spans(body)]
    cttest.check(sorted((sp[1].get("cudatracer.hang", ""), sp[2]) for sp in got) == [("", 0), ("ended", 0), ("stuck", 2)]
                 and all(sp[0] == "cudaStreamSynchronize" and sp[1]["cudatracer.api"] == "cudaStreamSynchronize"
                         for sp in got), "spans %r" % got, t)
    python_frames(prog)
    print("ok")


if __name__ == "__main__":
    main()
