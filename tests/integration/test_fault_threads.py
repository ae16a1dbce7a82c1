# SPDX-License-Identifier: MIT
"""64 threads calling at once: every return paired with its own call. Thread
t's call i passes count t*1000000+i and pointer 0x10000+t, so each event says
which call it must be; on each thread the calls follow one another without
overlapping, and no duration is absurd (a return paired with another
thread's call would give a negative or huge one)."""
import collections
import cttest as t

THREADS, CALLS = 64, 1500


def main():
    t.need_root()
    prog = t.program("cudart_threads_shared")
    tr = t.run(["--plugin", "cudart"], command=[prog, str(THREADS), str(CALLS)], timeout=300)
    t.check(tr.rc == 0, "rc %d" % tr.rc, tr)
    t.check(tr.lost() == 0, "lost records", tr)
    t.check("returns without their call" not in tr.stderr, "unpaired returns", tr)
    ev = tr.calls("cudaMemset")
    t.check(len(ev) == THREADS * CALLS, "%d events, want %d" % (len(ev), THREADS * CALLS), tr)
    by_tid = collections.defaultdict(list)
    for e in ev:
        th = e["args"]["count"] // 1000000
        t.check(e["args"]["devPtr"] == hex(0x10000 + th) and e["args"]["value"] == th,
                "pointer, value and count come from different calls: %r" % e["args"], tr)
        t.check(e["depth"] == 0, "depth %d for a call that does not nest" % e["depth"], tr)
        t.check(0 < e["dur_ns"] < 10 * 10**9, "duration %d ns" % e["dur_ns"], tr)
        by_tid[e["tid"]].append(e)
    t.check(len(by_tid) == THREADS, "%d threads, want %d" % (len(by_tid), THREADS), tr)
    for tid, calls in by_tid.items():
        counts = [e["args"]["count"] for e in calls]
        th = counts[0] // 1000000
        t.check(counts == [th * 1000000 + i for i in range(CALLS)], "tid %d: calls mixed or missing" % tid, tr)
        for a, b in zip(calls, calls[1:]):
            t.check(a["ts_ns"] + a["dur_ns"] <= b["ts_ns"],
                    "tid %d: call %d overlaps the next one" % (tid, a["args"]["count"]), tr)
    print("ok")


main()
