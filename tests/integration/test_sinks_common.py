# SPDX-License-Identifier: MIT
"""Shared by the sink integration tests (not a test itself).

A stand-in libcudart that succeeds, so that allocations, copies and frees
really happen from the tracer's point of view (the real library without a
GPU fails every call), and a program that uses it: built here with cc into
the test's temp folder, in a pip-like layout (lib/libcudart.so.98, RPATH).
Also: every sink configured at once, and readers that check each file.
"""
import csv
import io
import json
import os
import sqlite3
import subprocess
import tempfile

import cttest

FAKE_RT = r"""
#include <stddef.h>
#include <stdint.h>
static uintptr_t next_dev = 0x7f5000000000u, next_host = 0x7f6000000000u;
static uintptr_t bump(uintptr_t *p, size_t n) { uintptr_t r = *p; *p += (n + 0xfff) & ~(size_t)0xfff; return r; }
int cudaGetDeviceCount(int *n) { *n = 1; return 0; }
int cudaMalloc(void **p, size_t n) { *p = (void *)bump(&next_dev, n); return 0; }
int cudaMallocHost(void **p, size_t n) { *p = (void *)bump(&next_host, n); return 0; }
int cudaFree(void *p) { (void)p; return 0; }
int cudaFreeHost(void *p) { (void)p; return 0; }
int cudaMemcpy(void *d, const void *s, size_t n, int kind) { (void)d; (void)s; (void)n; (void)kind; return 0; }
int cudaMemset(void *d, int v, size_t n) { (void)d; (void)v; (void)n; return 0; }
int cudaDeviceSynchronize(void) { return 0; }
"""

# argv: ITERATIONS [SLEEP_US]. Prints "pid N" first so a test can kill it.
# Leaves one 8192-byte device allocation unfreed and frees one pointer it
# never allocated (0xbad000).
FAKE_USER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int cudaGetDeviceCount(int *n);
int cudaMalloc(void **p, size_t n);
int cudaMallocHost(void **p, size_t n);
int cudaFree(void *p);
int cudaFreeHost(void *p);
int cudaMemcpy(void *d, const void *s, size_t n, int kind);
int cudaMemset(void *d, int v, size_t n);
int cudaDeviceSynchronize(void);
int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 1;
	int us = argc > 2 ? atoi(argv[2]) : 0;
	void *a, *b, *h;
	int n;

	printf("pid %d\n", getpid());
	fflush(stdout);
	cudaGetDeviceCount(&n);
	cudaMalloc(&a, 4096);
	cudaMalloc(&b, 8192);
	cudaMallocHost(&h, 1000);
	for (long i = 0; i < iters; i++) {
		cudaMemcpy(a, h, 1000, 1);
		cudaMemcpy(h, a, 500, 2);
		cudaMemset(b, 0, 64);
		if (us)
			usleep(us);
	}
	cudaFree(a);
	cudaFree((void *)0xbad000);
	cudaFreeHost(h);
	cudaFree(NULL);
	cudaDeviceSynchronize();
	printf("done\n");
	return 0;
}
"""

ALL_SINKS = """
[sink.sum]
type = summary
path = @TMP@/summary.json
format = json
[sink.table]
type = summary
path = @TMP@/summary.txt
[sink.chrome]
type = chrome
path = @TMP@/trace.json
[sink.csv]
type = csv
path = @TMP@/calls.csv
[sink.mem]
type = memory
path = @TMP@/memory.json
format = json
[sink.memtext]
type = memory
path = @TMP@/memory.txt
[sink.html]
type = html
path = @TMP@/report.html
[sink.db]
type = sqlite
path = @TMP@/run.db
batch = 7
"""


def build_fake(tmp):
    """Compile the stand-in runtime and its user; return the program's path."""
    cc = os.environ.get("CC", "cc")
    lib = os.path.join(tmp, "fake", "lib")
    os.makedirs(lib, exist_ok=True)
    for name, text in (("rt.c", FAKE_RT), ("user.c", FAKE_USER)):
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
    so = os.path.join(lib, "libcudart.so.98")
    prog = os.path.join(tmp, "fake", "sinks_user")
    try:
        subprocess.run([cc, "-shared", "-fPIC", "-O1", "-Wl,-soname,libcudart.so.98", "-o", so,
                        os.path.join(tmp, "rt.c")], check=True, capture_output=True, text=True)
        subprocess.run([cc, "-O1", "-o", prog, os.path.join(tmp, "user.c"), so,
                        "-Wl,-rpath,$ORIGIN/lib"], check=True, capture_output=True, text=True)
    except FileNotFoundError:
        cttest.skip("no C compiler (%s) to build the stand-in runtime" % cc)
    except subprocess.CalledProcessError as e:
        raise AssertionError("building the stand-in runtime failed:\n" + e.stderr)
    return prog


def write_config(tmp, extra=""):
    conf = os.path.join(tmp, "ct.ini")
    with open(conf, "w") as f:
        f.write("[sink.test]\ntype = jsonl\npath = %s\n" % os.path.join(tmp, "events.jsonl"))
        f.write(ALL_SINKS.replace("@TMP@", tmp))
        f.write(extra)
    return conf


def files(tmp):
    """Read and check every sink's file; return what they hold."""
    out = {"events": cttest.read_jsonl(os.path.join(tmp, "events.jsonl"))}
    with open(os.path.join(tmp, "summary.json")) as f:
        out["summary"] = json.load(f)
    with open(os.path.join(tmp, "summary.txt")) as f:
        out["summary_txt"] = f.read()
    with open(os.path.join(tmp, "trace.json")) as f:
        out["chrome"] = json.load(f)
    with open(os.path.join(tmp, "calls.csv"), newline="") as f:
        rows = list(csv.reader(io.StringIO(f.read(), newline=""), strict=True))
    assert rows and rows[0][:6] == ["ts_ns", "pid", "tid", "comm", "plugin", "api"], rows[:1]
    assert all(len(r) == len(rows[0]) for r in rows), "ragged csv"
    out["csv"] = [dict(zip(rows[0], r)) for r in rows[1:]]
    with open(os.path.join(tmp, "memory.json")) as f:
        out["memory"] = json.load(f)
    with open(os.path.join(tmp, "memory.txt")) as f:
        out["memory_txt"] = f.read()
    with open(os.path.join(tmp, "report.html")) as f:
        out["html"] = f.read()
    assert out["html"].rstrip().endswith("</html>"), "html report is cut short"
    out["db"] = read_db(os.path.join(tmp, "run.db"))
    return out


def read_db(path):
    """The sqlite sink's calls, each as a dict; the database must be whole."""
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        ok = db.execute("PRAGMA integrity_check").fetchall()
        assert ok == [("ok",)], "%s: integrity_check: %r" % (path, ok)
        assert db.execute("PRAGMA user_version").fetchone() == (2,), "user_version"
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute("SELECT * FROM calls ORDER BY id")]
    finally:
        db.close()


def check_consistent(d, trace=None):
    """Every sink saw exactly the calls the jsonl sink reported."""
    ev = d["events"]
    n = len(ev)
    cttest.check(n > 0, "no events", trace)
    cttest.check(d["summary"]["calls"] == n,
                 "summary counts %d calls, jsonl has %d" % (d["summary"]["calls"], n), trace)
    calls = [e for e in d["chrome"]["traceEvents"] if e["ph"] in ("X", "i")]
    cttest.check(len(calls) == n, "chrome has %d calls, jsonl %d" % (len(calls), n), trace)
    cttest.check(d["chrome"]["otherData"]["calls"] == n, "chrome otherData.calls", trace)
    cttest.check(len(d["csv"]) == n, "csv has %d rows, jsonl %d" % (len(d["csv"]), n), trace)
    # the same calls, in the same order, in chrome and csv as in jsonl
    # a slice is named by its API, a launch's by its kernel: the API is in args
    cttest.check([e["args"]["api"] for e in calls] == [e["api"] for e in ev], "chrome order", trace)
    cttest.check([r["api"] for r in d["csv"]] == [e["api"] for e in ev], "csv order", trace)
    cttest.check([int(r["ts_ns"]) for r in d["csv"]] == [e["ts_ns"] for e in ev], "csv ts", trace)
    cttest.check("%d calls from" % n in d["html"], "html total calls", trace)
    # the database: a row a call, the same values (batches of 7: the last one partial)
    cttest.check(len(d["db"]) == n, "the database has %d calls, jsonl %d" % (len(d["db"]), n), trace)
    cttest.check([(r["ts_ns"], r["api"], r["dur_ns"], r["tid"], json.loads(r["args"])) for r in d["db"]] ==
                 [(e["ts_ns"], e["api"], e.get("dur_ns"), e["tid"], e["args"]) for e in ev],
                 "database rows differ from the jsonl events", trace)


def tmpdir():
    return tempfile.mkdtemp(prefix="ct-sinks.")
