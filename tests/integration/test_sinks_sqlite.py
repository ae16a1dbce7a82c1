#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The sqlite sink on a real traced program (the real libcudart, whose calls fail
fast): the database holds the jsonl's calls row for row with the same decoded
values; report and merge read it as they read the jsonl; the queries of
docs/sqlite.md, run by the sqlite3 shell, give the numbers the jsonl implies; an
existing file is refused or replaced as the other file sinks do; a database that
is not the sink's is refused by report; a database of schema version 1 (calls
one wide table) is read as before."""
import atexit
import collections
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import cttest

PROG = "cudart_calls_shared"

# Version 1's calls table, as the sink wrote it before version 2 (the other
# tables did not change).
V1_CALLS = """CREATE TABLE calls(id INTEGER PRIMARY KEY, ts_ns INTEGER NOT NULL, dur_ns INTEGER,
 pid INTEGER NOT NULL, tid INTEGER NOT NULL, comm TEXT, depth INTEGER NOT NULL,
 plugin TEXT NOT NULL, api TEXT NOT NULL, result INTEGER, result_name TEXT,
 error INTEGER NOT NULL, ret TEXT, device INTEGER, device_from TEXT, gpu_uuid TEXT,
 cgroup TEXT, cgroup_id INTEGER, container TEXT, pod TEXT, rank INTEGER, local_rank INTEGER,
 world_size INTEGER, job_id TEXT, communicator TEXT, collective INTEGER NOT NULL, bytes INTEGER,
 parent_plugin TEXT, parent_api TEXT, args TEXT NOT NULL, stack_id INTEGER, py_stack_id INTEGER,
 gpu_bus TEXT);"""


def tracer(args, **kw):
    return subprocess.run([cttest.TRACER] + args, capture_output=True, text=True, timeout=120, **kw)


def record(tmp):
    """One run, written by the jsonl and the sqlite sink at once."""
    jl, db = os.path.join(tmp, "run.jsonl"), os.path.join(tmp, "run.db")
    p = tracer(["--plugin", "cudart", "--stacks", "-o", "jsonl:" + jl, "-o", "sqlite:" + db, "--",
                cttest.program(PROG)])
    trace = cttest.Trace(p.returncode, p.stdout, p.stderr, [], tmp)
    cttest.check(p.returncode == 0, "tracer exited %d" % p.returncode, trace)
    head, events = cttest.read_jsonl(jl, meta=True)
    return jl, db, head, events, trace


def rows(db, sql, *args):
    c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    c.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in c.execute(sql, args)]
    finally:
        c.close()


def same_rows(db, head, events, trace):
    """Every column of calls against the jsonl line of the same call."""
    got = rows(db, "SELECT * FROM calls ORDER BY id")
    cttest.check(len(got) == len(events) and len(events) >= 30,
                 "database %d calls, jsonl %d" % (len(got), len(events)), trace)
    for r, e in zip(got, events):
        want = {"ts_ns": e["ts_ns"], "dur_ns": e.get("dur_ns"), "pid": e["pid"], "tid": e["tid"],
                "comm": e["comm"], "depth": e["depth"], "plugin": e["plugin"], "api": e["api"],
                "result": e.get("result"), "result_name": e.get("result_name"),
                "error": int(e.get("error", False)), "ret": e.get("ret"), "device": e["device"],
                "cgroup": e.get("cgroup"), "container": e.get("container"), "pod": e.get("pod")}
        have = {k: r[k] for k in want}
        cttest.check(have == want, "row %d: %r\n  jsonl: %r" % (r["id"], have, want), trace)
        cttest.check(json.loads(r["args"]) == e["args"], "row %d args %s != %r" % (r["id"], r["args"], e["args"]),
                     trace)
    # the repeated text stored once: a row of apis per API called, of results per outcome
    apis = {(e["plugin"], e["api"]) for e in events}
    outcomes = {(e.get("result"), e.get("result_name"), int(e.get("error", False))) for e in events}
    cttest.check(rows(db, "SELECT count(*) AS n FROM apis")[0]["n"] == len(apis) > 20 and
                 rows(db, "SELECT count(*) AS n FROM results")[0]["n"] == len(outcomes),
                 "side tables: %d APIs, %d outcomes" % (len(apis), len(outcomes)), trace)
    # stacks: one row per distinct stack, its frames in order, each call pointing at its own
    stacks = {r["id"]: r for r in rows(db, "SELECT * FROM stacks")}
    distinct = {json.dumps(e["stack"]) for e in events if "stack" in e}
    cttest.check(len(stacks) == len(distinct) and 20 < len(distinct) < len(events),
                 "%d stacks stored for %d distinct" % (len(stacks), len(distinct)), trace)
    for r, e in zip(got, events):
        cttest.check((r["stack_id"] is None) == ("stack" not in e), "row %d: a stack or none" % r["id"], trace)
        if "stack" not in e:
            continue
        cttest.check(json.loads(stacks[r["stack_id"]]["json"]) == e["stack"], "row %d stack" % r["id"], trace)
        fr = rows(db, "SELECT function, module, line FROM frames WHERE stack_id = ? ORDER BY idx", r["stack_id"])
        # jsonl writes a frame no symbol covers as "[unknown]"; the frames table has NULL
        known = [{k: None if f.get(k) == "[unknown]" else f.get(k) for k in ("function", "module", "line")}
                 for f in e["stack"]]
        cttest.check(fr == known, "row %d frames %r, jsonl %r" % (r["id"], fr, e["stack"]), trace)
    # every call of this program fails: no driver
    cttest.check(all(r["result_name"] == "cudaErrorInsufficientDriver" for r in got if r["api"] == "cudaMalloc"),
                 "cudaMalloc's error name", trace)
    meta = {r["key"]: r["value"] for r in rows(db, "SELECT * FROM meta")}
    for k in ("host", "boot_id"):
        cttest.check(meta[k] == head[k], "meta %s %r, jsonl %r" % (k, meta[k], head[k]), trace)
    # each sink reads the two clocks when it opens: a moment apart
    cttest.check(abs(meta["wall_offset_ns"] - head["wall_offset_ns"]) < 100000, "wall_offset_ns", trace)
    cttest.check(meta["format"] == "cudatracer-sqlite" and meta["schema_version"] == 2, "format", trace)
    cttest.check(meta["events"] == len(events) and meta["lost"] == 0 and meta["plugins"] == "cudart",
                 "meta totals %r" % meta, trace)
    cttest.check("sqlite:" + db in meta["command"], "command %r" % meta["command"], trace)
    procs = rows(db, "SELECT * FROM processes")
    pid = events[0]["pid"]
    cttest.check(len(procs) == 1 and procs[0]["pid"] == pid and procs[0]["start_ns"] == events[0]["ts_ns"] and
                 procs[0]["end_ns"] is not None and procs[0]["end_ns"] >= events[-1]["ts_ns"],
                 "processes %r" % procs, trace)
    idx = {r["name"] for r in rows(db, "SELECT name FROM sqlite_schema WHERE type = 'index'")}
    cttest.check({"calls_ts", "calls_pid", "calls_api", "gpu_name"} <= idx, "indexes %r" % idx, trace)


def v1_database(tmp, db, trace):
    """The run as the sink wrote it in version 1, made by SQL: the wide calls
    table filled from the view, the other tables as they are, version 1 in meta.
    The view has version 1's columns, in its order."""
    old = os.path.join(tmp, "v1.db")
    c = sqlite3.connect(old)
    try:
        c.execute("ATTACH ? AS run", (db,))
        for name, sql in c.execute("SELECT name, sql FROM run.sqlite_schema WHERE type = 'table' AND name NOT IN "
                                   "('call_rows', 'apis', 'results', 'contexts')").fetchall():
            c.execute(sql)
            c.execute("INSERT INTO main.%s SELECT * FROM run.%s" % (name, name))
        c.execute(V1_CALLS)
        wide = [r[1] for r in c.execute("PRAGMA main.table_info(calls)")]
        view = [r[1] for r in c.execute("PRAGMA run.table_info(calls)")]
        cttest.check(view == wide and len(wide) == 33, "the view's columns %r, version 1's %r" % (view, wide), trace)
        c.execute("INSERT INTO main.calls SELECT * FROM run.calls")
        c.execute("UPDATE main.meta SET value = 1 WHERE key = 'schema_version'")
        c.commit()
        c.execute("PRAGMA main.user_version = 1")
    finally:
        c.close()
    cttest.check(rows(old, "SELECT count(*) AS n FROM calls")[0]["n"] == rows(db, "SELECT count(*) AS n FROM calls")[0]["n"],
                 "version 1's copy", trace)
    return old


def report_same(tmp, jl, db, trace):
    """report of the database == report of the jsonl: jsonl line for line, the summary."""
    out = {}
    for src in (jl, db):
        o = os.path.join(tmp, "rep-%s.jsonl" % os.path.basename(src))
        p = tracer(["report", src, "-o", "jsonl:" + o, "-o", "summary:" + o + ".txt"])
        cttest.check(p.returncode == 0, "report %s: %s" % (src, p.stderr), trace)
        with open(o) as f:
            lines = f.read().splitlines()[1:]  # the meta line is the report's own
        with open(o + ".txt") as f:
            out[src] = (lines, f.read())
    cttest.check(out[jl][0] == out[db][0], "report of the db differs from the jsonl's:\n%s\n%s" %
                 ("\n".join(out[jl][0][:3]), "\n".join(out[db][0][:3])), trace)
    cttest.check(out[jl][1] == out[db][1] and "cudaMalloc" in out[db][1], "summaries differ:\n%s\n%s" %
                 (out[jl][1], out[db][1]), trace)
    m = {}
    for src in (jl, db):
        o = os.path.join(tmp, "merge-%s.json" % os.path.basename(src))
        p = tracer(["merge", src, "-o", "chrome:" + o])
        cttest.check(p.returncode == 0, "merge %s: %s" % (src, p.stderr), trace)
        with open(o) as f:
            m[src] = json.load(f)
        m[src].get("otherData", {}).pop("inputs", None)
    n = [e for e in m[db]["traceEvents"] if e.get("ph") == "X"]
    cttest.check(m[jl] == m[db] and len(n) >= 30, "merge of the db differs from the jsonl's", trace)


def doc_queries():
    """The fenced sql blocks of docs/sqlite.md, by their ### heading."""
    with open(os.path.join(cttest.SOURCE, "docs", "sqlite.md")) as f:
        text = f.read()
    return dict(re.findall(r"^### ([^\n]+)\n\n```sql\n(.*?)```", text, re.S | re.M))


def shell(db, sql):
    p = subprocess.run(["sqlite3", "-json", db], input=sql, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and not p.stderr, "sqlite3: %s\n%s" % (p.stderr, sql)
    return json.loads(p.stdout) if p.stdout.strip() else []


def queries(db, events, trace):
    if not shutil.which("sqlite3"):
        cttest.skip("no sqlite3 shell (apt-get install sqlite3)")
    q = doc_queries()
    cttest.check(len(q) == 5, "docs/sqlite.md has %d queries: %r" % (len(q), list(q)), trace)

    per_api = collections.defaultdict(lambda: [0, None, 0])
    for e in events:
        a = per_api[(e["plugin"], e["api"])]
        a[0] += 1
        if "dur_ns" in e:  # entry-only calls have no time: their API's total is NULL
            a[1] = (a[1] or 0) + e["dur_ns"]
        a[2] += int(e.get("error", False))
    got = shell(db, q["Calls per API with total time"])
    totals = [r["total_ns"] for r in got if r["total_ns"] is not None]
    cttest.check({(r["plugin"], r["api"]): [r["calls"], r["total_ns"], r["errors"]] for r in got} == per_api and
                 totals == sorted(totals, reverse=True) and len(totals) > 20, "calls per API: %r" % got, trace)

    got = shell(db, q["The slowest calls"])
    timed = sorted(((e["dur_ns"], i + 1) for i, e in enumerate(events) if "dur_ns" in e),
                   key=lambda t: (-t[0], t[1]))[:10]
    cttest.check([(r["dur_ns"], r["id"]) for r in got] == timed, "slowest: %r" % got, trace)

    cttest.check(shell(db, q["Kernels by GPU time"]) == [], "no GPU here: no kernels", trace)

    errs = collections.Counter((e["pid"], e["api"], e.get("result_name")) for e in events if e.get("error"))
    got = shell(db, q["Errors by process"])
    cttest.check({(r["pid"], r["api"], r["result_name"]): r["errors"] for r in got} == errs and
                 all(r["comm"] == events[0]["comm"] for r in got), "errors: %r" % got, trace)

    # a range holding the middle third of the calls
    ts = [e["ts_ns"] for e in events]
    lo, hi = ts[len(ts) // 3], ts[2 * len(ts) // 3]
    sql = re.sub(r"@from \d+", "@from %d" % lo, q["Calls in a time range"])
    sql = re.sub(r"@to \d+", "@to %d" % hi, sql)
    want = collections.Counter(e["api"] for e in events if lo <= e["ts_ns"] < hi)
    got = shell(db, sql)
    cttest.check({r["api"]: r["calls"] for r in got} == want and sum(want.values()) > 5,
                 "time range: %r, want %r" % (got, want), trace)


def existing(tmp, trace):
    """An existing file that passes the opener's checks is replaced by a whole
    database; one with two hard links is refused and left as it was."""
    db = os.path.join(tmp, "old.db")
    with open(db, "w") as f:
        f.write("not a database\n" * 1000)
    p = tracer(["--plugin", "cudart", "-o", "sqlite:" + db, "--", cttest.program(PROG)])
    cttest.check(p.returncode == 0, "replacing a file: %s" % p.stderr, trace)
    cttest.check(rows(db, "PRAGMA integrity_check") == [{"integrity_check": "ok"}] and
                 rows(db, "SELECT count(*) AS n FROM calls")[0]["n"] >= 30, "the replaced file", trace)

    linked = os.path.join(tmp, "linked.db")
    with open(linked, "w") as f:
        f.write("keep me\n")
    os.link(linked, os.path.join(tmp, "other-name"))
    p = tracer(["--plugin", "cudart", "-o", "sqlite:" + linked, "--", cttest.program(PROG)])
    cttest.check(p.returncode != 0 and linked in p.stderr and "link" in p.stderr,
                 "a file with two hard links: rc %d\n%s" % (p.returncode, p.stderr), trace)
    with open(linked) as f:
        cttest.check(f.read() == "keep me\n", "the refused file was changed", trace)

    p = tracer(["--plugin", "cudart", "-o", "sqlite:-", "--", cttest.program(PROG)])
    cttest.check(p.returncode != 0 and "sqlite" in p.stderr, "standard output: %s" % p.stderr, trace)


def edited(path, sql, source=None):
    """path (a copy of source, if given) changed by the SQL script."""
    if source:
        shutil.copy(source, path)
    c = sqlite3.connect(path)
    try:
        c.executescript(sql)
    finally:
        c.close()
    return path


def disk_full(tmp, trace):
    """A full disk mid-run: the sink stops with SQLite's words and the database
    keeps what was committed before, whole (its journal, in memory, undid the
    commit that failed). In a mount namespace of its own, on a 256 KiB tmpfs."""
    small, out = os.path.join(tmp, "small"), os.path.join(tmp, "full.db")
    os.mkdir(small)
    script = ('mount -t tmpfs -o size=256k tmpfs "$1" && "$2" -q --plugin cudart -o sqlite:"$1/x.db" -- "$3" 20000 '
              '>/dev/null; rc=$?; cp "$1/x.db" "$4"; exit $rc')
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", small, cttest.TRACER,
                        cttest.program("cudart_loop_shared"), out], capture_output=True, text=True, timeout=120)
    cttest.check(p.returncode != 0 and "database or disk is full" in p.stderr and "x.db" in p.stderr,
                 "a full disk: rc %d\n%s" % (p.returncode, p.stderr), trace)
    cttest.check(rows(out, "PRAGMA integrity_check") == [{"integrity_check": "ok"}] and
                 rows(out, "SELECT value FROM meta WHERE key = 'format'") == [{"value": "cudatracer-sqlite"}],
                 "the database on the full disk is not whole", trace)


def foreign(tmp, trace):
    """A SQLite database of another program, and one whose calls is a view, are refused."""
    run_db = os.path.join(tmp, "run.db")
    other = edited(os.path.join(tmp, "other.db"), "CREATE TABLE t(x);")
    p = tracer(["report", other])
    cttest.check(p.returncode != 0 and "is a SQLite database but not one of cudatracer's" in p.stderr and
                 other in p.stderr, "another program's database: %s" % p.stderr, trace)

    view = edited(os.path.join(tmp, "view.db"), "ALTER TABLE call_rows RENAME TO c2; CREATE VIEW call_rows AS WITH "
                  "RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT c2.* FROM c2, r;", run_db)
    p = tracer(["report", view])
    cttest.check(p.returncode != 0 and "%s: its tables are not those of schema version 2" % view in p.stderr,
                 "a view in place of call_rows: %s" % p.stderr, trace)

    newer = edited(os.path.join(tmp, "v3.db"), "UPDATE meta SET value = 3 WHERE key = 'schema_version';", run_db)
    p = tracer(["report", newer])
    cttest.check(p.returncode != 0 and "%s: schema version 3, this cudatracer reads versions 1 to 2" % newer in p.stderr,
                 "a later version: %s" % p.stderr, trace)

    # a row of more than 4 MiB (two values of 2.5 MiB) is skipped and said; a value of 5 MiB is an error
    big = edited(os.path.join(tmp, "big.db"), "UPDATE call_rows SET communicator = printf('%.*c', 2621440, 'x'), "
                 "args = printf('%.*c', 2621440, 'y') WHERE id = 3;", run_db)
    p = tracer(["report", big, "-o", "jsonl:" + big + ".jsonl"])
    n = len(cttest.read_jsonl(big + ".jsonl"))
    cttest.check(p.returncode == 0 and "%s:3: a row of more than 4194304 bytes is skipped" % big in p.stderr and
                 n == rows(big, "SELECT count(*) AS n FROM calls")[0]["n"] - 1, "a long row: %d\n%s" % (n, p.stderr),
                 trace)
    edited(big, "UPDATE call_rows SET communicator = printf('%.*c', 5242880, 'x') WHERE id = 4;")
    p = tracer(["report", big])
    cttest.check(p.returncode != 0 and "reading %s failed: string or blob too big" % big in p.stderr,
                 "a long value: %s" % p.stderr, trace)


def main():
    cttest.need_root()
    tmp = tempfile.mkdtemp(prefix="ct-sqlite.")
    atexit.register(shutil.rmtree, tmp, True)
    jl, db, head, events, trace = record(tmp)
    same_rows(db, head, events, trace)
    report_same(tmp, jl, db, trace)
    report_same(tmp, jl, v1_database(tmp, db, trace), trace)
    queries(db, events, trace)
    existing(tmp, trace)
    disk_full(tmp, trace)
    foreign(tmp, trace)
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
