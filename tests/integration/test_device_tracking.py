#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The device of every call, and kernel names read at return.

tests/programs/gpu_activity with the stand-in runtime and driver (which
succeed, unlike the real ones without a GPU): cudaSetDevice; a primary
context retained for device 2 and made current; a context the tracer never
saw made pushed (unknown, never a guess) and popped; a thread that never set
a device (unknown). Then cuLibraryGetKernel with its name in a page that is
not in memory when the call begins and that the call itself fills (the
engine's read at entry fails, its read at return finds the name), and one
never filled (counted as unread), each launched.
"""
import csv
import json
import os

import cttest as t

FAKE_DIR = os.path.join(t.PROGRAMS, "fakegpu")


def main():
    t.need_root()
    tr = t.run(["--plugin", "cudart,cuda"], command=[t.program("gpu_activity"), FAKE_DIR, "devices", "names"],
               extra_sinks="[sink.csv]\ntype = csv\npath = @TMP@/out.csv\n"
                           "[sink.summary]\ntype = summary\npath = @TMP@/summary.txt\n")
    t.check(tr.rc == 0, "exit %d" % tr.rc, tr)
    out = json.loads(tr.stdout)
    main_tid, other = out["devices"]["tid"], out["devices"]["other_tid"]
    got = [(e["api"], e["tid"] == main_tid, e["device"]) for e in tr.events
           if e["api"] in ("cudaSetDevice", "cudaMemsetAsync", "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent",
                           "cuCtxPushCurrent_v2", "cuCtxPopCurrent_v2")]
    want = [
        ("cudaSetDevice", True, 1),
        ("cudaMemsetAsync", True, 1),
        ("cuDevicePrimaryCtxRetain", True, 1),  # retains device 2's context; device 1 stays current
        ("cuCtxSetCurrent", True, 2),
        ("cudaMemsetAsync", True, 2),
        ("cuCtxPushCurrent_v2", True, None),    # a context made before the tracer saw it
        ("cudaMemsetAsync", True, None),
        ("cuCtxPopCurrent_v2", True, 2),
        ("cudaMemsetAsync", True, 2),
        ("cudaMemsetAsync", False, None),       # the other thread: none of its calls said
        ("cudaSetDevice", True, 0),
        ("cudaMemsetAsync", True, 0),
    ]
    t.check(got == want, "devices:\n%s\nwant\n%s" % ("\n".join(map(str, got)), "\n".join(map(str, want))), tr)
    t.check(all(e["tid"] == other for e in tr.events if e["tid"] != main_tid), "two threads", tr)

    with open(os.path.join(tr.files, "out.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    t.check([r["device"] for r in rows if r["api"] in ("cudaSetDevice", "cudaMemsetAsync")] ==
            ["1", "1", "2", "", "2", "", "0", "0"], "csv device column: %r" % [r["device"] for r in rows], tr)
    with open(os.path.join(tr.files, "summary.txt")) as f:
        summary = f.read()
    t.check("By device (calls by the device current on their thread):" in summary and
            "\nunknown  " in summary, "summary rows by device:\n" + summary, tr)

    # Names: the one filled by the call is read at return; the other is counted.
    t.check(out["names"]["late"] == "_Z9late_namev", "the program filled the page", tr)
    gk = tr.calls("cuLibraryGetKernel")
    t.check(len(gk) == 2 and gk[0]["args"]["name"] == "_Z9late_namev" and gk[0]["args"]["pKernel"] == "late_name()",
            "read at return: %r" % gk, tr)
    t.check(gk[1]["args"]["name"] is None, "never filled: unread, %r" % gk[1], tr)
    launches = tr.calls("cuLaunchKernel")
    t.check([l["args"]["f"] for l in launches] == ["late_name()", "0x4b001"], "launches: %r" % launches, tr)
    t.check("launches: 1 with their kernel named, 1 unnamed" in tr.stderr and
            "1 name unread at entry and at return" in tr.stderr, "counted", tr)
    print("ok: the device of every call; a name read at return, an unread one counted")


if __name__ == "__main__":
    main()
