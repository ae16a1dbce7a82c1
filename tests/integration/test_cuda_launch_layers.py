#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A runtime launch and the driver launch it makes cost one return, not two.

tests/programs/launch_layers runs, through the stand-in runtime and driver:
three cudaLaunchKernel that succeed, one whose driver launch fails (grid of
no blocks: CUDA_ERROR_INVALID_VALUE, returned by the runtime as 1), one
cuLaunchKernel made directly, and one cudaLaunchKernelExC that makes the
context current after its driver launch.

With uprobe sessions (attach = session) the driver launch made
directly inside a runtime launch declines its return probe: its event ends
when the runtime launch ends and has its result. Everything else is as with
entry and return programs (attach = multi), run here too: the same events
in the same order, one per call and layer, with the kernel's name, results
and nesting. A driver launch made directly keeps its own return; one after
which the runtime makes another driver call is sent at entry only (no
result, no duration: its return was not seen).
"""
import os

import cttest as t

FAKE_DIR = os.path.join(t.PROGRAMS, "fakegpu")
NAME = "my_kern(float*)"
PARENT = {"plugin": "cudart", "api": "cudaLaunchKernel"}


def trace(attach):
    tr = t.run(["-v", "--plugin", "cudart,cuda", "-C", "tracer.attach=" + attach],
               command=[t.program("launch_layers"), FAKE_DIR])
    t.check(tr.rc == 0, "attach=%s: exit %d" % (attach, tr.rc), tr)
    t.check(tr.stdout == "0 0 0 1 0 0\n", "attach=%s: launch_layers printed %r" % (attach, tr.stdout), tr)
    return tr


def end(e):
    return e["ts_ns"] + e.get("dur_ns", 0)


def shape(tr):
    """(api, result, parent api, kernel) of each launch event, in the order they came."""
    out = []
    for e in tr.events:
        if "Launch" not in e.get("api", "") and e.get("api") != "cuCtxSetCurrent":
            continue
        a = e["args"]
        out.append((e["api"], e.get("result"), (e.get("parent") or {}).get("api"),
                    a.get("func", a.get("f")) if "Launch" in e["api"] else None))
    return out


def main():
    t.need_root()
    s = trace("session")
    m = trace("multi")
    t.check("(uprobe session)" in s.stderr, "attach=session did not use uprobe sessions", s)
    t.check("(uprobe_multi)" in m.stderr, "attach=multi did not use uprobe_multi", m)

    inner = ("cuLaunchKernel", 0, "cudaLaunchKernel", NAME)
    want = [inner, ("cudaLaunchKernel", 0, None, NAME)] * 3 + [
        ("cuLaunchKernel", 1, "cudaLaunchKernel", NAME), ("cudaLaunchKernel", 1, None, NAME),
        ("cuLaunchKernel", 0, None, "0x4b001")]
    for tr, name in ((s, "session"), (m, "multi")):
        got = shape(tr)
        # The ExC's driver launch: with its own return (multi) it has a result.
        tail = [("cuLaunchKernel", None if name == "session" else 0, "cudaLaunchKernelExC", NAME),
                ("cuCtxSetCurrent", 0, "cudaLaunchKernelExC", None), ("cudaLaunchKernelExC", 0, None, NAME)]
        t.check(len(got) == len(want) + len(tail), "%s: %d launch events: %s" % (name, len(got), got), tr)
        # The first driver launch comes before the runtime launch that names its handle.
        t.check(got[0][:3] == inner[:3] and got[0][3].startswith("0x"), "%s: event 0: %s" % (name, got[0]), tr)
        for i, (g, w) in enumerate(zip(got, want + tail)):
            t.check(i == 0 or g == w, "%s: event %d: %s, not %s" % (name, i, g, w), tr)
    # One return for both: the inner launch ends when its runtime launch ends,
    # exactly; with its own return it ends before.
    for tr, same in ((s, True), (m, False)):
        ev = [e for e in tr.events if e.get("api") in ("cuLaunchKernel", "cudaLaunchKernel")]
        for child, parent in zip(ev[0:8:2], ev[1:8:2]):
            t.check(child["tid"] == parent["tid"] and child["depth"] == parent["depth"] + 1,
                    "depth %d inside %d" % (child["depth"], parent["depth"]), tr)
            t.check(parent["ts_ns"] < child["ts_ns"] and (end(child) == end(parent)) == same
                    and end(child) <= end(parent),
                    "%s: driver launch [%d, %d] in runtime launch [%d, %d]" % (
                        "session" if same else "multi", child["ts_ns"], end(child), parent["ts_ns"],
                        end(parent)), tr)
        direct = ev[8]
        t.check(direct["api"] == "cuLaunchKernel" and "parent" not in direct and direct["dur_ns"] > 0,
                "direct driver launch: %s" % direct, tr)
    # The ExC's driver launch, followed by another driver call inside the same
    # runtime call: with sessions its return was declined, and the next call
    # says it has returned: sent at entry only.
    ex = [e for e in s.events if e.get("api") == "cuLaunchKernel" and (e.get("parent") or {}).get("api")
          == "cudaLaunchKernelExC"][0]
    t.check(ex.get("entry_only") is True and "dur_ns" not in ex and "result" not in ex,
            "session: the ExC's driver launch: %s" % ex, s)
    exm = [e for e in m.events if e.get("api") == "cuLaunchKernel" and (e.get("parent") or {}).get("api")
           == "cudaLaunchKernelExC"][0]
    t.check(not exm.get("entry_only") and exm.get("result") == 0, "multi: the ExC's driver launch: %s" % exm, m)
    print("ok: %d launch events alike with sessions and with entry and return programs" % len(shape(s)))


if __name__ == "__main__":
    main()
