# SPDX-License-Identifier: MIT
"""mode = aggregate counts calls, errors and bytes per API in the kernel and
prints them at exit with no per-call records; entry_only globs record the
chosen APIs at entry only (no result, no duration), the others in full."""
import os
import cttest as t

N = 1000


def main():
    t.need_root()
    prog = t.program("cudart_loop_shared")
    tr = t.run(["--plugin", "cudart", "-C", "tracer.mode=aggregate", "-C", "tracer.aggregate_path=-"],
               command=[prog, str(N)])
    t.check(tr.rc == 0, "aggregate: rc %d" % tr.rc, tr)
    t.check(tr.events == [], "aggregate mode sent per-call records", tr)
    rows = {l.split()[0]: l.split() for l in tr.stdout.splitlines() if l.startswith("cuda")}
    t.check("cudaMemset" in rows, "no cudaMemset row:\n" + tr.stdout, tr)
    api, calls, errors, total_us, pct, avg, p50, p99, mx, nbytes = rows["cudaMemset"]
    t.check(int(calls) == N and int(errors) == N, "calls %s errors %s" % (calls, errors), tr)
    t.check(int(nbytes) == N * (N - 1) // 2, "bytes %s, want %d" % (nbytes, N * (N - 1) // 2), tr)
    t.check(0 < int(avg) <= int(mx) and int(p50) <= int(p99), "durations %s" % rows["cudaMemset"], tr)

    tr = t.run(["--plugin", "cudart", "-C", "tracer.entry_only=cudaMemset"], command=[prog, "10"])
    ev = tr.calls("cudaMemset")
    t.check(len(ev) == 10 and all(e.get("entry_only") and "result" not in e and "dur_ns" not in e for e in ev),
            "entry_only: %s" % ev[:2], tr)
    t.check([e["args"]["count"] for e in ev] == list(range(10)), "entry_only args", tr)
    print("ok")


main()
