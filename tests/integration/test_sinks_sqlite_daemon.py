#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The sqlite sink under the daemon: the committed batches can be read while
the session runs; a reload keeps the finished database (its calls, its
indexes, whole) and the next session writes a new one beside it, said in the
log, as for chrome; at the stop that one is whole too."""
import glob
import os
import sqlite3
import time

import cttest
from daemon_common import Daemon, wait_for


def conf(d):
    return "[sink.db]\ntype = sqlite\npath = %s\n" % d.path("run.db")


def memsets(path, pid):
    """cudaMemset rows of pid committed so far; None while the file cannot be read."""
    try:
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=5)
        try:
            return db.execute("SELECT count(*) FROM calls WHERE pid = ? AND api = 'cudaMemset'", (pid,)).fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return None


def whole(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        return (db.execute("PRAGMA integrity_check").fetchall() == [("ok",)] and
                db.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'calls_ts'").fetchone()[0] == 1)
    finally:
        db.close()


def main():
    d = Daemon(conf)
    db = d.path("run.db")
    p1 = d.run(7)
    # read while the daemon runs: the tick commits the batch
    cttest.check(wait_for(lambda: memsets(db, p1) == 7), "7 calls not committed\n" + d.said())
    # A reader that holds the database (a shell's open transaction) while rows
    # come: the commits wait for it, the sink goes on, nothing is lost.
    reader = sqlite3.connect("file:%s?mode=ro" % db, uri=True, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM calls").fetchone()
    p3 = d.run(3)
    time.sleep(2.5)  # ticks past: each COMMIT finds the reader's lock
    cttest.check("failed" not in d.said(), "a reader's lock failed the sink\n" + d.said())
    reader.execute("COMMIT")
    reader.close()
    cttest.check(wait_for(lambda: memsets(db, p3) == 3), "3 calls not committed after the reader\n" + d.said())
    d.reload("reload: the new configuration is valid")
    d.ready()
    p2 = d.run(5)
    new = glob.glob(d.path("run.*.db"))
    cttest.check(len(new) == 1 and "the finished %s is kept; this session writes %s" % (db, new[0]) in d.said(),
                 "the new database: %r\n%s" % (new, d.said()))
    cttest.check(wait_for(lambda: memsets(new[0], p2) == 5), "5 calls not in the new database\n" + d.said())
    cttest.check(memsets(db, p1) == 7 and memsets(db, p2) == 0 and whole(db),
                 "the finished database %s changed\n%s" % (db, d.said()))
    d.stop()
    cttest.check(memsets(new[0], p2) == 5 and memsets(new[0], p1) == 0 and whole(new[0]),
                 "the second database after the stop\n" + d.said())
    print("ok: a reload keeps the finished database and writes a new one beside it")


if __name__ == "__main__":
    main()
