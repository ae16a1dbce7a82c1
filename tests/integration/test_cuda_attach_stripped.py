#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Attached to a running process (-p), every runtime launch is named, even
from a library stripped of its symbol table (as PyTorch's wheels ship
libtorch_cuda.so) whose kernels were registered before the tracer came.

tests/programs/kname_wait loads libkname_lib_shared_stripped.so (the
runtime shared, as frameworks load it) and waits; the tracer
attaches; then the library launches lib_fill and lib_unrolled<4> twice
each (cudaLaunchKernel and <<<>>>). No probe saw __cudaRegisterFunction and
no symbol names the host stubs: the names come from the library's own
registration code (core/symbols/cudareg.c). Checked: every launch named
exactly, the library really has no .symtab, and the closing line counts no
unnamed launch.
"""
import os
import re
import subprocess

import cttest as t

WANT = ["lib::lib_fill(int*, int, int)", "void lib::lib_unrolled<4>(float*)"] * 2


def no_symtab(lib):
    out = subprocess.run(["readelf", "-S", "-W", lib], capture_output=True, text=True, check=True).stdout
    return ".symtab" not in out


def check(rt):
    lib = os.path.join(t.PROGRAMS, "libkname_lib_%s_stripped.so" % rt)
    t.check(no_symtab(lib), "%s keeps a symbol table: the test would prove nothing" % lib)
    p = subprocess.Popen([t.program("kname_wait"), lib], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    t.check(p.stdout.readline() == "ready\n", "kname_wait did not start")
    # The tracer ends while the process lives: its maps name the library.
    tr, out, stderr, line = t.trace_pid_while(p, ["--plugin", "cudart"])
    t.check(line == "launched\n", "kname_wait did not launch")
    t.check(p.wait(timeout=60) == 0, "kname_wait exited %d" % p.returncode)
    t.check(tr.returncode == 0, "tracer exited %d:\n%s" % (tr.returncode, stderr))
    names = [e["args"].get("func") for e in t.read_jsonl(out) if e.get("api") == "cudaLaunchKernel"]
    t.check(names == WANT, "%s: launches named %r, not %r\n%s" % (rt, names, WANT, stderr))
    t.check(not re.search(r"launches: \d+ with their kernel named, [1-9]", stderr),
            "%s: the closing line counts unnamed launches:\n%s" % (rt, stderr))
    print("ok: %s runtime, stripped library: %d of %d launches named after attach" % (rt, len(names), len(WANT)))


def main():
    t.need_root()
    check("shared")


if __name__ == "__main__":
    main()
