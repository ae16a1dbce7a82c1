# SPDX-License-Identifier: MIT
"""A plugin file cut short (a copy interrupted, a full disk) is refused with
its path and the word "truncated", exit status 1, and the command is not run.
Before, ld.so mapped a segment past the end of the file and the first touch
was a SIGBUS inside dlopen (rc -7, no message). core/plugin/elfcheck.c
checks the ELF header, the program headers, every PT_LOAD segment and the
section header table against the size of the file it opened, then loads
that same descriptor. Cut in three places: inside the program headers
(100 bytes), inside the loadable segments (20000, as head -c 20000 does),
and after the segments but before the section headers (size - 200)."""
import atexit
import os
import shutil
import subprocess
import tempfile
import cttest as t

TMP = tempfile.mkdtemp(prefix="cttrunc.")
atexit.register(shutil.rmtree, TMP, True)
MARKER = os.path.join(TMP, "command-ran")
E = "cudatracer: error: "


def truncated(src, size, where):
    path = os.path.join(TMP, "libct-cut%d.so" % size)
    with open(src, "rb") as f, open(path, "wb") as out:
        out.write(f.read(size))
    p = subprocess.run([t.TRACER, "--plugin", path, "--", "touch", MARKER], capture_output=True, text=True,
                       timeout=60)
    t.check(p.returncode == 1, "cut at %d: rc %d (a negative rc is a signal), want 1:\n%s" % (size, p.returncode, p.stderr))
    want = E + "cannot load plugin %s: %s is truncated: its %s" % (path, path, where)
    errors = [l for l in p.stderr.splitlines() if l.startswith(E)]
    t.check(len(errors) == 1 and errors[0].startswith(want) and ("the file has %d" % size) in errors[0],
            "cut at %d: want one error starting %r, got:\n%s" % (size, want, p.stderr))
    t.check(not os.path.exists(MARKER), "the command ran although its plugin was refused")


def main():
    t.need_root()
    src = os.path.join(t.BUILD, "plugins", "libct-cudart.so")
    size = os.path.getsize(src)
    truncated(src, 100, "program headers end at byte")
    truncated(src, 20000, "loadable segment")
    truncated(src, size - 200, "section header table ends at byte %d" % size)
    # The whole file still loads (through the descriptor that was checked).
    p = subprocess.run([t.TRACER, "--plugin", src, "--list-apis"], capture_output=True, text=True, timeout=60)
    t.check(p.returncode == 0 and p.stdout.startswith("# plugin cudart (%s)" % src), "the whole plugin: rc %d\n%s"
            % (p.returncode, p.stderr))
    print("ok")


main()
