# SPDX-License-Identifier: MIT
"""Helpers for integration tests: run cudatracer on a program, read its jsonl.

A test is a plain python3 script; it exits 0 on success, 1 on failure (via
assert), and 77 with one line saying why when it must skip.
"""
import atexit
import json
import shutil
import signal
import os
import subprocess
import sys
import tempfile

BUILD = os.environ.get("CT_BUILD", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
SOURCE = os.environ.get("CT_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
TRACER = os.path.join(BUILD, "cudatracer")
PROGRAMS = os.path.join(BUILD, "tests", "programs")


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def need_root():
    if os.geteuid() != 0:
        skip("needs root to load BPF programs")


def program(name):
    p = os.path.join(PROGRAMS, name)
    if not os.path.exists(p):
        skip("test program %s was not built (is nvcc installed?)" % name)
    return p


class Trace:
    """One tracer run: its exit code, stderr and the events it wrote."""

    def __init__(self, rc, stdout, stderr, events, files):
        self.rc, self.stdout, self.stderr, self.events, self.files = rc, stdout, stderr, events, files

    def calls(self, api=None, plugin=None):
        """API calls (GPU activity lines, kind gpu, have no api)."""
        return [e for e in self.events if "api" in e
                and (api is None or e["api"] == api) and (plugin is None or e["plugin"] == plugin)]

    def apis(self, plugin=None):
        return [e["api"] for e in self.events if "api" in e and (plugin is None or e["plugin"] == plugin)]

    def lost(self):
        """The lost-record count from the tracer's closing report."""
        for line in self.stderr.splitlines():
            if "lost" in line and "records" in line:
                for tok in line.replace(",", " ").split():
                    pass
        import re
        m = re.search(r"(\d+) records? lost", self.stderr)
        assert m, "no lost-record report in stderr:\n" + self.stderr
        return int(m.group(1))


def wait_tracing(proc, err_lines=None):
    """Read the tracer's stderr (started with -v) until it says it is tracing."""
    lines = [] if err_lines is None else err_lines
    while True:
        line = proc.stderr.readline()
        if line == "":
            raise AssertionError("tracer ended before attaching:\n" + "".join(lines))
        lines.append(line)
        if "Ctrl-C to end." in line:
            return lines


def trace_pid(pid, args=(), env=None):
    """Start cudatracer -v on pid with a jsonl sink; return (process, jsonl
    path, stderr lines so far) once it says it is tracing."""
    out = os.path.join(tempfile.mkdtemp(prefix="cttest."), "ev.jsonl")
    atexit.register(shutil.rmtree, os.path.dirname(out), True)
    tr = subprocess.Popen([TRACER, "-v", "-p", str(pid), "-o", "jsonl:" + out] + list(args),
                          stderr=subprocess.PIPE, text=True, env=env)
    return tr, out, wait_tracing(tr)


def trace_pid_while(p, args):
    """Attach to a waiting program (p: a Popen with pipes, that reads "go",
    does its work and says one line, then waits for "end"), and stop the
    tracer while it still lives, so that its maps still name its files.
    Returns (tracer, jsonl path, tracer's stderr, the program's line)."""
    tr, out, err = trace_pid(p.pid, args)
    p.stdin.write("go\n")
    p.stdin.flush()
    line = p.stdout.readline()
    tr.send_signal(signal.SIGINT)
    stderr = "".join(err) + tr.communicate(timeout=60)[1]
    p.stdin.write("end\n")
    p.stdin.flush()
    return tr, out, stderr, line


def read_jsonl(path, meta=False):
    """The events of a jsonl trace; with meta=True, (meta line, events): the
    first line says where and when the trace was taken (docs/events.md)."""
    events, head = [], None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            try:
                obj = json.loads(line)
            except ValueError as e:
                raise AssertionError("%s:%d is not valid JSON (%s): %r" % (path, n, e, line[:200]))
            if obj.get("kind") == "meta":
                assert n == 1 and head is None, "%s:%d: a meta line that is not the first" % (path, n)
                head = obj
            else:
                events.append(obj)
    return (head, events) if meta else events


def run(args, config=None, command=None, timeout=120, env=None, extra_sinks="", jsonl_sink=True, wrap=()):
    """Run the tracer with a jsonl sink to a temp file (unless jsonl_sink is
    False); return a Trace. @TMP@ in args and extra_sinks is the temp folder.
    wrap: a command line the tracer's own is appended to (unshare ...)."""
    tmp = tempfile.mkdtemp(prefix="cttest.")
    jsonl = os.path.join(tmp, "events.jsonl")
    conf = os.path.join(tmp, "ct.ini")
    args = [a.replace("@TMP@", tmp) for a in args]
    with open(conf, "w") as f:
        f.write(config or "")
        if jsonl_sink:
            f.write("\n[sink.test]\ntype = jsonl\npath = %s\n" % jsonl)
        f.write(extra_sinks.replace("@TMP@", tmp))
    cmd = list(wrap) + [TRACER, "-c", conf] + list(args)
    if command:
        cmd += ["--"] + list(command)
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=e)
    events = read_jsonl(jsonl) if os.path.exists(jsonl) else []
    atexit.register(shutil.rmtree, tmp, True)  # kept while the test reads its files
    return Trace(p.returncode, p.stdout, p.stderr, events, tmp)


def check(cond, msg, trace=None):
    if not cond:
        if trace is not None:
            msg += "\n--- tracer stderr ---\n" + trace.stderr[-4000:]
        raise AssertionError(msg)


# A summary and a memory sink beside the jsonl one, for tests of what they count.
SUMMARY_AND_MEMORY_SINKS = """
[sink.summary]
type = summary
path = @TMP@/summary.txt
[sink.memory]
type = memory
path = @TMP@/memory.txt
"""

# A summary and a chrome sink beside the jsonl one.
SUMMARY_AND_CHROME_SINKS = """
[sink.summary]
type = summary
path = @TMP@/summary.txt
[sink.chrome]
type = chrome
path = @TMP@/trace.json
"""


def table_ns(cell):
    """A time cell of the summary's and report's tables (950ns, 12.345us,
    1.235ms, 2.500s) in ns."""
    for unit, mult in (("ns", 1), ("us", 1e3), ("ms", 1e6), ("s", 1e9)):
        if cell.endswith(unit) and cell[:-len(unit)].replace(".", "", 1).isdigit():
            return float(cell[:-len(unit)]) * mult
    raise ValueError("not a time cell: %r" % cell)


def summary_rows(path):
    """{api: (calls, errors, bytes)} from the summary sink's per-API table."""
    rows, table = {}, False
    with open(path) as f:
        for line in f:
            if line.startswith("Time(%)"):
                table = True
            elif table and not line.strip():
                break
            elif table:
                col = line.split()
                rows[col[-1]] = (int(col[2]), int(col[3]), col[-3])
    return rows
