# SPDX-License-Identifier: MIT
"""Calls that nest: the stand-in runtime's cudaMemcpy calls its own exported
cudaMemset through the PLT. The inner call is an event of depth 1 with its
own arguments and result, the outer one depth 0, and the outer's time span
covers the inner's (each return paired with its own call)."""
import os
import cttest as t

N = 20


def main():
    t.need_root()
    prog = os.path.join(t.PROGRAMS, "fault", "fault_user")
    if not os.path.exists(prog):
        t.skip("fault_user was not built")
    tr = t.run(["--plugin", "cudart"], command=[prog, "nested", str(N)])
    t.check(tr.rc == 0, "rc %d" % tr.rc, tr)
    t.check(tr.lost() == 0, "lost records", tr)
    outer, inner = tr.calls("cudaMemcpy"), tr.calls("cudaMemset")
    t.check(len(outer) == N and len(inner) == N, "%d outer, %d inner calls, want %d each" % (len(outer), len(inner), N), tr)
    # The inner call returns first, so it is written first.
    t.check(tr.apis() == ["cudaMemset", "cudaMemcpy"] * N, "order: %s" % tr.apis()[:6], tr)
    for i, (o, n) in enumerate(zip(outer, inner)):
        t.check(o["depth"] == 0 and n["depth"] == 1, "call %d: depths %d/%d" % (i, o["depth"], n["depth"]), tr)
        t.check(o["args"]["count"] == 100 + i and n["args"]["count"] == 100 + i and n["args"]["value"] == 3,
                "call %d: arguments %r / %r" % (i, o["args"], n["args"]), tr)
        t.check(o["args"]["kind"] == "cudaMemcpyHostToDevice" and n["args"]["devPtr"] == "0x5000",
                "call %d: decoded values %r / %r" % (i, o["args"], n["args"]), tr)
        t.check(o["result_name"] == "cudaSuccess" and n["result_name"] == "cudaSuccess", "call %d: results" % i, tr)
        # The inner call sleeps 3 ms; the outer sleeps 2 ms before and after it.
        t.check(n["dur_ns"] >= 3000000 and o["dur_ns"] >= n["dur_ns"] + 4000000,
                "call %d: durations outer %d, inner %d" % (i, o["dur_ns"], n["dur_ns"]), tr)
        t.check(o["ts_ns"] < n["ts_ns"] and n["ts_ns"] + n["dur_ns"] < o["ts_ns"] + o["dur_ns"],
                "call %d: the outer call does not cover the inner one" % i, tr)
        if i:
            prev = outer[i - 1]
            t.check(prev["ts_ns"] + prev["dur_ns"] < o["ts_ns"], "call %d overlaps the one before" % i, tr)
    print("ok")


main()
