# SPDX-License-Identifier: MIT
"""Shared by the tests that drive a tracer and a program line by line (not a
test itself): a pipe read with deadlines, processes ended at exit, folders
removed at exit."""
import atexit
import os
import re
import select
import shutil
import tempfile
import time


class Lines:
    """Lines of a pipe, read with a deadline (a hung tracer fails the test, it does not hang it)."""

    def __init__(self, f):
        self.fd, self.buf, self.seen = f.fileno(), b"", []

    def until(self, pattern, timeout=30):
        deadline = time.time() + timeout
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                line = line.decode(errors="replace")
                self.seen.append(line)
                if re.search(pattern, line):
                    return line
            left = deadline - time.time()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise AssertionError("no line matching %r in %.0f s; so far:\n%s" %
                                     (pattern, timeout, "\n".join(self.seen[-40:])))
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise AssertionError("pipe closed before a line matching %r; so far:\n%s" %
                                     (pattern, "\n".join(self.seen[-40:])))
            self.buf += chunk

    def rest(self):
        while True:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                break
            self.buf += chunk
        self.seen += self.buf.decode(errors="replace").splitlines()
        self.buf = b""
        return "\n".join(self.seen)


def ended_at_exit(*procs):
    """A test that fails leaves no tracer behind (a daemon left running traces every process)."""
    def end():
        for p in procs:
            if p and p.poll() is None:
                p.kill()
                p.wait()
    atexit.register(end)


def tmpdir():
    d = tempfile.mkdtemp(prefix="cttest.")
    atexit.register(shutil.rmtree, d, True)  # kept while the test reads its files
    return d
