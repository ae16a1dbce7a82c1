# SPDX-License-Identifier: MIT
"""mode = aggregate counts calls, errors, time and bytes per process and API
in the kernel, with no per-call records, and hands the counts to the summary
sink: its table is the one events mode gives for the same calls (same
counts, bytes of successful calls only). Sinks and filters that need every
call are refused in aggregate mode, with the reason. entry_only globs record
the chosen APIs at entry only (no result, no duration), the others in full.
Aggregate mode is checked on both of its program kinds: uprobe session
programs (the default; the entry time rides in the call's session cookie)
and entry and return programs (tracer.attach = multi)."""
import os
import cttest as t

N = 1000
AGG = ["--plugin", "cudart", "-C", "tracer.mode=aggregate"]


def summary(tr, name="summary.txt"):
    return t.summary_rows(os.path.join(tr.files, name))


LINKS = {"auto": "(uprobe session)", "multi": "(uprobe_multi)"}


def same_as_events(prog, args, attach):
    """Aggregate mode's summary table against events mode's, call for call."""
    agg = t.run(AGG + ["-v", "-C", "tracer.attach=" + attach, "-C", "tracer.aggregate_path=@TMP@/summary.txt"],
                command=[prog] + args, jsonl_sink=False)
    t.check(agg.rc == 0, "aggregate %s: rc %d" % (prog, agg.rc), agg)
    t.check(LINKS[attach] in agg.stderr, "attach %s: the probes' programs are not %s" % (attach, LINKS[attach]), agg)
    ev = t.run(["--plugin", "cudart"], command=[prog] + args, extra_sinks=t.SUMMARY_AND_MEMORY_SINKS)
    t.check(ev.rc == 0, "events %s: rc %d" % (prog, ev.rc), ev)
    a, e = summary(agg), summary(ev)
    t.check(a == e, "%s: aggregate summary %s, events summary %s" % (prog, a, e), agg)
    t.check(a, "%s: an empty summary" % prog, agg)
    t.check("records lost" in agg.stderr and "%d events" % sum(c for c, _, _ in a.values()) in agg.stderr,
            "aggregate: the calls counted are the run's events", agg)
    return agg, a


def main():
    t.need_root()
    prog = t.program("cudart_loop_shared")
    for attach in LINKS:
        check_aggregate(prog, attach)
    refusals(prog)
    print("ok")


def check_aggregate(prog, attach):
    agg, rows = same_as_events(prog, [str(N)], attach)
    # No GPU: every cudaMemset fails (error 35), so none moved a byte.
    t.check(rows["cudaMemset"] == (N, N, "0"), "cudaMemset: %s" % (rows["cudaMemset"],), agg)
    with open(os.path.join(agg.files, "summary.txt")) as f:
        text = f.read()
    line = [l.split() for l in text.splitlines() if l.rstrip().endswith(" cudaMemset")][0]
    # the Nested column (5th): aggregate mode counts no nesting
    t.check(line[4] == "-", "aggregate: nested calls %s" % line, agg)
    pct, calls, errors = float(line[0]), int(line[2]), int(line[3])
    total, avg, mn, mx, p50, p99 = (t.table_ns(x) for x in [line[1]] + line[5:10])
    t.check(0 < mn <= p50 <= p99 <= mx and mn <= avg <= mx and total >= 0.99 * avg * calls,  # cells rounded to their unit
            "aggregate durations: %s" % line, agg)
    t.check("pid " in text, "the summary is per process:\n" + text, agg)

    # Calls that succeed: the stand-in runtime. Bytes of the allocation that
    # succeeded; cudaFree(NULL) fails.
    agg, rows = same_as_events(os.path.join(t.PROGRAMS, "fake", "fake_user"), [], attach)
    t.check(rows["cudaMalloc"] == (1, 0, "256") and rows["cudaFree"] == (2, 1, "-"),
            "fake runtime (attach %s): %s" % (attach, rows), agg)


def refusals(prog):

    # What aggregate mode cannot do is refused before anything is traced.
    for extra, why in ((["-o", "jsonl"], "sink 'jsonl' (jsonl) writes every call"),
                       (["--errors-only"], "--errors-only (filter.errors_only) filters single calls"),
                       (["--min-duration", "1us"], "--min-duration (filter.min_duration) filters single calls")):
        tr = t.run(AGG + extra, command=[prog, "10"], jsonl_sink=False)
        t.check(tr.rc != 0 and why in tr.stderr and "tracer.mode = aggregate records none" in tr.stderr
                and "loop:" not in tr.stdout, "aggregate %s: rc %d" % (extra, tr.rc), tr)

    tr = t.run(["--plugin", "cudart", "-C", "tracer.entry_only=cudaMemset"], command=[prog, "10"])
    ev = tr.calls("cudaMemset")
    t.check(len(ev) == 10 and all(e.get("entry_only") and "result" not in e and "dur_ns" not in e for e in ev),
            "entry_only: %s" % ev[:2], tr)
    t.check([e["args"]["count"] for e in ev] == list(range(10)), "entry_only args", tr)


main()
