# SPDX-License-Identifier: MIT
"""Eight threads calling at once: every return is paired with its own
call. Thread t's call i passes count t*1000000+i, so each event tells
which thread and call it must belong to."""
import collections
import cttest as t

THREADS, CALLS = 8, 2000


def main():
    t.need_root()
    for variant in ("shared", "static"):
        tr = t.run(["--plugin", "cudart"], command=[t.program("cudart_threads_" + variant), str(THREADS), str(CALLS)])
        t.check(tr.rc == 0, "rc %d" % tr.rc, tr)
        t.check(tr.lost() == 0, "lost records", tr)
        ev = tr.calls("cudaMemset")
        t.check(len(ev) == THREADS * CALLS, "%s: %d events, want %d" % (variant, len(ev), THREADS * CALLS), tr)
        by_tid = collections.defaultdict(list)
        for e in ev:
            by_tid[e["tid"]].append(e["args"]["count"])
            t.check(e["args"]["devPtr"] == hex(0x10000 + e["args"]["count"] // 1000000),
                    "%s: pointer and count come from different calls: %r" % (variant, e["args"]), tr)
        t.check(len(by_tid) == THREADS, "%s: %d threads" % (variant, len(by_tid)), tr)
        for tid, counts in by_tid.items():
            th = counts[0] // 1000000
            # The thread's calls, all its own, in its own order.
            t.check(counts == [th * 1000000 + i for i in range(CALLS)], "%s: tid %d mixed calls" % (variant, tid), tr)
    print("ok")


main()
