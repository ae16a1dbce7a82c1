# SPDX-License-Identifier: MIT
"""The calls the cudart plugin records at entry only by default (a marker, a
dependency or a host function put on a stream: cudaEventRecord(+WithFlags),
cudaStreamWaitEvent, cudaLaunchHostFunc) come out as entry-only events with
their arguments, under both names (_ptsz), with the entry and return programs
and with session programs, while the calls around them keep their result and
duration. tracer.timed times them again, from -C or a file, over
tracer.entry_only too; a bad glob is refused where it was written, a glob
that names no API is warned about; --list-apis, --explain and -v say which
APIs are entry-only and why."""
import re
import subprocess
import tempfile
import cttest as t

# tests/programs/cudart_async.cu, in order: (api, args, entry-only by default)
CALLS = [
    ("cudaMemcpyAsync", {"dst": "0x3000", "src": "0x4000", "count": 2000,
                         "kind": "cudaMemcpyDeviceToHost", "stream": "0x5100"}, False),
    ("cudaEventRecord", {"event": "0xe100", "stream": "0x5100"}, True),
    ("cudaEventRecordWithFlags", {"event": "0xe200", "stream": "0x5200", "flags": "0x1"}, True),
    ("cudaStreamWaitEvent", {"stream": "0x5300", "event": "0xe300", "flags": "0x0"}, True),
    ("cudaLaunchHostFunc", {"stream": "0x5400", "fn": "@host_fn", "userData": "0x4242"}, True),
    ("cudaStreamSynchronize", {"stream": "0x5100"}, False),
]


def check_events(tr, suffix, timed, what):
    """The six calls in order; those not in `timed` that are entry-only by default
    have no result and no duration; every call's arguments are decoded."""
    t.check(tr.rc == 0, "%s: tracer exited %d" % (what, tr.rc), tr)
    m = re.search(r"host_fn=(0x[0-9a-f]+)", tr.stdout)
    t.check(m, "%s: the program did not print host_fn: %r" % (what, tr.stdout), tr)
    got = tr.calls(plugin="cudart")
    want = [api + suffix for api, _, _ in CALLS]
    t.check([e["api"] for e in got] == want, "%s: calls %s, want %s" % (what, [e["api"] for e in got], want), tr)
    for ev, (api, args, entry) in zip(got, CALLS):
        args = {k: m.group(1) if v == "@host_fn" else v for k, v in args.items()}
        t.check(ev["args"] == args, "%s: %s args %s, want %s" % (what, api, ev["args"], args), tr)
        if entry and api not in timed:
            t.check(ev.get("entry_only") is True and "result" not in ev and "dur_ns" not in ev
                    and "error" not in ev and ev["depth"] == 0, "%s: %s is not entry-only: %s" % (what, api, ev), tr)
        else:
            t.check(not ev.get("entry_only") and ev.get("result") == 35 and ev.get("dur_ns", 0) > 0,
                    "%s: %s is not timed: %s" % (what, api, ev), tr)


def tracer(args):
    p = subprocess.run([t.TRACER, "--plugin", "cudart"] + args, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def api_line(out, api):
    lines = [l for l in out.splitlines() if l.split()[:1] == [api]]
    t.check(len(lines) == 1, "--list-apis: %s listed %d times:\n%s" % (api, len(lines), out))
    return lines[0]


def config_keys():
    """The choice per API, read the same from -C and a file; bad globs refused at file:line."""
    rc, out, err = tracer(["--list-apis"])
    t.check(rc == 0, err)
    for api in ("cudaEventRecord", "cudaEventRecord_ptsz", "cudaEventRecordWithFlags", "cudaStreamWaitEvent",
                "cudaLaunchHostFunc_ptsz"):
        t.check("traced  entry-only (plugin default) (" in api_line(out, api), api_line(out, api))
    for api in ("cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaMalloc", "cudaEventSynchronize"):
        t.check("traced  (" in api_line(out, api), api_line(out, api))
    rc, out, err = tracer(["-C", "tracer.timed=cudaEventRecord*", "-C", "tracer.entry_only=cudaMemsetAsync",
                           "--list-apis"])
    t.check(rc == 0, err)
    t.check("timed (tracer.timed) (" in api_line(out, "cudaEventRecordWithFlags_ptsz"), out)
    t.check("entry-only (plugin default) (" in api_line(out, "cudaStreamWaitEvent"), out)
    t.check("entry-only (tracer.entry_only) (" in api_line(out, "cudaMemsetAsync"), out)
    with tempfile.NamedTemporaryFile("w", suffix=".ini") as ini:
        ini.write("[tracer]\nplugins = cudart\ntimed = cudaEventRecord*\nentry_only = cudaMemsetAsync\n")
        ini.flush()
        rc_f, out_f, err_f = tracer(["-c", ini.name, "--list-apis"])
    t.check((rc_f, out_f) == (0, out), "the file and -C differ:\n%s\n%s" % (out_f, err_f))

    # A glob with a character no symbol has is refused where it was written.
    why = "'cudaEventRecord;' is not an API glob (letters, digits, _ and the wildcards * ? [...], comma-separated)"
    with tempfile.NamedTemporaryFile("w", suffix=".ini") as ini:
        ini.write("[tracer]\nplugins = cudart\ntimed = cudaStreamWaitEvent, cudaEventRecord;\n")
        ini.flush()
        rc, out, err = tracer(["-c", ini.name, "--list-apis"])
        t.check(rc != 0 and not out and "%s:3: bad value 'cudaStreamWaitEvent, cudaEventRecord;' for tracer.timed: %s"
                % (ini.name, why) in err, "file: rc %d\n%s" % (rc, err))
    rc, out, err = tracer(["-C", "tracer.timed=cudaEventRecord;", "--list-apis"])
    t.check(rc != 0 and "-C tracer.timed=cudaEventRecord;: bad value 'cudaEventRecord;' for tracer.timed: %s" % why
            in err, "-C: rc %d\n%s" % (rc, err))
    rc, out, err = tracer(["-C", "tracer.entry_only=cuda[Mem", "--list-apis"])
    t.check(rc != 0 and "bad value 'cuda[Mem' for tracer.entry_only: 'cuda[Mem' is not an API glob" in err, err)

    # --explain names the entry-only APIs the program's calls would hit, and why.
    rc, out, err = tracer(["-C", "tracer.timed=cudaStreamWaitEvent", "--explain", "--",
                           t.program("cudart_async_shared")])
    t.check(rc == 0, err)
    lines = out.splitlines()
    head = [i for i, l in enumerate(lines) if l.startswith("recorded at entry only (no return probe")]
    t.check(len(head) == 1, out)
    t.check(lines[head[0] + 1] == "  cudart: entry-only (plugin default): cudaStreamWaitEvent_ptsz, "
            "cudaLaunchHostFunc, cudaLaunchHostFunc_ptsz, cudaEventRecord, cudaEventRecord_ptsz, "
            "cudaEventRecordWithFlags, cudaEventRecordWithFlags_ptsz"
            and lines[head[0] + 2] == "  cudart: timed (tracer.timed): cudaStreamWaitEvent", out)


def main():
    t.need_root()
    config_keys()
    shared, ptsz = t.program("cudart_async_shared"), t.program("cudart_async_ptsz")

    check_events(t.run(["--plugin", "cudart"], command=[shared]), "", (), "default")
    check_events(t.run(["--plugin", "cudart"], command=[ptsz]), "_ptsz", (), "per-thread")
    # Session programs decline the return of an entry-only call: the same events.
    check_events(t.run(["--plugin", "cudart", "--attach", "session"], command=[ptsz]), "_ptsz", (), "session")

    # Back to timed: from -C, and from a file; * times every API.
    tr = t.run(["--plugin", "cudart", "-v", "-C", "tracer.timed=cudaEventRecord,cudaLaunchHostFunc*"],
               command=[shared])
    check_events(tr, "", ("cudaEventRecord", "cudaLaunchHostFunc"), "-C tracer.timed")
    # -v says it for each traced API that is not plainly timed; a glob matches
    # whole symbols, so cudaEventRecord leaves cudaEventRecord_ptsz as it was.
    for line in ("cudaStreamWaitEvent is entry-only (plugin default)", "cudaLaunchHostFunc is timed (tracer.timed)",
                 "cudaLaunchHostFunc_ptsz is timed (tracer.timed)", "cudaEventRecord is timed (tracer.timed)",
                 "cudaEventRecord_ptsz is entry-only (plugin default)"):
        t.check("plugin cudart: " + line in tr.stderr, "-v: %s" % line, tr)
    tr = t.run(["--plugin", "cudart"], config="[tracer]\ntimed = *\n", command=[shared])
    check_events(tr, "", [api for api, _, _ in CALLS], "timed = * in a file")
    # timed wins over entry_only.
    tr = t.run(["--plugin", "cudart", "-C", "tracer.entry_only=cuda*", "-C", "tracer.timed=cudaMemcpyAsync,"
                "cudaStreamSynchronize,cudaEventRecordWithFlags"], command=[shared])
    check_events(tr, "", ("cudaEventRecordWithFlags",), "entry_only and timed")

    # A glob that names no API: traced all the same, and said.
    tr = t.run(["--plugin", "cudart", "-C", "tracer.timed=cudaEventRecrod"], command=[shared])
    check_events(tr, "", (), "a typo")
    t.check("tracer.timed: 'cudaEventRecrod' matches no API of the loaded plugins" in tr.stderr, "typo", tr)

    # Aggregate mode counts them as calls without time or errors.
    tr = t.run(["--plugin", "cudart", "-C", "tracer.mode=aggregate", "-o", "summary:@TMP@/summary.txt"],
               command=[shared], jsonl_sink=False)
    rows = t.summary_rows(tr.files + "/summary.txt")
    t.check(tr.rc == 0 and set(rows) == {api for api, _, _ in CALLS}, "aggregate: %s" % rows, tr)
    for api, _, entry in CALLS:
        t.check(rows[api][:2] == (1, 0 if entry else 1), "aggregate %s: %s" % (api, rows[api]), tr)
    print("ok")


main()
