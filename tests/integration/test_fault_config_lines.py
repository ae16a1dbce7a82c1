# SPDX-License-Identifier: MIT
"""A config line longer than inih's line buffer (Debian's libinih is built
with INI_MAX_LINE 200: 198 bytes and the line break) is an error at
file:line, exit status 2, and nothing after it is used (issue 13). Before,
inih split the line and read its tail as a line of its own: the tail of a
long comment took effect as a key, and a long value was cut short. A line of
198 bytes is still read as it is."""
import atexit
import os
import shutil
import subprocess
import tempfile
import cttest as t

TMP = tempfile.mkdtemp(prefix="ctlines.")
atexit.register(shutil.rmtree, TMP, True)
E = "cudatracer: error: "
LIMIT = 198


def conf(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def run(path):
    return subprocess.run([t.TRACER, "-c", path, "--list-apis"], capture_output=True, text=True, timeout=60)


def refused(path, line):
    p = run(path)
    want = [E + "%s:%d: line longer than %d bytes" % (path, line, LIMIT)]
    got = [l for l in p.stderr.splitlines() if l.startswith(E)]
    t.check(p.returncode == 2 and got == want, "%s: rc %d, want %r, got:\n%s" % (path, p.returncode, want, p.stderr))
    t.check("# plugin" not in p.stdout, "%s: a plugin was loaded from a refused config:\n%s" % (path, p.stdout))


def padded(line, size):
    """`line` made `size` bytes long with a trailing comment (inih strips it)."""
    return line + " ;" + "x" * (size - len(line) - 2)


def main():
    # A long comment whose tail, past the buffer, reads as a key: before, the
    # cuda plugin was loaded instead of cudart.
    comment = "#" + "-" * LIMIT + "plugins = cuda"  # inih's fgets() takes 199 bytes
    refused(conf("comment.ini", "[tracer]\nplugins = cudart\n%s\n" % comment), 3)
    # A long key line (its value would be cut short).
    refused(conf("key.ini", "[tracer]\n%s\n[filter]\ninclude = cudaMalloc\n" % padded("plugins = cudart", LIMIT + 1)), 2)
    # The last line, with no line break after it.
    refused(conf("last.ini", "[tracer]\n" + padded("plugins = cudart", LIMIT + 1)), 2)
    # At the limit: read whole.
    for end in ("\n", "", "\r\n"):
        path = conf("limit.ini", "[tracer]\n%s%s" % (padded("plugins = cuda", LIMIT - len(end.rstrip("\n"))), end))
        p = run(path)
        t.check(p.returncode == 0 and p.stdout.startswith("# plugin cuda ") and not p.stderr,
                "a line of %d bytes (ending %r): rc %d\n%s" % (LIMIT, end, p.returncode, p.stderr))
    print("ok")


main()
