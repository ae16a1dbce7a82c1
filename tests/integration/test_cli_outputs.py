# SPDX-License-Identifier: MIT
"""The command line as a user meets it (issue 14): a file format never
shares the traced command's standard output (a new file is named, or the
path is refused); -o sinks are named so that -C sink.NAME.key=value reaches
them; durations with decimals; the text sink's columns, header and live
output on a pipe; the start line and -q; no totals after a fatal error;
--config-help loads as it is."""
import json
import os
import re
import subprocess
import tempfile
import time
import cttest as t

START = re.compile(r"^cudatracer: Tracing (\d+) APIs of cudart in (.*) \(PID (\d+)\)\. Ctrl-C to end\.$")


def run(args, cwd=None, **kw):
    return subprocess.run([t.TRACER, "--plugin", "cudart"] + args, capture_output=True, text=True, timeout=120,
                          cwd=cwd, **kw)


def traced_count():
    """How many APIs of cudart the default profile traces, as --list-apis says."""
    p = run(["--list-apis"])
    return sum(1 for l in p.stdout.splitlines() if not l.startswith("#") and l.split()[1:2] == ["traced"])


def file_formats(prog):
    d = tempfile.mkdtemp(prefix="ctfiles.")
    p = run(["-o", "jsonl", "-o", "jsonl", "-o", "chrome", "-o", "csv", "-o", "html", "--", prog], cwd=d)
    t.check(p.returncode == 0, "rc %d\n%s" % (p.returncode, p.stderr))
    m = [START.match(l) for l in p.stderr.splitlines() if START.match(l)]
    t.check(len(m) == 1 and int(m[0].group(1)) == traced_count() and m[0].group(2) == prog, "start line:\n" + p.stderr)
    pid = m[0].group(3)
    stem = "cudatracer-cudart_calls_shared-" + pid
    want = {"jsonl": stem + ".jsonl", "jsonl2": stem + "-2.jsonl", "chrome": stem + ".json",
            "csv": stem + ".csv", "html": stem + ".html"}
    t.check(sorted(os.listdir(d)) == sorted(want.values()), "files: %s" % os.listdir(d))
    for name, f in want.items():
        kind = name.rstrip("2")
        t.check("cudatracer: sink '%s' (%s) writes %s" % (name, kind, f) in p.stderr.splitlines()
                and "cudatracer: sink '%s' (%s) wrote %s" % (name, kind, f) in p.stderr.splitlines(),
                "where %s went:\n%s" % (name, p.stderr))
    # The program's own output stayed on stdout; each file is its format alone.
    t.check(p.stdout == "cudart_calls: done\n", "stdout: %r" % p.stdout)
    ev = t.read_jsonl(os.path.join(d, want["jsonl"]))
    t.check(len(ev) == 34 and ev[0]["api"] == "cudaGetDeviceCount", "jsonl: %d events" % len(ev))
    t.check(t.read_jsonl(os.path.join(d, want["jsonl2"])) == ev, "the second jsonl differs")
    json.load(open(os.path.join(d, want["chrome"])))
    t.check(open(os.path.join(d, want["csv"])).readline().startswith("ts_ns,pid,"), "csv header")
    t.check(oct(os.stat(os.path.join(d, want["jsonl"])).st_mode & 0o777) == "0o600", "mode of a new file")

    # Where the command writes too: refused, and the file left as it was.
    out = os.path.join(d, "out.txt")
    with open(out, "w") as f:
        f.write("kept\n")
    for path, redirect in (("-", None), (out, out)):
        so = open(redirect, "a") if redirect else subprocess.PIPE
        p = subprocess.run([t.TRACER, "--plugin", "cudart", "-o", "jsonl:" + path, "--", prog],
                           stdout=so, stderr=subprocess.PIPE, text=True, timeout=60)
        if redirect:
            so.close()
        want_err = ("cudatracer: error: sink 'jsonl' (jsonl): %s is where %s writes its standard output too, "
                    "and its output would be mixed into the jsonl file: leave the path out (a new file "
                    "cudatracer-COMMAND-PID.jsonl is written), or give another\n" % (path, prog))
        t.check(p.returncode == 2 or p.returncode == 1, "-o jsonl:%s: rc %d" % (path, p.returncode))
        t.check(p.stderr == want_err, "-o jsonl:%s: stderr %r" % (path, p.stderr))
    t.check(open(out).read() == "kept\n", "the command's stdout file was emptied")
    # The same file as its stderr, by another name.
    p = subprocess.run([t.TRACER, "--plugin", "cudart", "-o", "csv:" + os.path.join(d, ".", "out.txt"), "--", prog],
                       stdout=subprocess.DEVNULL, stderr=open(out, "a"), timeout=60)
    t.check(p.returncode != 0 and "writes its standard error too" in open(out).read(), "stderr's file")
    # Standard output on /dev/null shares nothing; nor does -p, whose process has its own.
    p = subprocess.run([t.TRACER, "--plugin", "cudart", "-o", "jsonl:-", "--", prog], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    t.check(p.returncode == 0, "-o jsonl:- with stdout on /dev/null: %s" % p.stderr)


def names(prog):
    d = tempfile.mkdtemp(prefix="ctnames.")
    a, b, c = (os.path.join(d, x) for x in ("a.txt", "b.json", "c.jsonl"))
    p = run(["-o", "summary:" + a, "-o", "summary:" + b, "-C", "sink.summary2.format=json",
             "-o", "mine=jsonl:/nonexistent/x", "-C", "sink.mine.path=" + c, "--", prog])
    t.check(p.returncode == 0, "rc %d\n%s" % (p.returncode, p.stderr))
    t.check(open(a).read().startswith("cudatracer summary"), "summary: " + open(a).read()[:200])
    t.check(json.load(open(b))["calls"] == 34, "summary2 as json: " + open(b).read()[:200])
    t.check(len(t.read_jsonl(c)) == 34, "sink mine, path from -C")
    p = run(["-o", "x=jsonl:" + c, "-o", "x=csv:" + a, "--list-apis"])
    t.check(p.returncode == 2 and "-o x=csv:%s: there is already a sink named 'x' (from -o x=jsonl:%s): give another "
            "name" % (a, c) in p.stderr, p.stderr)
    p = run(["-o", "a.b=jsonl", "--list-apis"])
    t.check(p.returncode == 2 and "-o a.b=jsonl: 'a.b' is not a sink name (letters, digits, _ and -)" in p.stderr,
            p.stderr)
    p = run(["-C", "sink.summary.format=yaml", "-o", "summary", "--list-apis"])
    t.check(p.returncode == 2 and "-C sink.summary.format=yaml: bad value 'yaml' for sink.summary.format: expected "
            "one of: table, json, csv" in p.stderr, p.stderr)
    p = run(["-C", "sink.summary.interval=2", "-C", "sink.ghost.path=x", "--list-apis"])
    t.check(p.returncode == 2 and "-C sink.summary.interval=2: sink 'summary' has no type (set sink.summary.type to "
            "one of: text, jsonl," in p.stderr, p.stderr)
    p = run(["-o", "jsonl:" + c, "-C", "sink.jsonl.indent=2", "--list-apis"])
    t.check(p.returncode == 2 and "-C sink.jsonl.indent=2: unknown key 'indent' for a sink of type jsonl (its keys: "
            "type, path, rotate_size, rotate_interval, rotate_keep, rotate_keep_bytes, rotate_compress)" in p.stderr,
            p.stderr)


def durations(prog):
    for v in ("0.2ms", "1.5us", "200000ns", "0.000001s", "50", "2m", "1.5h"):
        p = run(["--min-duration", v, "--list-apis"])
        t.check(p.returncode == 0, "--min-duration %s: %s" % (v, p.stderr))
    for v, why in (("0.5ns", "at most ns precision"), ("2 ms", "a number with unit ns, us, ms, s, m or h"),
                   ("-1ms", "such as 0.2ms"), ("1.5d", "a bare number is us")):
        p = run(["--min-duration", v, "--list-apis"])
        t.check(p.returncode == 2 and ("--min-duration %s: bad value '%s' for filter.min_duration: expected a "
                                       "duration" % (v, v)) in p.stderr and why in p.stderr, p.stderr)
    # Every call of the program fails fast (no GPU): 1.5 s keeps none, 0 keeps all.
    d = tempfile.mkdtemp(prefix="ctdur.")
    p = run(["--min-duration", "1.5s", "-o", "jsonl:" + os.path.join(d, "a.jsonl"), "--", prog])
    t.check(p.returncode == 0 and t.read_jsonl(os.path.join(d, "a.jsonl")) == [] and "34 filtered out" in p.stderr,
            p.stderr)
    p = run(["-C", "tracer.ringbuf_size=1.5M", "--list-apis"])
    t.check(p.returncode == 2 and "expected a size in bytes: a whole number, optionally with K, M or G" in p.stderr,
            p.stderr)
    p = run(["-C", "filter.errors_only=maybe", "--list-apis"])
    t.check(p.returncode == 2 and "expected one of: true, false, yes, no, on, off, 1, 0" in p.stderr, p.stderr)


def text(prog):
    p = run(["--", prog])
    t.check(p.returncode == 0, p.stderr)
    lines = [l for l in p.stdout.splitlines() if l != "cudart_calls: done"]
    head = lines[0]
    t.check(head.split() == ["TIME", "COMM", "PID", "TID", "DEV", "DUR(us)", "RESULT", "CALL"], "header: %r" % head)
    call_at = head.index("CALL")
    dur_end = head.index("DUR(us)") + len("DUR(us)")
    t.check(len(lines) == 35, "%d lines" % len(lines))
    entry = 0
    for l in lines[1:]:
        cols = l.split()
        # An entry-only call (cudaEventRecord, cudaStreamWaitEvent by default): "-" and "(entry)".
        is_entry = cols[6] == "(entry)"
        entry += is_entry
        t.check(re.fullmatch(r"-" if is_entry else r"\d+\.\d{3}", l[:dur_end].split()[-1]) is not None,
                "duration in us: %r" % l)
        t.check(l[call_at - 2:call_at] == "  " and re.match(r"_*cuda\w*\(", l[call_at:]) and
                cols[6] in ("cudaErrorInsufficientDriver", "(entry)"), "columns: %r" % l)
    t.check(entry == 2, "%d entry-only lines" % entry)
    # -q: neither the start line nor the totals; a fatal error: no totals after it.
    p = run(["-q", "--", prog])
    t.check(p.returncode == 0 and p.stderr == "", "-q: %r" % p.stderr)
    p = run(["-o", "jsonl:/nonexistent/dir/x.jsonl", "--", prog])
    t.check(p.returncode == 1 and p.stderr == "cudatracer: error: sink 'jsonl': cannot open /nonexistent/dir/x.jsonl "
            "for writing: No such file or directory\n", "fatal: %r" % p.stderr)


def live(loop):
    """Lines reach a pipe within the reader's 100 ms poll, not at the next 1 s flush."""
    worst = 0
    for _ in range(3):
        p = subprocess.Popen([t.TRACER, "--plugin", "cudart", "--", "sh", "-c", "%s 3; sleep 2" % loop],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        seen, done_at = 0, None
        while seen < 3:
            l = p.stdout.readline()
            t.check(l != "", "the tracer ended first")
            if l.startswith("loop: 3 calls"):
                done_at = time.monotonic()
            elif "cudaMemset(" in l:
                seen += 1
        if done_at is None:  # the calls' lines came before the program's own
            done_at = time.monotonic()
            while not p.stdout.readline().startswith("loop:"):
                pass
        worst = max(worst, time.monotonic() - done_at)
        p.wait(timeout=30)
    t.check(worst < 0.6, "text lines held back %.2f s on a pipe" % worst)


def config_help():
    p = subprocess.run([t.TRACER, "--config-help"], capture_output=True, text=True, timeout=60)
    d = tempfile.mkdtemp(prefix="cthelp.")
    as_is, all_on = os.path.join(d, "as_is.ini"), os.path.join(d, "all_on.ini")
    open(as_is, "w").write(p.stdout)
    # Every commented key and example section switched on: still loads.
    open(all_on, "w").write("".join(l[1:] if l.startswith(";") else l for l in p.stdout.splitlines(True)))
    long = [l for l in p.stdout.splitlines() if len(l) > 78]
    t.check(not long, "lines past 78 columns (inih reads 200 at a time): %s" % long[:3])
    for f in (as_is, all_on):
        q = subprocess.run([t.TRACER, "-c", f, "--list-apis"], capture_output=True, text=True, timeout=60)
        t.check(q.returncode == 0 and q.stderr == "", "%s does not load:\n%s" % (f, q.stderr))
    t.check("[sink.summary]" in open(all_on).read() and "\nformat = table\n" in open(all_on).read(),
            "the summary's example section")


def main():
    config_help()
    t.need_root()
    prog = t.program("cudart_calls_shared")
    durations(prog)
    names(prog)
    file_formats(prog)
    text(prog)
    live(t.program("cudart_loop_shared"))
    print("ok")


main()
